/// A message as the store keeps it: a format that messages of one shape share, and the
/// numbers that vary between them (`events.message` is `printf(format, a1, …, a12)`, see
/// docs/schema.md). A location line's 330 bytes keep their ~70 bytes of numbers per event
/// and share the rest; a message without numbers is its format alone.
///
/// Pure and byte-exact (`message` gives back the input, whatever it holds): the
/// `message-template` fuzz target checks it on any bytes. No Foundation, so the fuzz build
/// compiles it with the parsers. `MessageWriter` uses the two scans on the message's own
/// bytes, without building a `String` per number.
package struct MessageTemplate: Equatable, Sendable {
    /// The most arguments a format takes (the columns `a1` … `a12` of `event_messages`;
    /// changing it is a migration).
    package static let maxArguments = 12

    /// SQLite `printf` format: the literal text with `%` doubled, `%s` for each argument.
    package var format: String
    package var arguments: [String]

    package init(_ message: String) {
        var text = message
        (format, arguments) = text.withUTF8 { bytes in
            var ranges: [Range<Int>] = []
            var format: [UInt8] = []
            MessageTemplate.arguments(of: bytes, into: &ranges)
            MessageTemplate.format(of: bytes, arguments: ranges, into: &format)
            return (String(decoding: format, as: UTF8.self), ranges.map { String(decoding: UnsafeBufferPointer(rebasing: bytes[$0]), as: UTF8.self) })
        }
    }

    /// The message again: what SQLite's `printf(format, a1, …)` gives.
    package var message: String {
        var out: [UInt8] = []
        let f = Array(format.utf8)
        var next = 0
        var i = 0
        while i < f.count {
            if f[i] == UInt8(ascii: "%"), i + 1 < f.count {
                if f[i + 1] == UInt8(ascii: "s") {
                    if next < arguments.count { out.append(contentsOf: arguments[next].utf8) }
                    next += 1
                } else {
                    out.append(f[i + 1])
                }
                i += 2
            } else {
                out.append(f[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The numbers of a message, in order: a run of hexadecimal digits holding at least one
    /// decimal digit, with the runs that `.`, `:` or `-` join to it (`48.858783`,
    /// `2026-11-20`, `10:42:01`, a UUID), a leading `0x`, and a leading `-` that follows no
    /// letter or digit. The 12th takes the rest of the message.
    package static func arguments(of b: UnsafeBufferPointer<UInt8>, into ranges: inout [Range<Int>]) {
        ranges.removeAll(keepingCapacity: true)
        var i = 0
        while i < b.count {
            // A number's first run holds a decimal digit (`0x` starts with one): the next
            // digit's run, or the sign before it, is where the next number can start.
            var d = i
            while d < b.count, !isDigit(b[d]) { d += 1 }
            guard d < b.count else { return }
            var start = d
            while start > i, isHex(b[start - 1]) { start -= 1 }
            if start > i, b[start - 1] == UInt8(ascii: "-") { start -= 1 }
            var found: Range<Int>?
            for candidate in start...d {
                if let end = token(in: b, at: candidate) { found = candidate..<end; break }
            }
            guard let token = found else { i = d + 1; continue }
            if ranges.count == maxArguments - 1 {
                ranges.append(token.lowerBound..<b.count)
                return
            }
            ranges.append(token)
            i = token.upperBound
        }
    }

    /// Appends the format of `b`, whose numbers are `arguments`, to `format`.
    package static func format(of b: UnsafeBufferPointer<UInt8>, arguments: [Range<Int>], into format: inout [UInt8]) {
        var literalStart = 0
        // The literal text in runs between `%`s (a byte at a time cost 1.2% of the ingest).
        func literal(_ end: Int) {
            var i = literalStart
            while i < end {
                var j = i
                while j < end, b[j] != UInt8(ascii: "%") { j += 1 }
                format.append(contentsOf: UnsafeBufferPointer(rebasing: b[i..<j]))
                if j < end {
                    format.append(UInt8(ascii: "%"))
                    format.append(UInt8(ascii: "%"))
                    j += 1
                }
                i = j
            }
        }
        for range in arguments {
            literal(range.lowerBound)
            format.append(UInt8(ascii: "%"))
            format.append(UInt8(ascii: "s"))
            literalStart = range.upperBound
        }
        literal(b.count)
    }

    private static func isHex(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b | 0x20 >= 0x61 && b | 0x20 <= 0x66)
    }
    private static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
    private static func isAlnum(_ b: UInt8) -> Bool { isDigit(b) || (b | 0x20 >= 0x61 && b | 0x20 <= 0x7A) }

    /// The end of the number that starts at `start`, or nil when none starts there. One
    /// starts only where the byte before it could not have continued one.
    static func token(in b: UnsafeBufferPointer<UInt8>, at start: Int) -> Int? {
        if start > 0, isHex(b[start - 1]) { return nil }
        var i = start
        if b[i] == UInt8(ascii: "-") {
            if start > 0, isAlnum(b[start - 1]) { return nil }
            i += 1
        }
        var digit = false
        // 0x followed by a hexadecimal digit
        if i + 2 < b.count, b[i] == UInt8(ascii: "0"), b[i + 1] | 0x20 == UInt8(ascii: "x"), isHex(b[i + 2]) {
            i += 2
            digit = true
        }
        let runStart = i
        while i < b.count, isHex(b[i]) { digit = digit || isDigit(b[i]); i += 1 }
        guard i > runStart, digit else { return nil }
        // joined runs: `.`, `:` or `-` and at least one more hexadecimal digit
        while i + 1 < b.count, b[i] == UInt8(ascii: ".") || b[i] == UInt8(ascii: ":") || b[i] == UInt8(ascii: "-"), isHex(b[i + 1]) {
            i += 1
            while i < b.count, isHex(b[i]) { i += 1 }
        }
        return i
    }
}
