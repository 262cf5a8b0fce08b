/// Bytes of a file quoted in a message: printable text stays as it is; control and
/// invisible format characters and bytes that are not UTF-8 are escaped (`\t`, `\0`,
/// `\x1b`, `\xff`, `\u{202E}`), so that quoting a file never drives the terminal that
/// shows the message (colours, cursor moves, text direction).
package enum Printable {
    /// Text from outside (a file name, a log's message) as one printable line of a terminal or
    /// a log: a newline or carriage return as ⏎, ESC as ␛, any other control character as
    /// `\u{…}`: such a text cannot forge a line or drive the terminal.
    package static func line(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return s }
        var out = ""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\n", "\r": out += "⏎"
            case "\u{1B}": out += "␛"
            default:
                if scalar.properties.generalCategory == .control { out += "\\u{\(String(scalar.value, radix: 16))}" } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }

    package static func quote(_ bytes: [UInt8]) -> String {
        var out = ""
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            // The length of the UTF-8 sequence a lead byte starts (0: not a lead byte).
            let length = b < 0x80 ? 1 : b >= 0xC2 && b <= 0xDF ? 2 : b >= 0xE0 && b <= 0xEF ? 3 : b >= 0xF0 && b <= 0xF4 ? 4 : 0
            guard length > 0, i + length <= bytes.count,
                  let text = String(validating: bytes[i..<(i + length)], as: UTF8.self), let scalar = text.unicodeScalars.first else {
                out += "\\x" + hex(b)
                i += 1
                continue
            }
            switch scalar {
            case "\0": out += "\\0"
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\\": out += "\\\\"
            default:
                switch scalar.properties.generalCategory {
                case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned:
                    out += scalar.value < 0x100 ? "\\x" + hex(UInt8(scalar.value)) : "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
                default:
                    out.unicodeScalars.append(scalar)
                }
            }
            i += length
        }
        return out
    }

    private static func hex(_ b: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(b >> 4)], digits[Int(b & 0x0f)]])
    }
}
