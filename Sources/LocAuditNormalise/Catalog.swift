import Foundation
import LocAuditModel
import LocAuditRead

/// Whose process a pattern's message comes from, which decides the session it belongs to.
public enum PatternScope: String, Codable, Sendable {
    /// Logged by the app itself: the line's process and pid are the app's.
    case app
    /// Logged by a system daemon about an app named in the message (`bundleId`, `pid`).
    case system
}

/// A sample message of a pattern and the event it must parse to.
public struct CatalogSample: Codable, Sendable {
    /// The message text, as it stands after the container's prefix.
    public var message: String
    /// The process that logs it, for a pattern with a `process` condition.
    public var process: String?
    /// Column values the event must have (`kind` too); every other column is not checked.
    public var expect: [String: String]
}

/// Where a pattern's wording comes from.
public struct Provenance: Codable, Sendable, Equatable {
    /// How sure the wording is.
    public enum Evidence: String, Codable, Sendable {
        /// Seen in a real log, or a real `os_log` format string of Apple's code.
        case real
        /// This project's own shape: never seen in a public log, may not be Apple's wording.
        case reference
    }
    public var evidence: Evidence
    /// Where it was seen (or why it is a reference shape).
    public var source: String
}

/// One way a message is recognised and turned into an event.
///
/// A pattern matches either on the `msg` key of a JSON-like message (`msg`, optionally
/// narrowed by `when`), or on a literal anchor (`contains`) with an optional regular
/// expression whose named groups fill columns. Message keys are matched ignoring case.
public struct CatalogPattern: Codable, Sendable {
    /// Stable identifier; a user catalog entry with the same id replaces the built-in one.
    public var id: String
    public var kind: EventKind
    public var scope: PatternScope
    /// Value of the message's `msg` key.
    public var msg: String?
    /// Literal text the message must contain (for messages that are not JSON-like).
    public var contains: String?
    /// Regular expression (ICU syntax); `fields` maps columns to its named groups.
    public var regex: String?
    /// Required values of message keys: key -> accepted values.
    public var when: [String: [String]]?
    /// Processes whose lines the pattern reads (for wording many daemons print alike);
    /// a line of another process, or of none named, does not match.
    public var process: [String]?
    /// Column -> message key (dotted path for nested objects), or -> regex group name.
    /// `a|b` names alternatives: the first that gives a value wins.
    public var fields: [String: String]?
    /// Column -> constant value.
    public var set: [String: String]?
    /// Columns without which the message is no event (a line cut short): it is counted as `incomplete`.
    public var require: [String]?
    /// Sample messages; `locaudit catalog test` checks each parses to its `expect`.
    public var samples: [CatalogSample]
    /// Whether the wording is real or a reference shape, and its source (optional in user files).
    public var provenance: Provenance?
}

/// A catalog file: `{"patterns": [...]}`, optionally `"systemProcesses": [...]`.
public struct CatalogFile: Codable, Sendable {
    public var patterns: [CatalogPattern]
    /// Processes of iOS itself. Some use CLLocationManager as apps do (`routined`,
    /// `contextstored`, ...): their app-side lines are theirs, never an app's session.
    /// A user file's list adds to the built-in one.
    public var systemProcesses: [String]?
}

/// Why a catalog could not be loaded.
public struct CatalogError: Error, CustomStringConvertible {
    public var description: String
}

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
    /// Patterns matched by anchor, in catalog order.
    private let anchored: [Int]
    /// Anchors as bytes, to test candidates without building strings.
    let anchors: [[UInt8]]

    /// The built-in catalog, overlaid by user files (later files win on equal ids).
    public static func load(userFiles: [String]) throws -> Catalog {
        let builtin = try decode(Data(BuiltinCatalog.json.utf8), origin: "built-in catalog")
        var patterns = builtin.patterns
        var systemProcesses = builtin.systemProcesses ?? []
        for path in userFiles {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CatalogError(description: "\(path): cannot read the catalog file. Check the path, or remove the option.")
            }
            let file = try decode(data, origin: path)
            systemProcesses += file.systemProcesses ?? []
            for pattern in file.patterns {
                if let i = patterns.firstIndex(where: { $0.id == pattern.id }) {
                    patterns[i] = pattern
                } else {
                    // User additions go first so that they can narrow a built-in `msg`.
                    patterns.insert(pattern, at: 0)
                }
            }
        }
        return try Catalog(patterns: patterns, systemProcesses: systemProcesses)
    }

    /// The built-in catalog as JSON text.
    public static var builtinJSON: String { BuiltinCatalog.json }

    /// The built-in catalog, parsed once (its samples are tested; failing here is a programming error).
    public static let builtin: Catalog = try! load(userFiles: [])

    static func decode(_ data: Data, origin: String) throws -> CatalogFile {
        do {
            return try JSONDecoder().decode(CatalogFile.self, from: data)
        } catch let DecodingError.dataCorrupted(context) where context.codingPath.isEmpty {
            throw CatalogError(description: "\(origin): not valid JSON (\(context.debugDescription)). Fix the file; `locaudit catalog show` prints a valid example.")
        } catch let DecodingError.dataCorrupted(context) {
            throw CatalogError(description: "\(origin): wrong value at \(path(context)): \(context.debugDescription). `locaudit catalog show` lists the kinds and columns in use.")
        } catch let DecodingError.keyNotFound(key, context) {
            throw CatalogError(description: "\(origin): missing \"\(key.stringValue)\" at \(path(context)). Every pattern needs id, kind, scope and samples.")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            throw CatalogError(description: "\(origin): wrong value at \(path(context)): \(context.debugDescription)")
        }
    }

    private static func path(_ context: DecodingError.Context) -> String {
        context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }

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
        self.rank = Dictionary(patterns.enumerated().map { ($1.id, $0) }) { first, _ in first }
        self.anchored = anchored
        self.anchors = anchored.map { Array(patterns[$0].contains!.utf8) }
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
        for anchor in anchors where anchor.withUnsafeBufferPointer({
            memmem(base, message.count, $0.baseAddress, $0.count) != nil
        }) {
            return true
        }
        return false
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

    /// The same, with the message's UTF-8 bytes at hand (the ingest loop has them).
    func recognise(_ message: String, utf8: [UInt8], process: String?) -> Recognition {
        if utf8.first == UInt8(ascii: "{") {
            let msgHash = utf8.withUnsafeBufferPointer { Catalog.msgValue($0).map { fnv1a($0) } }
            let wanted = msgHash.flatMap { keysByMsg[$0] } ?? Catalog.linkKeySet
            // Starts with "{", so nil means nested beyond what any message does.
            guard let fields = MessageFields.parse(bytes: utf8, wanted: wanted, foldCase: true) else { return .malformed }
            if case .string(let msg)? = fields["msg"], let indices = byMsg[fnv1a(Array(msg.utf8))] {
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

    /// Whether a process is part of iOS (its app-side lines are its own, not an app's).
    public func isSystemProcess(_ process: String?) -> Bool {
        process.map(systemProcesses.contains) ?? false
    }

    /// Links read keys in lower case (`MessageFields` with `foldCase`).
    static func link(from fields: [String: FieldValue]) -> (String, Int64)? {
        guard let pid = Normaliser.value(fields["pid"], for: .appPid), case .integer(let p) = pid else { return nil }
        let bundle = Normaliser.value(fields["bundleid"], for: .bundleId) ?? Normaliser.value(fields["clientkey"], for: .bundleId)
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

/// A pattern with its regular expression compiled and its columns typed.
struct CompiledPattern {
    let pattern: CatalogPattern
    let regex: NSRegularExpression?
    /// The regex's named groups.
    let groups: Set<String>
    /// Column <- its sources, in order: message key paths (lower case, split once: this runs
    /// for every event) or regex group names.
    let fields: [(column: EventColumn, sources: [Source])]
    /// Key (lower case) -> accepted values.
    let when: [(String, [String])]
    let constants: [(EventColumn, ColumnValue)]
    let required: [EventColumn]

    enum Source {
        case key([String])
        case group(String)
    }

    init(_ p: CatalogPattern) throws {
        pattern = p
        if let source = p.regex {
            do { regex = try NSRegularExpression(pattern: source) } catch {
                throw CatalogError(description: "pattern \"\(p.id)\": invalid regex \(source): \(error.localizedDescription)")
            }
            let names = try NSRegularExpression(pattern: "\\(\\?<([A-Za-z][A-Za-z0-9]*)>")
            groups = Set(names.matches(in: source, range: NSRange(source.startIndex..., in: source)).compactMap {
                Range($0.range(at: 1), in: source).map { String(source[$0]) }
            })
        } else {
            regex = nil
            groups = []
        }
        func column(_ name: String) throws -> EventColumn {
            guard let c = EventColumn(rawValue: name) else {
                throw CatalogError(description: "pattern \"\(p.id)\": unknown column \"\(name)\"; columns are \(EventColumn.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return c
        }
        let isText = p.msg == nil
        let groups = self.groups
        fields = try (p.fields ?? [:]).sorted { $0.key < $1.key }.map { name, spec in
            (try column(name), try spec.split(separator: "|").map { alternative in
                let name = String(alternative)
                if isText || groups.contains(name) { return Source.group(name) }
                let parts = name.lowercased().split(separator: ".").map(String.init)
                guard parts.count <= MessageFields.maxDepth else {
                    throw CatalogError(description: "pattern \"\(p.id)\": the key path of \"\(name)\" has \(parts.count) levels; no message nests deeper than \(MessageFields.maxDepth)")
                }
                return Source.key(parts)
            })
        }
        when = (p.when ?? [:]).sorted { $0.key < $1.key }.map { ($0.key.lowercased(), $0.value) }
        required = try (p.require ?? []).map(column)
        constants = try (p.set ?? [:]).sorted { $0.key < $1.key }.compactMap { name, raw in
            let c = try column(name)
            return Normaliser.value(.string(raw), for: c).map { (c, $0) }
        }
    }

    /// The message key paths the pattern reads.
    var paths: [[String]] {
        fields.flatMap { $0.sources.compactMap { if case .key(let path) = $0 { return path } else { return nil } } }
    }

    /// The event, or `incomplete` when a required column is missing.
    func complete(_ event: Event) -> Recognition {
        required.allSatisfy { event[$0] != nil } ? .event(event) : .incomplete(pattern: pattern.id)
    }

    /// Whether the pattern reads lines of this process.
    private func accepts(_ process: String?) -> Bool {
        guard let wanted = pattern.process else { return true }
        guard let process else { return false }
        return wanted.contains(process)
    }

    /// The regex's match in `text`: nil when the pattern has a regex and it does not match.
    private func match(_ text: String) -> NSTextCheckingResult?? {
        guard let regex else { return .some(nil) }
        guard let m = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) else { return nil }
        return .some(m)
    }

    private func group(_ name: String, of match: NSTextCheckingResult?, in text: String) -> FieldValue? {
        guard let match else { return nil }
        let r = match.range(withName: name)
        guard r.location != NSNotFound, let sr = Range(r, in: text) else { return nil }
        return .string(String(text[sr]))
    }

    /// The event of a JSON-like message (keys in lower case), if its `when` conditions hold.
    /// A regex, when the pattern has one, runs over the message as logged and must match.
    func event(fields values: [String: FieldValue], text: String, process: String?) -> Event? {
        guard accepts(process) else { return nil }
        for (key, accepted) in when {
            guard let v = values[key], accepted.contains(Normaliser.plain(v)) as Bool else { return nil }
        }
        guard let found = match(text) else { return nil }
        return event { source in
            switch source {
            case .key(let path): return MessageFields.lookup(path, in: values)
            case .group(let name): return group(name, of: found, in: text)
            }
        }
    }

    /// The event of a plain-text message, if it contains the anchor (and matches the regex).
    func event(text: String, process: String?) -> Event? {
        guard accepts(process), let anchor = pattern.contains, text.contains(anchor), let found = match(text) else { return nil }
        return event { source in
            if case .group(let name) = source { return group(name, of: found, in: text) }
            return nil
        }
    }

    private func event(_ read: (Source) -> FieldValue?) -> Event {
        var event = Event(kind: pattern.kind, pattern: pattern.id)
        event.scope = pattern.scope
        for (column, sources) in fields {
            for source in sources {
                if let value = Normaliser.value(read(source), for: column) {
                    event[column] = value
                    break
                }
            }
        }
        for (column, value) in constants { event[column] = value }
        return event
    }
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
func fnv1a<C: Sequence>(_ bytes: C, seed: UInt64 = 0xcbf2_9ce4_8422_2325) -> UInt64 where C.Element == UInt8 {
    var h = seed
    for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
    return h
}
