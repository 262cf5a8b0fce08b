/// Undoes the vis(3)-style escapes `idevicesyslog` writes: `\M-x` (high byte),
/// `\M^x` and `\^x` (control bytes), `\ooo` (octal, `\134` is a backslash) and `\\`.
enum VisDecoding {
    static func decode(_ b: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        var i = 0
        let n = b.count
        func isOctal(_ c: UInt8) -> Bool { c >= 48 && c <= 55 }
        while i < n {
            let c = b[i]
            guard c == UInt8(ascii: "\\"), i + 1 < n else { out.append(c); i += 1; continue }
            let d = b[i + 1]
            if d == UInt8(ascii: "M"), i + 3 < n, b[i + 2] == UInt8(ascii: "-") {
                out.append(b[i + 3] | 0x80); i += 4
            } else if d == UInt8(ascii: "M"), i + 3 < n, b[i + 2] == UInt8(ascii: "^") {
                let x = b[i + 3]
                out.append(x == UInt8(ascii: "?") ? 0xff : (x & 0x1f) | 0x80); i += 4
            } else if d == UInt8(ascii: "^"), i + 2 < n {
                let x = b[i + 2]
                out.append(x == UInt8(ascii: "?") ? 0x7f : x & 0x1f); i += 3
            } else if i + 3 < n, isOctal(d), isOctal(b[i + 2]), isOctal(b[i + 3]) {
                out.append((d - 48) << 6 | (b[i + 2] - 48) << 3 | (b[i + 3] - 48)); i += 4
            } else if d == UInt8(ascii: "\\") {
                out.append(d); i += 2
            } else {
                out.append(c); i += 1
            }
        }
    }
}
