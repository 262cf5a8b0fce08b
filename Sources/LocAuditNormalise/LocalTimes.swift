import Foundation
import LocAuditModel

/// Stamps that are a wall-clock time without a zone (pymobiledevice3, the MobileInstallation
/// log) or a time of day without a date (Console copies), read from bytes like `Timestamps`.
/// Every reader checks bounds and ranges, so no input makes the arithmetic overflow.
package enum LocalTime {
    static func daysInMonth(_ month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    @inline(__always)
    private static func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }

    /// `.ffffff` (any number of digits, the first six count) at `i`; advances `i`.
    private static func fraction(_ p: UnsafePointer<UInt8>, _ n: Int, _ i: inout Int) -> Int {
        guard i < n, p[i] == UInt8(ascii: "."), i + 1 < n, isDigit(p[i + 1]) else { return 0 }
        i += 1
        var micros = 0
        var scale = 100_000
        while i < n, isDigit(p[i]) {
            micros += Int(p[i] - 48) * scale
            scale /= 10
            i += 1
        }
        return micros
    }

    /// `HH:MM:SS` at `i`: seconds of the day, or nil.
    private static func clock(_ p: UnsafePointer<UInt8>, _ n: Int, at i: Int) -> Int? {
        guard i + 8 <= n, p[i + 2] == UInt8(ascii: ":"), p[i + 5] == UInt8(ascii: ":"),
              let h = Timestamps.digits(p + i, 2), let m = Timestamps.digits(p + i + 3, 2),
              let s = Timestamps.digits(p + i + 6, 2), h < 24, m < 60, s < 61 else { return nil }
        return h * 3600 + m * 60 + s
    }

    /// Whether the bytes at `i` have the shape `DD:DD:DD` (a clock, valid or not).
    static func looksLikeClock(_ p: UnsafePointer<UInt8>, _ n: Int, at i: Int) -> Bool {
        i + 8 <= n && p[i + 2] == UInt8(ascii: ":") && p[i + 5] == UInt8(ascii: ":")
            && isDigit(p[i]) && isDigit(p[i + 1]) && isDigit(p[i + 3]) && isDigit(p[i + 4]) && isDigit(p[i + 6]) && isDigit(p[i + 7])
    }

    /// `2026-11-20 09:00:00[.123456]` (also `T`), no zone: the wall-clock time as
    /// microseconds since 1970 read as if UTC, and the bytes read. pymobiledevice3 leaves
    /// the fraction out when it is zero.
    static func dateTime(_ p: UnsafePointer<UInt8>, _ n: Int) -> (localUS: Int64, length: Int)? {
        guard n >= 19, p[4] == UInt8(ascii: "-"), p[7] == UInt8(ascii: "-"),
              p[10] == UInt8(ascii: " ") || p[10] == UInt8(ascii: "T"),
              let year = Timestamps.digits(p, 4), let month = Timestamps.digits(p + 5, 2), let day = Timestamps.digits(p + 8, 2),
              year >= 1, (1...12).contains(month), day >= 1, day <= Timestamps.daysInMonth(month, year: year),
              let seconds = clock(p, n, at: 11) else { return nil }
        var i = 19
        let micros = fraction(p, n, &i)
        let local = Int64(Timestamps.daysFromCivil(year, month, day)) * 86_400 + Int64(seconds)
        return (local * 1_000_000 + Int64(micros), i)
    }

    /// Whether the bytes have the shape of `dateTime` (digits and separators), valid or not.
    static func looksLikeDateTime(_ p: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        n >= 19 && p[4] == UInt8(ascii: "-") && p[7] == UInt8(ascii: "-") && p[13] == UInt8(ascii: ":")
            && p[16] == UInt8(ascii: ":") && isDigit(p[0]) && isDigit(p[3]) && isDigit(p[5]) && isDigit(p[8])
    }

    /// `23:30:43.112133-0500`, `16:39:49.435439 +0200` (also `+02:00`): microseconds of the
    /// day, the offset in seconds, and the bytes read.
    static func timeOfDay(_ p: UnsafePointer<UInt8>, _ n: Int) -> (us: Int64, offset: Int32, length: Int)? {
        guard let seconds = clock(p, n, at: 0) else { return nil }
        var i = 8
        let micros = fraction(p, n, &i)
        if i < n, p[i] == 0x20 { i += 1 }
        guard i + 5 <= n, p[i] == UInt8(ascii: "+") || p[i] == UInt8(ascii: "-") else { return nil }
        let sign = p[i] == UInt8(ascii: "-") ? -1 : 1
        i += 1
        guard let hh = Timestamps.digits(p + i, 2), hh < 24 else { return nil }
        i += 2
        if i < n, p[i] == UInt8(ascii: ":") { i += 1 }
        guard i + 2 <= n, let mm = Timestamps.digits(p + i, 2), mm < 60 else { return nil }
        i += 2
        return (Int64(seconds) * 1_000_000 + Int64(micros), Int32(sign * (hh * 3600 + mm * 60)), i)
    }

    private static let months: [UInt32] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        .map { s in s.utf8.reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }

    /// `Mon Apr  7 06:13:34 2025` (the MobileInstallation log: ctime's layout, no zone): the
    /// wall-clock time as microseconds since 1970 read as if UTC, and the bytes read (24).
    /// The weekday is not checked against the date: the date is what counts.
    static func ctime(_ p: UnsafePointer<UInt8>, _ n: Int) -> (localUS: Int64, length: Int)? {
        guard n >= 24, p[3] == 0x20, p[7] == 0x20, p[10] == 0x20, p[19] == 0x20 else { return nil }
        let key = UInt32(p[4]) << 16 | UInt32(p[5]) << 8 | UInt32(p[6])
        guard let m = months.firstIndex(of: key) else { return nil }
        let d1 = p[8] == 0x20 ? 0 : Int(p[8]) &- 48
        let d2 = Int(p[9]) &- 48
        guard d1 >= 0, d1 <= 3, d2 >= 0, d2 <= 9, let year = Timestamps.digits(p + 20, 4), year >= 1,
              let seconds = clock(p, n, at: 11) else { return nil }
        let day = d1 * 10 + d2
        guard day >= 1, day <= Timestamps.daysInMonth(m + 1, year: year) else { return nil }
        let local = Int64(Timestamps.daysFromCivil(year, m + 1, day)) * 86_400 + Int64(seconds)
        return (local * 1_000_000, 24)
    }

    /// A wall-clock time in `zone` as UTC microseconds and the offset; without a zone, UTC
    /// (offset nil: the caller records that it was assumed).
    package static func utc(localUS: Int64, zone: TimeZone?) -> (us: Int64, offset: Int32?) {
        guard let zone else { return (localUS, nil) }
        let local = localUS / 1_000_000
        // The offset at the guessed instant, corrected once (DST edges), as SyslogClock does.
        var offset = Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(local))))
        offset = Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(local - offset))))
        return (localUS - offset * 1_000_000, Int32(offset))
    }
}

/// Gives Console copies' times of day their date.
///
/// The first line is on `--date` when given. Otherwise the export's date decides, as for
/// year-less stamps: a date in the file's name is the day of the first line; the file's
/// modification time is after the last line, so a first line later in the day than the
/// file's time (at the line's offset) was logged the day before. A time more than twelve
/// hours before the line above it means midnight passed: the next day.
struct DayClock {
    private var day: Int?
    private var lastUS: Int64?
    private let firstDay: CivilDate?
    private let reference: Date?

    static let halfDayUS: Int64 = 12 * 3600 * 1_000_000

    init(firstDay: CivilDate?, reference: Date?) {
        self.firstDay = firstDay
        self.reference = reference
    }

    /// UTC microseconds of a time of day (`us` of the day, at `offset`).
    mutating func utc(dayUS: Int64, offset: Int32) -> Int64 {
        let day = self.day ?? startDay(dayUS: dayUS, offset: offset)
        self.day = day
        var us = time(day: day, dayUS: dayUS, offset: offset)
        if let last = lastUS, last - us > DayClock.halfDayUS {
            self.day = day + 1
            us = time(day: day + 1, dayUS: dayUS, offset: offset)
        }
        lastUS = us
        return us
    }

    private func time(day: Int, dayUS: Int64, offset: Int32) -> Int64 {
        (Int64(day) * 86_400 - Int64(offset)) * 1_000_000 + dayUS
    }

    private func startDay(dayUS: Int64, offset: Int32) -> Int {
        if let firstDay { return firstDay.days }
        // The reference instant as a wall-clock time at the line's offset.
        let t = (reference ?? Date()).timeIntervalSince1970
        let refSeconds = (t.isFinite && abs(t) < 1e12 ? Int64(t.rounded(.down)) : 0) + Int64(offset)
        var refDay = Int(refSeconds / 86_400)
        var refOfDay = refSeconds % 86_400
        if refOfDay < 0 { refOfDay += 86_400; refDay -= 1 }
        return dayUS > refOfDay * 1_000_000 ? refDay - 1 : refDay
    }
}
