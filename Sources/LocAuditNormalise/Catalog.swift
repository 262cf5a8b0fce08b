import Foundation
import LocAuditModel
import LocAuditRead

/// The message catalog: which messages are events, and how they map to columns.
public final class Catalog: Sendable {
    public let patterns: [CatalogPattern]
    /// Processes of iOS itself (see `CatalogFile.systemProcesses`).
    public let systemProcesses: Set<String>
    /// Pattern id -> its place in the catalog: of several lines that tell one transition,
    /// the one recognised by the pattern listed first is kept.
    let rank: [String: Int]
    private let compiled: [CompiledPattern]
    /// Patterns by FNV-1a hash of their `msg` value, in catalog order.
    private let byMsg: [UInt64: [Int]]
    /// The keys those patterns read, by the same hash (and for links, when none matches).
    private let keysByMsg: [UInt64: KeySet]
    private static let linkKeys: [[String]] = [["msg"], ["pid"], ["bundleid"], ["clientkey"]]
    private static let linkKeySet = KeySet(paths: linkKeys)
    /// The same keys numbered, for the groups whose keys can be read into slots (`SlotKeys`),
    /// and each pattern's places among them (nil: anchored, or its group is read the other way).
    let slotsByMsg: [UInt64: SlotKeys]
    private let patternSlots: [PatternSlots?]
    private static let linkSlots = SlotKeys(paths: linkKeys)
    /// Patterns matched by anchor, in catalog order.
    private let anchored: [Int]
    /// Anchors as bytes, to test candidates without building strings.
    let anchors: AnchorSet

    public init(patterns: [CatalogPattern], systemProcesses: [String] = []) throws {
        self.patterns = patterns
        self.systemProcesses = Set(systemProcesses)
        var compiled: [CompiledPattern] = []
        var byMsg: [UInt64: [Int]] = [:]
        var anchored: [Int] = []
        var seen = Set<String>()
        for (index, p) in patterns.enumerated() {
            guard seen.insert(p.id).inserted else {
                throw CatalogError(description: "pattern \"\(p.id)\" is defined twice in one catalog file")
            }
            let c = try CompiledPattern(p)
            compiled.append(c)
            if let msg = p.msg {
                byMsg[fnv1a(Array(msg.utf8)), default: []].append(index)
            } else if p.contains != nil {
                anchored.append(index)
            } else {
                throw CatalogError(description: "pattern \"\(p.id)\" needs \"msg\" or \"contains\"")
            }
        }
        self.compiled = compiled
        self.byMsg = byMsg
        self.keysByMsg = byMsg.mapValues { indices in
            KeySet(paths: Catalog.linkKeys + indices.flatMap { i -> [[String]] in
                let p = compiled[i]
                return p.when.map { [$0.0] } + p.paths
            })
        }
        var slotsByMsg: [UInt64: SlotKeys] = [:]
        var patternSlots = [PatternSlots?](repeating: nil, count: patterns.count)
        for (hash, indices) in byMsg {
            let paths = Catalog.linkKeys + indices.flatMap { i -> [[String]] in compiled[i].when.map { [$0.0] } + compiled[i].paths }
            guard let keys = SlotKeys(paths: paths) else { continue }
            let maps = indices.map { compiled[$0].slots(in: keys) }
            guard !maps.contains(where: { $0 == nil }) else { continue }
            slotsByMsg[hash] = keys
            for (i, map) in zip(indices, maps) { patternSlots[i] = map }
        }
        self.slotsByMsg = slotsByMsg
        self.patternSlots = patternSlots
        self.rank = Dictionary(patterns.enumerated().map { ($1.id, $0) }) { first, _ in first }
        self.anchored = anchored
        self.anchors = AnchorSet(anchored.map { Array(patterns[$0].contains!.utf8) })
    }

    /// Whether a message might be an event: cheap byte tests only, run on every line.
    @inline(__always)
    func isCandidate(_ message: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = message.baseAddress, message.count > 0 else { return false }
        if base[0] == UInt8(ascii: "{"), let msg = Catalog.msgValue(message) {
            if byMsg[fnv1a(msg)] != nil { return true }
            // Unmatched JSON-like messages can still link a pid to a bundle.
            return Catalog.mayLink(message)
        }
        return anchors.containsAny(message)
    }

    /// `"bundleId"`/`"bundleID"` and `"clientKey"`/`"ClientKey"`, by the part their spellings share.
    private static let bundleKeys: [[UInt8]] = [Array("\"bundleI".utf8), Array("lientKey\"".utf8)]
    private static let pidKey = Array("\"pid\"".utf8)

    static func mayLink(_ message: UnsafeBufferPointer<UInt8>) -> Bool {
        func has(_ needle: [UInt8]) -> Bool {
            needle.withUnsafeBufferPointer { memmem(message.baseAddress, message.count, $0.baseAddress, $0.count) != nil }
        }
        return has(pidKey) && bundleKeys.contains(where: has)
    }

    private static let msgKey = Array("\"msg\"".utf8)

    /// The raw bytes of the `msg` value of a JSON-like message.
    static func msgValue(_ message: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
        guard let base = message.baseAddress else { return nil }
        let end = base + message.count
        guard let hit = msgKey.withUnsafeBufferPointer({ memmem(base, message.count, $0.baseAddress, $0.count) }) else { return nil }
        var p = hit.assumingMemoryBound(to: UInt8.self) + msgKey.count
        while p < end, p.pointee == 0x20 { p += 1 }
        guard p < end, p.pointee == UInt8(ascii: ":") else { return nil }
        p += 1
        while p < end, p.pointee == 0x20 { p += 1 }
        guard p < end, p.pointee == UInt8(ascii: "\"") else { return nil }
        p += 1
        let start = p
        while p < end, p.pointee != UInt8(ascii: "\"") { p += 1 }
        guard p < end else { return nil }
        return UnsafeBufferPointer(start: start, count: p - start)
    }

    /// What a candidate message is: an event, a pid -> bundle link, or nothing. `process`
    /// is the name of the process that logged it, when the container says.
    public func recognise(_ message: String, process: String? = nil) -> Recognition {
        recognise(message, utf8: Array(message.utf8), process: process)
    }

    /// The same, with the message's UTF-8 bytes at hand (the ingest loop has them). A
    /// JSON-like message's keys are read into slots where they can be (`SlotKeys`), else
    /// (or with `slots` false) into a dictionary: the same answer either way.
    func recognise(_ message: String, utf8: [UInt8], process: String?, slots useSlots: Bool = true) -> Recognition {
        if utf8.first == UInt8(ascii: "{") {
            let msgHash = utf8.withUnsafeBufferPointer { Catalog.msgValue($0).map { fnv1a($0) } }
            // The keys read: those of the message's group, else (no group) a link's.
            let group = msgHash.flatMap { keysByMsg[$0] != nil ? $0 : nil }
            if useSlots, let keys = group.map({ slotsByMsg[$0] }) ?? Catalog.linkSlots {
                switch utf8.withUnsafeBufferPointer({ MessageFields.read($0, keys: keys) }) {
                case .malformed: return .malformed
                case .fields(let slots):
                    if let found = recognise(slots: slots, keys: keys, group: group, message: message, process: process) { return found }
                case .differs: break
                }
            }
            let wanted = msgHash.flatMap { keysByMsg[$0] } ?? Catalog.linkKeySet
            // Starts with "{", so nil means nested beyond what any message does.
            guard let fields = MessageFields.parse(bytes: utf8, wanted: wanted, foldCase: true) else { return .malformed }
            if case .string(let msg)? = fields["msg"], let indices = byMsg[fnv1a(utf8Of: msg)] {
                for i in indices where compiled[i].pattern.msg == msg {
                    if let event = compiled[i].event(fields: fields, text: message, process: process) { return compiled[i].complete(event) }
                }
            }
            if let link = Catalog.link(from: fields) { return .link(bundleId: link.0, pid: link.1) }
            return .nothing
        }
        for i in anchored {
            if let event = compiled[i].event(text: message, process: process) { return compiled[i].complete(event) }
        }
        return .nothing
    }

    /// What a message whose keys were read into slots is; nil when the patterns of its
    /// `msg` are not those of the keys read (its raw `msg` is another group's, or none's,
    /// than its value read): the dictionary's way then.
    private func recognise(slots: [FieldValue?], keys: SlotKeys, group: UInt64?, message: String, process: String?) -> Recognition? {
        if case .string(let msg)? = slots[keys.msg] {
            let hash = fnv1a(utf8Of: msg)
            if let indices = byMsg[hash] {
                guard hash == group else { return nil }
                for i in indices where compiled[i].pattern.msg == msg {
                    guard let map = patternSlots[i] else { return nil }
                    if let event = compiled[i].event(slots: slots, map: map, text: message, process: process) { return compiled[i].complete(event) }
                }
            }
        }
        if let link = Catalog.link(pid: slots[keys.pid], bundleId: slots[keys.bundleId], clientKey: slots[keys.clientKey]) {
            return .link(bundleId: link.0, pid: link.1)
        }
        return .nothing
    }

    /// Whether a process is part of iOS (its app-side lines are its own, not an app's).
    public func isSystemProcess(_ process: String?) -> Bool {
        process.map(systemProcesses.contains) ?? false
    }

    /// Links read keys in lower case (`MessageFields` with `foldCase`).
    static func link(from fields: [String: FieldValue]) -> (String, Int64)? {
        link(pid: fields["pid"], bundleId: fields["bundleid"], clientKey: fields["clientkey"])
    }

    static func link(pid raw: FieldValue?, bundleId: FieldValue?, clientKey: FieldValue?) -> (String, Int64)? {
        guard let pid = Normaliser.value(raw, for: .appPid), case .integer(let p) = pid else { return nil }
        let bundle = Normaliser.value(bundleId, for: .bundleId) ?? Normaliser.value(clientKey, for: .bundleId)
        guard case .text(let b)? = bundle, !b.isEmpty else { return nil }
        return (b, p)
    }

    /// Checks every sample of every pattern; returns one line per failure.
    public func checkSamples() -> [String] {
        var failures: [String] = []
        for p in patterns {
            if p.samples.isEmpty { failures.append("\(p.id): has no sample; add one so the pattern is tested") }
            for (n, sample) in p.samples.enumerated() {
                let label = "\(p.id) sample \(n + 1)"
                guard case .event(let event) = recognise(sample.message, process: sample.process) else {
                    if case .incomplete = recognise(sample.message, process: sample.process) {
                        failures.append("\(label): a required column is missing: \(sample.message)")
                        continue
                    }
                    failures.append("\(label): not recognised: \(sample.message)")
                    continue
                }
                if event.pattern != p.id {
                    failures.append("\(label): recognised by \"\(event.pattern)\" instead")
                }
                for (key, expected) in sample.expect.sorted(by: { $0.key < $1.key }) {
                    let actual: String?
                    if key == "kind" { actual = event.kind.rawValue }
                    else if let column = EventColumn(rawValue: key) { actual = event[column]?.description }
                    else { failures.append("\(label): unknown column \"\(key)\" in expect"); continue }
                    if actual != expected {
                        failures.append("\(label): \(key) is \(actual.map { "\"\($0)\"" } ?? "empty"), expected \"\(expected)\"")
                    }
                }
            }
        }
        return failures
    }
}

/// The outcome of recognising one message.
public enum Recognition: Sendable {
    case event(Event)
    /// A system message naming a bundle and the pid of its process, but no event.
    case link(bundleId: String, pid: Int64)
    /// A pattern's message with a required column missing (cut short or redacted).
    case incomplete(pattern: String)
    /// A JSON-like message nested deeper than `MessageFields.maxDepth`: no message at all.
    case malformed
    case nothing
}

/// FNV-1a of the bytes with ASCII letters in lower case: the hash of the lower-cased key.
@inline(__always)
func fnv1aLowercased(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for b in bytes { h = (h ^ UInt64(b >= 65 && b <= 90 ? b + 32 : b)) &* 0x100_0000_01b3 }
    return h
}

/// FNV-1a, 64 bits: stable across runs (unlike `Hasher`), used for lookups and fingerprints.
@inline(__always)
package func fnv1a<C: Sequence>(_ bytes: C, seed: UInt64 = 0xcbf2_9ce4_8422_2325) -> UInt64 where C.Element == UInt8 {
    var h = seed
    for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
    return h
}

/// FNV-1a over bytes in memory: the same hash as the generic one, for callers in other
/// modules (the writer's format lookup), where the generic one runs unspecialised (an
/// iterator call and value-witness copies a byte: 5% of the ingest's CPU).
@inline(__always)
package func fnv1a(_ bytes: UnsafeBufferPointer<UInt8>, seed: UInt64 = 0xcbf2_9ce4_8422_2325) -> UInt64 {
    var h = seed
    guard let p = bytes.baseAddress else { return h }
    for i in 0..<bytes.count { h = (h ^ UInt64(p[i])) &* 0x100_0000_01b3 }
    return h
}

/// FNV-1a of a string's UTF-8, read from its contiguous storage: the same hash as over
/// `utf8` or an array of it, without a copy or a byte-by-byte walk of the view.
@inline(__always)
package func fnv1a(utf8Of text: String, seed: UInt64 = 0xcbf2_9ce4_8422_2325) -> UInt64 {
    var text = text
    return text.withUTF8 { fnv1a($0, seed: seed) }
}
