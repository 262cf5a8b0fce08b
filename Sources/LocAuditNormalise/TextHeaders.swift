import Foundation
import LocAuditModel

/// Where a text record's prefix ends and what it says.
struct TextHeader {
    /// UTC microseconds, or nil when the stamp has no year (resolved by `SyslogClock`).
    var timeUS: Int64?
    var offset: Int32?
    var syslogStamp: (month: Int, day: Int, seconds: Int)?
    var process: Range<Int>
    var pid: Int64?
    var device: Range<Int>?
    var messageStart: Int
    /// Microseconds after the second of `syslogStamp` (idevicesyslog 1.4 prints them).
    var micros = 0
    /// A wall-clock time without a zone (microseconds since 1970 as if UTC), read in the device's zone.
    var localUS: Int64? = nil
    /// A time of day without a date (microseconds), at `offset`: Console copies.
    var dayUS: Int64? = nil
    /// Bytes of the line between `messageStart` and the end that are not part of the message.
    var dropped: Range<Int>? = nil
}

/// How one line of a text container reads.
enum TextLine {
    case record(TextHeader)
    /// A line the container prints around records (banners, `[connected]`, repeat notices).
    case noise
    /// Not a record start: a continuation of the previous record, or garbage.
    case other
    /// Looks like a record but its timestamp cannot be read.
    case badTimestamp
    /// A record start whose prefix is damaged: a pid of more than 18 digits, no `[pid]` before `]:`.
    case malformed
}

/// The prefix parsers of the three text containers. Each looks only at fixed
/// positions and a few bytes, because it runs on every line of the file.
enum TextHeaders {
    /// `Nov 12 12:24:58 iPad locationd(CoreLocation)[64] <Notice>: message`
    /// (device name may be missing or empty).
    @inline(__always)
    static func idevicesyslog(_ b: UnsafeBufferPointer<UInt8>) -> TextLine {
        guard let p = b.baseAddress else { return .other }
        let n = b.count
        if n > 0, p[0] == UInt8(ascii: "[") || p[0] == UInt8(ascii: "-") {
            if startsWith(b, "[connected") || startsWith(b, "[disconnected") || startsWith(b, "--- last message repeated") {
                return .noise
            }
        }
        guard let stamp = Timestamps.parseSyslogStamp(p, n) else {
            // A line with the `proc[pid] <Level>:` shape but an unreadable stamp is malformed, not a continuation.
            return levelMarker(b, from: 0) != nil && n > 16 && p[3] == 0x20 ? .badTimestamp : .other
        }
        // idevicesyslog 1.4 adds microseconds: `Jul  1 09:00:32.123456`.
        var start = 16
        var micros = 0
        if n > 16, p[15] == UInt8(ascii: ".") {
            var i = 16
            var scale = 100_000
            while i < n, p[i] >= 48, p[i] <= 57 {
                micros += Int(p[i] - 48) * scale
                scale /= 10
                i += 1
            }
            guard i > 16, i < n, p[i] == 0x20 else { return .other }
            start = i + 1
        }
        // After the stamp: "[device ]process[(lib)][pid] <Level>: ".
        guard let (pidOpen, pidClose, msgStart) = levelMarker(b, from: start) else { return .other }
        var procEnd = pidOpen
        // Strip "(library)" right before "[pid]".
        if procEnd > start, p[procEnd - 1] == UInt8(ascii: ")") {
            var i = procEnd - 1
            while i > start, p[i] != UInt8(ascii: "(") { i -= 1 }
            if p[i] == UInt8(ascii: "(") { procEnd = i }
        }
        var device: Range<Int>? = nil
        var procStart = start
        if procStart < procEnd, p[procStart] == 0x20 {
            device = start..<start // empty device name (two spaces)
            procStart += 1
        } else {
            // The device name is the first word if another word follows before the process.
            var i = procStart
            while i < procEnd, p[i] != 0x20 { i += 1 }
            if i < procEnd {
                device = procStart..<i
                procStart = i + 1
            }
        }
        // The brackets hold digits only (levelMarker): no value means too many of them.
        guard let pid = Timestamps.digits(p + pidOpen + 1, pidClose - pidOpen - 1) else { return .malformed }
        return .record(TextHeader(timeUS: nil, offset: nil, syslogStamp: stamp, process: procStart..<procEnd,
                                  pid: Int64(pid), device: device, messageStart: msgStart, micros: micros))
    }

    /// Finds `[pid] <Level>: ` and returns the bracket positions and the message start.
    static func levelMarker(_ b: UnsafeBufferPointer<UInt8>, from: Int) -> (Int, Int, Int)? {
        guard let p = b.baseAddress else { return nil }
        let n = b.count
        var i = from
        while i < n {
            guard let hit = memchr(p + i, Int32(UInt8(ascii: "]")), n - i) else { return nil }
            let close = UnsafePointer<UInt8>(hit.assumingMemoryBound(to: UInt8.self)) - p
            // "] <Level>: "
            // (A "]" at `from` leaves no room for its "[".)
            if close > from, close + 3 < n, p[close + 1] == 0x20, p[close + 2] == UInt8(ascii: "<") {
                var j = close + 3
                while j < n, (p[j] >= UInt8(ascii: "A") && p[j] <= UInt8(ascii: "Z")) || (p[j] >= UInt8(ascii: "a") && p[j] <= UInt8(ascii: "z"))
                    || p[j] == UInt8(ascii: "_") { j += 1 }
                if j + 1 < n, j > close + 3, p[j] == UInt8(ascii: ">"), p[j + 1] == UInt8(ascii: ":") {
                    var open = close - 1
                    while open > from, p[open] >= 48, p[open] <= 57 { open -= 1 }
                    if p[open] == UInt8(ascii: "["), open < close - 1 {
                        let msg = j + 2 < n && p[j + 2] == 0x20 ? j + 3 : j + 2
                        return (open, close, msg)
                    }
                }
            }
            i = close + 1
        }
        return nil
    }

    /// `2022-07-22 15:25:28.004991+0200 0x47c573   Default     0x18b908   351    0    locationd: (CoreLocation) [com.apple.locationd.Core:Client] message`
    static func logShow(_ b: UnsafeBufferPointer<UInt8>) -> TextLine {
        guard let p = b.baseAddress else { return .other }
        let n = b.count
        guard let stamp = Timestamps.parseISOLike(b) else {
            return LogBanner.isBanner(b) ? .noise : .other
        }
        // thread, type, activity, pid, ttl: five whitespace-separated columns.
        var i = stamp.length
        var columns: [Range<Int>] = []
        columns.reserveCapacity(5)
        while columns.count < 5 {
            while i < n, p[i] == 0x20 || p[i] == 0x09 { i += 1 }
            let start = i
            while i < n, p[i] != 0x20, p[i] != 0x09 { i += 1 }
            guard i > start else { return .badTimestamp }
            columns.append(start..<i)
        }
        while i < n, p[i] == 0x20 || p[i] == 0x09 { i += 1 }
        let pid = Timestamps.digits(p + columns[3].lowerBound, columns[3].count).map(Int64.init)
        if pid == nil, Timestamps.isDigits(p + columns[3].lowerBound, columns[3].count) { return .malformed }
        // "process: " — the process name ends at the first ": ".
        let procStart = i
        while i + 1 < n, !(p[i] == UInt8(ascii: ":") && p[i + 1] == 0x20) { i += 1 }
        guard i + 1 < n || (i < n && p[i] == UInt8(ascii: ":")) else {
            return .record(TextHeader(timeUS: stamp.us, offset: stamp.offset, syslogStamp: nil, process: procStart..<n,
                                      pid: pid, device: nil, messageStart: n))
        }
        let procEnd = i
        let msg = skipLibraryAndSubsystem(b, from: min(i + 2, n))
        return .record(TextHeader(timeUS: stamp.us, offset: stamp.offset, syslogStamp: nil, process: procStart..<procEnd,
                                  pid: pid, device: nil, messageStart: msg))
    }

    /// `2019-08-22 18:21:26.169429+0300  localhost locationd[29104]: message`
    static func logSyslog(_ b: UnsafeBufferPointer<UInt8>) -> TextLine {
        guard let p = b.baseAddress else { return .other }
        let n = b.count
        guard let stamp = Timestamps.parseISOLike(b) else {
            return LogBanner.isBanner(b) ? .noise : .other
        }
        var i = stamp.length
        while i < n, p[i] == 0x20 || p[i] == 0x09 { i += 1 }
        let hostStart = i
        while i < n, p[i] != 0x20 { i += 1 }
        let host = hostStart..<i
        while i < n, p[i] == 0x20 { i += 1 }
        let procStart = i
        // process[(lib)][pid]: — find "]: ".
        while i + 1 < n, !(p[i] == UInt8(ascii: "]") && p[i + 1] == UInt8(ascii: ":")) { i += 1 }
        guard i + 1 < n else { return .badTimestamp }
        // The "[" of the pid, between the process's first byte and the "]".
        var open = i - 1
        while open > procStart, p[open] != UInt8(ascii: "[") { open -= 1 }
        guard open >= procStart, open < i, p[open] == UInt8(ascii: "[") else { return .malformed }
        let pid = Timestamps.digits(p + open + 1, i - open - 1).map(Int64.init)
        if pid == nil, Timestamps.isDigits(p + open + 1, i - open - 1) { return .malformed }
        var procEnd = open
        if procEnd > procStart, p[procEnd - 1] == UInt8(ascii: ")") {
            var j = procEnd - 1
            while j > procStart, p[j] != UInt8(ascii: "(") { j -= 1 }
            procEnd = j
        }
        let msg = skipLibraryAndSubsystem(b, from: min(i + 3, n))
        return .record(TextHeader(timeUS: stamp.us, offset: stamp.offset, syslogStamp: nil, process: procStart..<procEnd,
                                  pid: pid, device: host, messageStart: msg))
    }

    /// Skips `(Library) ` and `[subsystem:category] ` before a unified-log message.
    static func skipLibraryAndSubsystem(_ b: UnsafeBufferPointer<UInt8>, from: Int) -> Int {
        guard let p = b.baseAddress else { return from }
        let n = b.count
        var i = from
        if i < n, p[i] == UInt8(ascii: "(") {
            var j = i + 1
            while j < n, p[j] != UInt8(ascii: ")"), p[j] != 0x20 { j += 1 }
            if j + 1 < n, p[j] == UInt8(ascii: ")"), p[j + 1] == 0x20 { i = j + 2 }
        }
        if i < n, p[i] == UInt8(ascii: "[") {
            var j = i + 1
            var sawColon = false
            while j < n, p[j] != UInt8(ascii: "]"), p[j] != 0x20 { if p[j] == UInt8(ascii: ":") { sawColon = true }; j += 1 }
            if sawColon, j < n, p[j] == UInt8(ascii: "]") { i = j + 1 < n && p[j + 1] == 0x20 ? j + 2 : j + 1 }
        }
        return i
    }

    @inline(__always)
    static func startsWith(_ b: UnsafeBufferPointer<UInt8>, _ s: StaticString) -> Bool {
        let count = s.utf8CodeUnitCount
        guard let base = b.baseAddress, b.count >= count else { return false }
        return memcmp(base, s.utf8Start, count) == 0
    }
}
