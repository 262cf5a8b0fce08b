/// A value read from a JSON-like CoreLocation message.
///
/// Not `indirect`: that boxed every value on the heap (a `malloc` and a `free` for each key
/// read from every candidate message); an object's fields are a dictionary, already a reference.
public enum FieldValue: Equatable, Sendable {
    case string(String)
    case number(Double)
    case bool(Bool)
    /// `<private>`: the value was redacted by the unified log.
    case redacted
    /// `<mask.hash: '...'>`: the value was replaced by a hash.
    case masked(String)
    case object([String: FieldValue])
    case null
    /// Anything else, kept as written.
    case bare(String)
}

/// The keys worth reading in a message (by FNV-1a hash of the key), to any depth.
/// Reading only these keeps the ingest loop from building strings nobody looks at.
struct KeySet: Sendable {
    /// By hash, in a short array: a handful of keys, where a compare each beats hashing
    /// the hash for a dictionary (every key of every candidate message is looked up here).
    private(set) var children: [(key: UInt64, set: KeySet)] = []
    /// Read everything below (a path ended here and goes no deeper).
    private(set) var all = false

    init(paths: [[String]]) {
        for path in paths { insert(path[...]) }
    }

    private init() {}

    private mutating func insert(_ path: ArraySlice<String>) {
        guard let first = path.first else { return }
        let key = fnv1a(first.utf8)
        let at = children.firstIndex { $0.key == key }
        var child = at.map { children[$0].set } ?? KeySet()
        if path.count == 1 {
            if child.children.isEmpty { child.all = true }
        } else {
            child.all = false
            child.insert(path.dropFirst())
        }
        if let at { children[at].set = child } else { children.append((key, child)) }
    }

    /// How many keys are read at this level (a dictionary of them needs no more room).
    var count: Int { children.count }

    /// The set below `key`; with `foldCase`, `key` is compared in lower case (the paths were inserted so).
    func child(_ key: UnsafeBufferPointer<UInt8>, foldCase: Bool) -> KeySet? {
        let hash = foldCase ? fnv1aLowercased(key) : fnv1a(key)
        for c in children where c.key == hash { return c.set }
        return nil
    }
}

/// The keys a group of patterns reads (those of one `msg`), numbered: each key of each path
/// a slot in one flat array, its value read straight into it (`MessageFields.read`).
///
/// The ingest read every candidate's wanted keys into a `[String: FieldValue]`, and one
/// more for each nested object on the way to a key: a table allocated and freed, each key
/// made a string and hashed to insert it, hashed again for each column a pattern looks up.
/// By slots, a key read is a compare of its bytes with the few wanted at its level.
///
/// It reads what the dictionary read and gives what its lookups gave: the same keys read
/// or skipped (a key is wanted when its bytes, ASCII letters in lower case, are a wanted
/// key's), the last of a repeated key kept, the keys below a nested object cleared when its
/// key comes again (and read again when that is an object). A key with keys wanted below it
/// holds its value when that is no object, and an empty object when it is: a path that ends
/// there (`location`, whether a delivery's location is private) is given the object the
/// dictionary held, its wanted keys (`object(_:in:)`). Where a set of keys could make it
/// differ it is not made (`init` gives nil): two wanted keys of one hash at one level, a
/// key not in lower-case ASCII. A key of a wanted key's hash but not its bytes (the
/// dictionary read it, under its own name) makes `read` answer `.differs`, and the caller
/// reads that message the other way.
struct SlotKeys: Sendable {
    struct Node: Sendable {
        /// The key as wanted (lower case), and its FNV-1a hash.
        var key: [UInt8]
        var hash: UInt64
        var slot: Int
        /// The slots of the keys below it: `slot + 1 ..< end`.
        var end: Int
        /// Empty: the key's value is read whole. Else its slot holds an empty object when its
        /// value is one (its keys are below), the value when it is not.
        var children: [Node]
    }

    let top: [Node]
    /// How many slots.
    let count: Int
    /// The slots of the keys a link reads (`Catalog.linkKeys`, part of every set).
    let msg: Int, pid: Int, bundleId: Int, clientKey: Int

    private struct Draft {
        var key: String
        var endsHere = false
        var children: [Draft] = []
    }

    init?(paths: [[String]]) {
        var drafts: [Draft] = []
        for path in paths {
            // Paths are at most `maxDepth` keys (`CompiledPattern`): the depth of the recursion below.
            guard !path.isEmpty, path.count <= MessageFields.maxDepth else { return nil }
            for part in path where !part.utf8.allSatisfy({ $0 < 0x80 && !($0 >= 65 && $0 <= 90) }) { return nil }
            SlotKeys.insert(path[...], into: &drafts)
        }
        var next = 0
        var valid = true
        let nodes = SlotKeys.number(drafts, next: &next, valid: &valid)
        guard valid else { return nil }
        func slot(_ key: String) -> Int? { SlotKeys.slot(of: [key], in: nodes) }
        guard let msg = slot("msg"), let pid = slot("pid"), let bundleId = slot("bundleid"), let clientKey = slot("clientkey") else { return nil }
        (top, count) = (nodes, next)
        (self.msg, self.pid, self.bundleId, self.clientKey) = (msg, pid, bundleId, clientKey)
    }

    private static func insert(_ path: ArraySlice<String>, into level: inout [Draft]) {
        guard let first = path.first else { return }
        let at: Int
        if let found = level.firstIndex(where: { $0.key == first }) { at = found } else {
            level.append(Draft(key: first))
            at = level.count - 1
        }
        if path.count == 1 { level[at].endsHere = true } else { insert(path.dropFirst(), into: &level[at].children) }
    }

    /// Slots in pre-order, so that a key's descendants are one range.
    private static func number(_ level: [Draft], next: inout Int, valid: inout Bool) -> [Node] {
        let hashes = level.map { fnv1a(Array($0.key.utf8)) }
        if Set(hashes).count != hashes.count { valid = false }
        var nodes: [Node] = []
        for (n, draft) in level.enumerated() {
            let slot = next
            next += 1
            let children = number(draft.children, next: &next, valid: &valid)
            nodes.append(Node(key: Array(draft.key.utf8), hash: hashes[n], slot: slot, end: next, children: children))
        }
        return nodes
    }

    /// The slot of a key path (keys in lower case), nil when it is not in the set.
    func slot(of path: [String]) -> Int? { node(of: path)?.slot }

    /// The key at the end of a path, nil when it is not in the set.
    func node(of path: [String]) -> Node? { SlotKeys.node(of: path, in: top) }

    private static func slot(of path: [String], in top: [Node]) -> Int? { node(of: path, in: top)?.slot }

    private static func node(of path: [String], in top: [Node]) -> Node? {
        var level = top
        var found: Node?
        for part in path {
            guard let node = level.first(where: { $0.key == Array(part.utf8) }) else { return nil }
            found = node
            level = node.children
        }
        return found
    }

    /// The value of a key with keys below it, as the dictionary held it: the object of its
    /// wanted keys read (each key below with keys of its own, the same way), or the value
    /// that was no object. The recursion goes one level a key of the path: at most `maxDepth`.
    static func value(of node: Node, in slots: [FieldValue?]) -> FieldValue? {
        guard !node.children.isEmpty, case .object? = slots[node.slot] else { return slots[node.slot] }
        var object: [String: FieldValue] = [:]
        for child in node.children {
            guard let value = value(of: child, in: slots) else { continue }
            object[String(decoding: child.key, as: UTF8.self)] = value
        }
        return .object(object)
    }
}

/// What `MessageFields.read` found.
enum SlotRead {
    /// The values by slot (nil: the key is not in the message, or a value not read whole).
    case fields([FieldValue?])
    /// Nested deeper than `MessageFields.maxDepth`: what `parse` answers with nil.
    case malformed
    /// A key has a wanted key's hash but not its bytes: read the message the other way.
    case differs
}

/// Reads the keys of CoreLocation's `{"msg":"...", "key":value, ...}` messages.
///
/// These are not always valid JSON (`<private>` stands unquoted, `<mask.hash: '…'>`
/// appears, messages may be cut short), so this reader is tolerant: it takes every
/// key it can read and stops quietly at the first thing it cannot. Only nesting deeper
/// than `maxDepth` makes it give up on the whole message.
public enum MessageFields {
    /// The deepest nesting of objects and arrays read: CoreLocation's messages and the
    /// records of `log show` nest three or four levels. A deeper one is no such message
    /// (and reading it could exhaust the stack), so it is not read at all.
    public static let maxDepth = 64

    /// The top-level keys of a JSON-like message, or nil if it does not start with `{`
    /// or nests deeper than `maxDepth`.
    public static func parse(_ text: String) -> [String: FieldValue]? {
        parse(bytes: Array(text.utf8))
    }

    /// The keys of a message given as UTF-8 bytes; with `wanted`, only those keys. With
    /// `foldCase`, keys are read in lower case (ASCII), at every depth: Apple spells one key
    /// `client`, `Client` or `bundleID`, `bundleId` from one release to the next.
    static func parse(bytes: [UInt8], wanted: KeySet? = nil, foldCase: Bool = false) -> [String: FieldValue]? {
        bytes.withUnsafeBufferPointer { b in
            var i = 0
            skipSpace(b, &i)
            guard i < b.count, b[i] == UInt8(ascii: "{") else { return nil }
            var tooDeep = false
            let fields = readObject(b, &i, wanted: wanted, fold: foldCase, depth: 1, tooDeep: &tooDeep)
            return tooDeep ? nil : fields
        }
    }

    /// The wanted keys of a message (which starts with `{`) into their slots, as `parse`
    /// with `foldCase` reads them and `lookup` finds them (`SlotKeys`).
    static func read(_ b: UnsafeBufferPointer<UInt8>, keys: SlotKeys) -> SlotRead {
        var i = 0
        skipSpace(b, &i)
        guard i < b.count, b[i] == UInt8(ascii: "{") else { return .malformed }
        var slots = [FieldValue?](repeating: nil, count: keys.count)
        var tooDeep = false
        guard readSlots(b, &i, level: keys.top, into: &slots, depth: 1, tooDeep: &tooDeep) else { return .differs }
        return tooDeep ? .malformed : .fields(slots)
    }

    /// The wanted key of `level` that `key` is (ASCII letters compared in lower case), and
    /// whether it has a wanted key's hash without being that key.
    private static func match(_ key: Bytes, _ level: [SlotKeys.Node]) -> (index: Int?, differs: Bool) {
        let hash = fnv1aLowercased(key)
        for n in level.indices where level[n].hash == hash {
            let wanted = level[n].key
            guard wanted.count == key.count else { return (nil, true) }
            for j in 0..<key.count {
                let c = key[j]
                if (c >= 65 && c <= 90 ? c + 32 : c) != wanted[j] { return (nil, true) }
            }
            return (n, false)
        }
        return (nil, false)
    }

    /// `readObject` with `foldCase`, into slots (`i` at the object's `{`, `depth` counting
    /// it); false when a key differs (see `match`).
    private static func readSlots(_ b: Bytes, _ i: inout Int, level: [SlotKeys.Node], into slots: inout [FieldValue?],
                                  depth: Int, tooDeep: inout Bool) -> Bool {
        i += 1 // {
        while let key = nextKey(b, &i) {
            let (found, differs) = match(Bytes(rebasing: b[key]), level)
            if differs { return false }
            guard let n = found else {
                guard skipValue(b, &i, depth: depth, tooDeep: &tooDeep) else { return true }
                continue
            }
            let slot = level[n].slot, end = level[n].end
            if level[n].children.isEmpty {
                guard let value = readValue(b, &i, wanted: nil, fold: true, depth: depth, tooDeep: &tooDeep) else { return true }
                slots[slot] = value
            } else if i < b.count, b[i] == UInt8(ascii: "{") {
                // The object the dictionary held under this key, read again when repeated.
                guard depth < maxDepth else { tooDeep = true; return true }
                slots[slot] = .object([:])
                for s in (slot + 1)..<end { slots[s] = nil }
                guard readSlots(b, &i, level: level[n].children, into: &slots, depth: depth + 1, tooDeep: &tooDeep) else { return false }
                if tooDeep { return true }
            } else {
                // No object: nothing below it (a value cut short leaves what was there, as it did).
                guard let value = readValue(b, &i, wanted: nil, fold: true, depth: depth, tooDeep: &tooDeep) else { return true }
                slots[slot] = value
                for s in (slot + 1)..<end { slots[s] = nil }
            }
        }
        return true
    }

    /// Moves `i` (inside an object) over separators to the next key and past its `:`: the
    /// key's bytes (keys carry no escapes in these messages); nil at the object's `}` (`i`
    /// past it), at the end of the bytes, or where no key follows.
    private static func nextKey(_ b: Bytes, _ i: inout Int) -> Range<Int>? {
        while true {
            skipSpace(b, &i)
            guard i < b.count else { return nil }
            if b[i] == UInt8(ascii: "}") { i += 1; return nil }
            if b[i] == UInt8(ascii: ",") { i += 1; continue }
            guard b[i] == UInt8(ascii: "\"") else { return nil }
            let keyStart = i + 1
            var keyEnd = keyStart
            while keyEnd < b.count, b[keyEnd] != UInt8(ascii: "\"") { keyEnd += 1 }
            guard keyEnd < b.count else { return nil }
            i = keyEnd + 1
            skipSpace(b, &i)
            guard i < b.count, b[i] == UInt8(ascii: ":") else { return nil }
            i += 1
            skipSpace(b, &i)
            return keyStart..<keyEnd
        }
    }

    /// Looks up a dotted key path (`location.horizontalAccuracy`).
    public static func lookup(_ path: String, in fields: [String: FieldValue]) -> FieldValue? {
        lookup(path.split(separator: ".").map(String.init), in: fields)
    }

    /// Looks up a key path given as its components.
    static func lookup(_ parts: [String], in fields: [String: FieldValue]) -> FieldValue? {
        // No copy of the dictionary to walk it (a retain and release of each level, and an
        // enumeration: 870 instructions a key read from every candidate).
        guard let first = parts.first, var value = fields[first] else { return nil }
        for part in parts.dropFirst() {
            guard case .object(let inner) = value, let next = inner[part] else { return nil }
            value = next
        }
        return value
    }

    private typealias Bytes = UnsafeBufferPointer<UInt8>

    private static func skipSpace(_ b: Bytes, _ i: inout Int) {
        while i < b.count, b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0a || b[i] == 0x0d { i += 1 }
    }

    /// Reads an object (`i` at its `{`, `depth` counting it); sets `tooDeep` and stops
    /// when something inside nests deeper than `maxDepth`.
    private static func readObject(_ b: Bytes, _ i: inout Int, wanted: KeySet?, fold: Bool, depth: Int, tooDeep: inout Bool) -> [String: FieldValue] {
        // Room for every key wanted at once: growing from empty rehashed the keys read so far.
        var result: [String: FieldValue] = wanted.map { $0.all ? [:] : Dictionary(minimumCapacity: $0.count) } ?? [:]
        i += 1 // {
        while let key = nextKey(b, &i) {
            let keyBytes = Bytes(rebasing: b[key])
            var childWanted: KeySet? = nil
            if let wanted, !wanted.all {
                guard let child = wanted.child(keyBytes, foldCase: fold) else {
                    guard skipValue(b, &i, depth: depth, tooDeep: &tooDeep) else { return result }
                    continue
                }
                childWanted = child.all ? nil : child
            }
            guard let value = readValue(b, &i, wanted: childWanted, fold: fold, depth: depth, tooDeep: &tooDeep) else { return result }
            result[fold ? lowercased(keyBytes) : String(decoding: keyBytes, as: UTF8.self)] = value
        }
        return result
    }

    /// A key in lower case: an ASCII key straight from its bytes (one string, not two), any
    /// other as `String.lowercased()` does it.
    private static func lowercased(_ key: Bytes) -> String {
        guard key.allSatisfy({ $0 < 0x80 }) else { return String(decoding: key, as: UTF8.self).lowercased() }
        guard key.contains(where: { $0 >= 65 && $0 <= 90 }) else { return String(decoding: key, as: UTF8.self) }
        return String(unsafeUninitializedCapacity: key.count) { out in
            for (i, c) in key.enumerated() { out[i] = c >= 65 && c <= 90 ? c + 32 : c }
            return key.count
        }
    }

    /// Steps over a value inside a container at `depth` without reading it; false at a
    /// value cut short or nested too deep.
    private static func skipValue(_ b: Bytes, _ i: inout Int, depth outer: Int, tooDeep: inout Bool) -> Bool {
        guard i < b.count else { return false }
        switch b[i] {
        case UInt8(ascii: "\""):
            i += 1
            while i < b.count {
                if b[i] == UInt8(ascii: "\\") { i += 2; continue }
                if b[i] == UInt8(ascii: "\"") { i += 1; return true }
                i += 1
            }
            return false
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var inString = false
            while i < b.count {
                let c = b[i]
                if inString {
                    if c == UInt8(ascii: "\\") { i += 1 } else if c == UInt8(ascii: "\"") { inString = false }
                } else if c == UInt8(ascii: "\"") { inString = true }
                else if c == UInt8(ascii: "{") || c == UInt8(ascii: "[") {
                    depth += 1
                    if outer + depth > maxDepth { tooDeep = true; return false }
                }
                else if c == UInt8(ascii: "}") || c == UInt8(ascii: "]") {
                    depth -= 1
                    if depth == 0 { i += 1; return true }
                }
                i += 1
            }
            return false
        case UInt8(ascii: "<"):
            while i < b.count, b[i] != UInt8(ascii: ">") { i += 1 }
            if i < b.count { i += 1; return true }
            return false
        default:
            while i < b.count, b[i] != UInt8(ascii: ","), b[i] != UInt8(ascii: "}") { i += 1 }
            return true
        }
    }

    /// Reads the value at `i` inside a container at `depth`.
    private static func readValue(_ b: Bytes, _ i: inout Int, wanted: KeySet?, fold: Bool, depth: Int, tooDeep: inout Bool) -> FieldValue? {
        guard i < b.count else { return nil }
        switch b[i] {
        case UInt8(ascii: "\""):
            return readString(b, &i).map(FieldValue.string)
        case UInt8(ascii: "{"):
            guard depth < maxDepth else { tooDeep = true; return nil }
            let object = readObject(b, &i, wanted: wanted, fold: fold, depth: depth + 1, tooDeep: &tooDeep)
            return tooDeep ? nil : .object(object)
        case UInt8(ascii: "["):
            // Arrays are not needed by any pattern: keep them as written.
            let start = i
            guard skipValue(b, &i, depth: depth, tooDeep: &tooDeep) else { return nil }
            return .bare(String(decoding: Bytes(rebasing: b[start..<i]), as: UTF8.self))
        case UInt8(ascii: "<"):
            // <private> or <mask.hash: '...'>: read to the matching '>'.
            let start = i
            while i < b.count, b[i] != UInt8(ascii: ">") { i += 1 }
            let inner = String(decoding: Bytes(rebasing: b[(start + 1)..<i]), as: UTF8.self)
            if i < b.count { i += 1 }
            if inner == "private" { return .redacted }
            if inner.hasPrefix("mask.hash:") {
                return .masked(inner.dropFirst("mask.hash:".count).trimmingCharacters(in: " '"))
            }
            return .bare("<" + inner + ">")
        default:
            let start = i
            while i < b.count, b[i] != UInt8(ascii: ","), b[i] != UInt8(ascii: "}") { i += 1 }
            var end = i
            while end > start, b[end - 1] == 0x20 || b[end - 1] == 0x0a || b[end - 1] == 0x0d { end -= 1 }
            let token = Bytes(rebasing: b[start..<end])
            if let n = number(token) { return .number(n) }
            let text = String(decoding: token, as: UTF8.self)
            switch text {
            case "true": return .bool(true)
            case "false": return .bool(false)
            case "null": return .null
            default: return text.isEmpty ? nil : .bare(text)
            }
        }
    }

    /// Integers and short decimals without strtod (most numbers in these messages: a
    /// location's coordinates, accuracy, speed); the rest through Double(String).
    ///
    /// A decimal `-?d+.d+` of at most 15 characters after the sign has at most 14 digits:
    /// its digits read as one integer `m` < 2^53 and its fraction's length `k` <= 14, both
    /// exact as doubles (10^k is exact up to 10^22), so `m / 10^k` is one correctly rounded
    /// division: the double nearest the decimal, which is what strtod returns (the fast
    /// path of every correct strtod, Clinger's). A sign is applied after, as strtod does
    /// (`-0.0` is negative zero).
    private static func number(_ t: Bytes) -> Double? {
        guard let first = t.first, first == UInt8(ascii: "-") || (first >= 48 && first <= 57) else { return nil }
        let negative = first == UInt8(ascii: "-")
        var i = negative ? 1 : 0
        guard i < t.count, t.count - i <= 15 else { return Double(String(decoding: t, as: UTF8.self)) }
        var v: Int64 = 0
        while i < t.count, t[i] >= 48, t[i] <= 57 { v = v * 10 + Int64(t[i] - 48); i += 1 }
        if i == t.count { return Double(negative ? -v : v) }
        if i > (negative ? 1 : 0), t[i] == UInt8(ascii: "."), i + 1 < t.count {
            i += 1
            let fractionStart = i
            while i < t.count, t[i] >= 48, t[i] <= 57 { v = v * 10 + Int64(t[i] - 48); i += 1 }
            if i == t.count {
                let value = Double(v) / powersOfTen[i - fractionStart]
                return negative ? -value : value
            }
        }
        return Double(String(decoding: t, as: UTF8.self))
    }

    /// 10^0 … 10^15, each exact as a double.
    private static let powersOfTen: [Double] = (0...15).map { k in (0..<k).reduce(1.0) { acc, _ in acc * 10 } }

    private static func readString(_ b: Bytes, _ i: inout Int) -> String? {
        i += 1 // opening quote
        // Fast path: no escape before the closing quote, one String straight from the bytes.
        var j = i
        while j < b.count, b[j] != UInt8(ascii: "\""), b[j] != UInt8(ascii: "\\") { j += 1 }
        if j < b.count, b[j] == UInt8(ascii: "\"") {
            let s = String(decoding: Bytes(rebasing: b[i..<j]), as: UTF8.self)
            i = j + 1
            return s
        }
        var out: [UInt8] = Array(b[i..<j])
        i = j
        return JSONScan.unescape(b, &i, into: &out) ? String(decoding: out, as: UTF8.self) : nil
    }
}

extension Substring {
    func trimmingCharacters(in set: String) -> String {
        let chars = Set(set)
        var s = self
        while let f = s.first, chars.contains(f) { s = s.dropFirst() }
        while let l = s.last, chars.contains(l) { s = s.dropLast() }
        return String(s)
    }
}
