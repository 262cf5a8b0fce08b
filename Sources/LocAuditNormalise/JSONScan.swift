import LocAuditRead

/// Byte-level JSON string reading for the per-line hot path (no allocation but the output).
enum JSONScan {
    /// Unescapes the string value of `key` (first occurrence) into `out`; false if absent.
    static func string(key: [UInt8], in b: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) -> Bool {
        guard let base = b.baseAddress,
              let hit = key.withUnsafeBufferPointer({ memmem(base, b.count, $0.baseAddress, $0.count) }) else { return false }
        var i = UnsafePointer<UInt8>(hit.assumingMemoryBound(to: UInt8.self)) - base + key.count
        while i < b.count, b[i] == 0x20 { i += 1 }
        guard i < b.count, b[i] == UInt8(ascii: ":") else { return false }
        i += 1
        while i < b.count, b[i] == 0x20 { i += 1 }
        guard i < b.count, b[i] == UInt8(ascii: "\"") else { return false }
        i += 1
        out.removeAll(keepingCapacity: true)
        _ = unescape(b, &i, into: &out)
        return true // unterminated: take what there is
    }

    /// Appends the string starting at `i` (after its opening quote) to `out`, decoding
    /// escapes (`\n`, `\uXXXX` with surrogate pairs, ...); leaves `i` after the closing
    /// quote. False when the string is cut short.
    static func unescape(_ b: UnsafeBufferPointer<UInt8>, _ i: inout Int, into out: inout [UInt8]) -> Bool {
        while i < b.count {
            let c = b[i]
            if c == UInt8(ascii: "\"") { i += 1; return true }
            guard c == UInt8(ascii: "\\"), i + 1 < b.count else { out.append(c); i += 1; continue }
            i += 1
            switch b[i] {
            case UInt8(ascii: "n"): out.append(0x0a)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "r"): out.append(0x0d)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0c)
            case UInt8(ascii: "u"):
                if i + 4 < b.count, let code = hex4(b, i + 1) {
                    i += 4
                    var scalar = Unicode.Scalar(code)
                    // A surrogate pair: \uD83D\uDE00.
                    if (0xD800...0xDBFF).contains(code), i + 6 < b.count, b[i + 1] == UInt8(ascii: "\\"), b[i + 2] == UInt8(ascii: "u"),
                       let low = hex4(b, i + 3), (0xDC00...0xDFFF).contains(low) {
                        scalar = Unicode.Scalar(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00))
                        i += 6
                    }
                    out.append(contentsOf: Array(String(Character(scalar ?? "\u{FFFD}")).utf8))
                }
            default: out.append(b[i])
            }
            i += 1
        }
        return false
    }

    private static func hex4(_ b: UnsafeBufferPointer<UInt8>, _ at: Int) -> UInt32? {
        UInt32(String(decoding: UnsafeBufferPointer(rebasing: b[at..<(at + 4)]), as: UTF8.self), radix: 16)
    }
}
