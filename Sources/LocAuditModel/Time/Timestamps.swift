import Foundation

/// Fast, allocation-free timestamp reading for the containers' fixed formats.
///
/// A stamp is read only if it names a real date (no `Feb 30`, no `25:00`, an offset under
/// 24 hours) within years 1 to 9999 in UTC: anything else is a bad timestamp, so that
/// no arithmetic on a time can overflow and every stored time prints as ISO 8601.
package enum Timestamps {
    /// The times a stamp may stand for: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z.
    static let validUS: ClosedRange<Int64> = Int64(daysFromCivil(1, 1, 1)) * 86_400_000_000...(Int64(daysFromCivil(10_000, 1, 1)) * 86_400_000_000 - 1)
    /// The years a year-less stamp may be given.
    package static let validYears = 1...9999

    /// Days in a month of the Gregorian calendar; February has 29 when the year is not known.
    package static func daysInMonth(_ month: Int, year: Int?) -> Int {
        switch month {
        case 2:
            guard let year else { return 29 }
            return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    package static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (m + 9) % 12
        let doy = (153 * mp + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The value of `count` decimal digits; nil when a byte is no digit, or when there are
    /// none or more than 18 (so that the value always fits, whatever the input).
    @inline(__always)
    package static func digits(_ p: UnsafePointer<UInt8>, _ count: Int) -> Int? {
        guard count > 0, count <= 18 else { return nil }
        var v = 0
        for i in 0..<count {
            let c = Int(p[i]) &- 48
            guard c >= 0 && c <= 9 else { return nil }
            v = v * 10 + c
        }
        return v
    }

    /// Whether `count` bytes are all decimal digits (at least one).
    package static func isDigits(_ p: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        count > 0 && (0..<count).allSatisfy { p[$0] >= 48 && p[$0] <= 57 }
    }

    /// `2022-07-22 15:25:28.004991+0200` (also `T` for the space, `Z`, `+02:00`, any fraction length).
    /// Returns UTC microseconds, the offset in seconds, and how many bytes were read.
    package static func parseISOLike(_ b: UnsafeBufferPointer<UInt8>) -> (us: Int64, offset: Int32, length: Int)? {
        guard b.count >= 19, let p = b.baseAddress else { return nil }
        guard p[4] == UInt8(ascii: "-"), p[7] == UInt8(ascii: "-"),
              p[10] == UInt8(ascii: " ") || p[10] == UInt8(ascii: "T"),
              p[13] == UInt8(ascii: ":"), p[16] == UInt8(ascii: ":"),
              let year = digits(p, 4), let month = digits(p + 5, 2), let day = digits(p + 8, 2),
              let hour = digits(p + 11, 2), let minute = digits(p + 14, 2), let second = digits(p + 17, 2),
              (1...12).contains(month), day >= 1, day <= daysInMonth(month, year: year), hour < 24, minute < 60, second < 61
        else { return nil }
        var i = 19
        var micros = 0
        if i < b.count, p[i] == UInt8(ascii: ".") || p[i] == UInt8(ascii: ",") {
            i += 1
            var scale = 100_000
            while i < b.count, p[i] >= 48, p[i] <= 57 {
                micros += Int(p[i] - 48) * scale
                scale /= 10
                i += 1
            }
        }
        var offset = 0
        if i < b.count, p[i] == UInt8(ascii: "Z") {
            i += 1
        } else if i < b.count, p[i] == UInt8(ascii: "+") || p[i] == UInt8(ascii: "-") {
            let sign = p[i] == UInt8(ascii: "-") ? -1 : 1
            i += 1
            guard i + 2 <= b.count, let hh = digits(p + i, 2) else { return nil }
            i += 2
            if i < b.count, p[i] == UInt8(ascii: ":") { i += 1 }
            guard i + 2 <= b.count, let mm = digits(p + i, 2), hh < 24, mm < 60 else { return nil }
            i += 2
            offset = sign * (hh * 3600 + mm * 60)
        } else {
            return nil // no zone: not one of the formats that carry one
        }
        let days = daysFromCivil(year, month, day)
        let local = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        let us = (local - Int64(offset)) * 1_000_000 + Int64(micros)
        guard validUS.contains(us) else { return nil }
        return (us, Int32(offset), i)
    }

    /// A month's three letters (`Jan` to `Dec`, as one big-endian number) -> 0 to 11: a
    /// switch over constants (the table it replaced was a lazily made global, looked up by a
    /// linear search on every line).
    @inline(__always)
    private static func monthIndex(_ key: UInt32) -> Int? {
        switch key {
        case 0x4A_61_6E: 0 // Jan
        case 0x46_65_62: 1 // Feb
        case 0x4D_61_72: 2 // Mar
        case 0x41_70_72: 3 // Apr
        case 0x4D_61_79: 4 // May
        case 0x4A_75_6E: 5 // Jun
        case 0x4A_75_6C: 6 // Jul
        case 0x41_75_67: 7 // Aug
        case 0x53_65_70: 8 // Sep
        case 0x4F_63_74: 9 // Oct
        case 0x4E_6F_76: 10 // Nov
        case 0x44_65_63: 11 // Dec
        default: nil
        }
    }

    /// Two decimal digits at `p`, or nil.
    @inline(__always)
    private static func twoDigits(_ p: UnsafePointer<UInt8>) -> Int? {
        let a = Int(p[0]) &- 48, b = Int(p[1]) &- 48
        guard a >= 0, a <= 9, b >= 0, b <= 9 else { return nil }
        return a * 10 + b
    }

    /// `Nov 12 12:24:58` (syslog, no year, no zone): month 1-12, day, seconds of the day.
    @inline(__always)
    package static func parseSyslogStamp(_ p: UnsafePointer<UInt8>, _ count: Int) -> (month: Int, day: Int, seconds: Int)? {
        guard count >= 15, p[3] == 0x20, p[6] == 0x20, p[9] == UInt8(ascii: ":"), p[12] == UInt8(ascii: ":") else { return nil }
        let key = UInt32(p[0]) << 16 | UInt32(p[1]) << 8 | UInt32(p[2])
        guard let m = monthIndex(key) else { return nil }
        let d1 = p[4] == 0x20 ? 0 : Int(p[4]) &- 48
        let d2 = Int(p[5]) &- 48
        guard d1 >= 0, d1 <= 3, d2 >= 0, d2 <= 9,
              let hour = twoDigits(p + 7), let minute = twoDigits(p + 10), let second = twoDigits(p + 13),
              hour < 24, minute < 60, second < 61 else { return nil }
        let day = d1 * 10 + d2
        guard day >= 1 && day <= daysInMonth(m + 1, year: nil) else { return nil }
        return (m + 1, day, hour * 3600 + minute * 60 + second)
    }

    /// ISO 8601 UTC text for the `time` column: `2022-07-22T13:25:28.004991Z`. Any value
    /// prints (a year outside 0-9999 with as many digits as it needs), none traps.
    package static func isoUTC(_ us: Int64) -> String {
        // Floor division without the overflow of `us - 999_999` near Int64.min.
        var seconds = us / 1_000_000, micros = Int(us % 1_000_000)
        if micros < 0 { micros += 1_000_000; seconds -= 1 }
        var days = Int(seconds / 86_400), secOfDay = Int(seconds % 86_400)
        if secOfDay < 0 { secOfDay += 86_400; days -= 1 }
        let (y, m, d) = civilFromDays(days)
        guard (0...9999).contains(y) else {
            return "\(y)-" + String(format: "%02d-%02dT%02d:%02d:%02d.%06dZ", m, d, secOfDay / 3600, secOfDay / 60 % 60, secOfDay % 60, micros)
        }
        return String(unsafeUninitializedCapacity: 27) { buf in
            func put(_ v: Int, _ width: Int, at: Int) {
                var v = v
                for k in stride(from: at + width - 1, through: at, by: -1) { buf[k] = UInt8(48 + v % 10); v /= 10 }
            }
            put(y, 4, at: 0); buf[4] = 45
            put(m, 2, at: 5); buf[7] = 45
            put(d, 2, at: 8); buf[10] = 84
            put(secOfDay / 3600, 2, at: 11); buf[13] = 58
            put(secOfDay / 60 % 60, 2, at: 14); buf[16] = 58
            put(secOfDay % 60, 2, at: 17); buf[19] = 46
            put(micros, 6, at: 20); buf[26] = 90
            return 27
        }
    }

    static func civilFromDays(_ z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }
}
