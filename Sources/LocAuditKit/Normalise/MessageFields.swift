/// A value read from a JSON-like CoreLocation message.
public indirect enum FieldValue: Equatable, Sendable {
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

/// Reads the keys of CoreLocation's `{"msg":"...", "key":value, ...}` messages.
///
/// These are not always valid JSON (`<private>` stands unquoted, `<mask.hash: '…'>`
/// appears, messages may be cut short), so this reader is tolerant: it takes every
/// key it can read and stops quietly at the first thing it cannot.
public enum MessageFields {
    /// The top-level keys of a JSON-like message, or nil if it does not start with `{`.
    public static func parse(_ text: String) -> [String: FieldValue]? {
        parse(bytes: Array(text.utf8))
    }

    /// The top-level keys of a JSON-like message given as UTF-8 bytes.
    static func parse(bytes input: [UInt8]) -> [String: FieldValue]? {
        var bytes = input
        bytes.append(0)
        var i = 0
        skipSpace(bytes, &i)
        guard i < bytes.count, bytes[i] == UInt8(ascii: "{") else { return nil }
        return readObject(bytes, &i)
    }

    /// Looks up a dotted key path (`location.horizontalAccuracy`).
    public static func lookup(_ path: String, in fields: [String: FieldValue]) -> FieldValue? {
        lookup(path.split(separator: ".").map(String.init), in: fields)
    }

    /// Looks up a key path given as its components.
    static func lookup(_ parts: [String], in fields: [String: FieldValue]) -> FieldValue? {
        var current: [String: FieldValue] = fields
        for (n, part) in parts.enumerated() {
            guard let value = current[part] else { return nil }
            if n == parts.count - 1 { return value }
            guard case .object(let inner) = value else { return nil }
            current = inner
        }
        return nil
    }

    private static func skipSpace(_ b: [UInt8], _ i: inout Int) {
        while i < b.count, b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0a || b[i] == 0x0d { i += 1 }
    }

    private static func readObject(_ b: [UInt8], _ i: inout Int) -> [String: FieldValue] {
        var result: [String: FieldValue] = [:]
        i += 1 // {
        while true {
            skipSpace(b, &i)
            guard i < b.count, b[i] != 0 else { return result }
            if b[i] == UInt8(ascii: "}") { i += 1; return result }
            if b[i] == UInt8(ascii: ",") { i += 1; continue }
            guard b[i] == UInt8(ascii: "\"") else { return result }
            guard let key = readString(b, &i) else { return result }
            skipSpace(b, &i)
            guard i < b.count, b[i] == UInt8(ascii: ":") else { return result }
            i += 1
            skipSpace(b, &i)
            guard let value = readValue(b, &i) else { return result }
            result[key] = value
        }
    }

    private static func readValue(_ b: [UInt8], _ i: inout Int) -> FieldValue? {
        guard i < b.count else { return nil }
        switch b[i] {
        case UInt8(ascii: "\""):
            return readString(b, &i).map(FieldValue.string)
        case UInt8(ascii: "{"):
            return .object(readObject(b, &i))
        case UInt8(ascii: "["):
            // Arrays are not needed by any pattern: keep them as written.
            let start = i
            var depth = 0
            var inString = false
            while i < b.count, b[i] != 0 {
                let c = b[i]
                if inString {
                    if c == UInt8(ascii: "\\") { i += 1 } else if c == UInt8(ascii: "\"") { inString = false }
                } else if c == UInt8(ascii: "\"") { inString = true }
                else if c == UInt8(ascii: "[") { depth += 1 }
                else if c == UInt8(ascii: "]") { depth -= 1; if depth == 0 { i += 1; break } }
                i += 1
            }
            return .bare(String(decoding: b[start..<min(i, b.count - 1)], as: UTF8.self))
        case UInt8(ascii: "<"):
            // <private> or <mask.hash: '...'>: read to the matching '>'.
            let start = i
            while i < b.count, b[i] != 0, b[i] != UInt8(ascii: ">") { i += 1 }
            let inner = String(decoding: b[(start + 1)..<i], as: UTF8.self)
            if i < b.count, b[i] == UInt8(ascii: ">") { i += 1 }
            if inner == "private" { return .redacted }
            if inner.hasPrefix("mask.hash:") {
                let hash = inner.dropFirst("mask.hash:".count).trimmingCharacters(in: " '")
                return .masked(hash)
            }
            return .bare("<" + inner + ">")
        default:
            let start = i
            while i < b.count, b[i] != 0, b[i] != UInt8(ascii: ","), b[i] != UInt8(ascii: "}") { i += 1 }
            var end = i
            while end > start, b[end - 1] == 0x20 { end -= 1 }
            let token = String(decoding: b[start..<end], as: UTF8.self)
            switch token {
            case "true": return .bool(true)
            case "false": return .bool(false)
            case "null": return .null
            default:
                if let d = Double(token) { return .number(d) }
                return .bare(token)
            }
        }
    }

    private static func readString(_ b: [UInt8], _ i: inout Int) -> String? {
        i += 1 // opening quote
        // Fast path: no escape before the closing quote, one String straight from the bytes.
        var j = i
        while j < b.count, b[j] != UInt8(ascii: "\""), b[j] != UInt8(ascii: "\\"), b[j] != 0 { j += 1 }
        if j < b.count, b[j] == UInt8(ascii: "\"") {
            let s = b.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[i..<j]), as: UTF8.self) }
            i = j + 1
            return s
        }
        var out: [UInt8] = []
        while i < b.count, b[i] != 0 {
            let c = b[i]
            if c == UInt8(ascii: "\"") { i += 1; return String(decoding: out, as: UTF8.self) }
            if c == UInt8(ascii: "\\"), i + 1 < b.count {
                i += 1
                switch b[i] {
                case UInt8(ascii: "n"): out.append(0x0a)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "r"): out.append(0x0d)
                case UInt8(ascii: "u"):
                    if i + 4 < b.count, let code = UInt32(String(decoding: b[(i + 1)...(i + 4)], as: UTF8.self), radix: 16),
                       let scalar = Unicode.Scalar(code) {
                        out.append(contentsOf: Array(String(Character(scalar)).utf8))
                        i += 4
                    }
                default: out.append(b[i])
                }
                i += 1
                continue
            }
            out.append(c)
            i += 1
        }
        return nil // unterminated
    }
}

private extension String {
    func trimmingCharacters(in set: String) -> String {
        let chars = Set(set)
        var s = Substring(self)
        while let f = s.first, chars.contains(f) { s = s.dropFirst() }
        while let l = s.last, chars.contains(l) { s = s.dropLast() }
        return String(s)
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
