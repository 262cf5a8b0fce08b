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
    ///
    /// Written in place into room made once (at most two bytes for each byte of `b`, and
    /// `%s` for each argument), the literal runs copied whole and searched for `%` eight
    /// bytes at a time: an append a run (and its checks) cost more than the copying.
    package static func format(of b: UnsafeBufferPointer<UInt8>, arguments: [Range<Int>], into format: inout [UInt8]) {
        let start = format.count
        let room = 2 * b.count + 2 * arguments.count
        format.append(contentsOf: repeatElement(0, count: room))
        var written = 0
        format.withUnsafeMutableBufferPointer { all in
            let out = UnsafeMutableBufferPointer(rebasing: all[start...])
            var o = 0
            func put(_ byte: UInt8) {
                out[o] = byte
                o += 1
            }
            /// The literal bytes `from ..< end` of `b`, each `%` doubled.
            func literal(_ from: Int, _ end: Int) {
                var i = from
                while i < end {
                    let j = nextPercent(b, from: i, end: end)
                    if j > i {
                        UnsafeMutableRawPointer(out.baseAddress! + o).copyMemory(from: b.baseAddress! + i, byteCount: j - i)
                        o += j - i
                    }
                    guard j < end else { return }
                    put(UInt8(ascii: "%"))
                    put(UInt8(ascii: "%"))
                    i = j + 1
                }
            }
            var literalStart = 0
            for range in arguments {
                literal(literalStart, range.lowerBound)
                put(UInt8(ascii: "%"))
                put(UInt8(ascii: "s"))
                // Never back: each byte of `b` is written once at most, which the room counts on.
                literalStart = max(literalStart, range.upperBound)
            }
            literal(literalStart, b.count)
            written = o
        }
        format.removeLast(room - written)
    }

    /// The first `%` of `b` in `from ..< end`, or `end`: eight bytes at a time (a zero byte
    /// of `w ^ 0x25…` is a `%`), the last few one by one.
    private static func nextPercent(_ b: UnsafeBufferPointer<UInt8>, from: Int, end: Int) -> Int {
        precondition(from >= 0 && end <= b.count)
        guard let base = b.baseAddress else { return end }
        var i = from
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        let percent: UInt64 = 0x2525_2525_2525_2525
        while end - i >= 8 {
            let x = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self) ^ percent
            if (x &- ones) & ~x & high != 0 { break }
            i += 8
        }
        while i < end, base[i] != UInt8(ascii: "%") { i += 1 }
        return i
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
