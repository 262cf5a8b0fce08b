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
        while true {
            skipSpace(b, &i)
            guard i < b.count else { return result }
            if b[i] == UInt8(ascii: "}") { i += 1; return result }
            if b[i] == UInt8(ascii: ",") { i += 1; continue }
            guard b[i] == UInt8(ascii: "\"") else { return result }
            // The key's bytes (keys carry no escapes in these messages).
            let keyStart = i + 1
            var keyEnd = keyStart
            while keyEnd < b.count, b[keyEnd] != UInt8(ascii: "\"") { keyEnd += 1 }
            guard keyEnd < b.count else { return result }
            i = keyEnd + 1
            skipSpace(b, &i)
            guard i < b.count, b[i] == UInt8(ascii: ":") else { return result }
            i += 1
            skipSpace(b, &i)
            let keyBytes = Bytes(rebasing: b[keyStart..<keyEnd])
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
