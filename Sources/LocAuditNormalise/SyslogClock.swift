import Foundation
import LocAuditModel

/// Gives year-less syslog stamps a year and a zone.
///
/// The first line's year is `--year`, else the year of the file's date (the export is
/// written after its last line, so a first line in a later month than the file belongs to
/// the year before). Every later line takes the year that puts it nearest the latest line
/// so far, in either direction: across New Year forward, and a late `Dec 31` line after
/// `Jan  1` stays in the old year. A line behind the latest one (a backward step) never
/// moves that reference, so it cannot carry the lines after it into another year. A date
/// that does not exist in its year (Feb 30, Apr 31, Feb 29 in a common year), or a year
/// outside 1-9999, is none.
struct SyslogClock {
    private let zone: TimeZone?
    /// `--year`, or the file date's year and month (the first line's year is inferred from them).
    private let firstYear: Int
    private let fileMonth: Int?
    /// The latest line so far: local wall time (seconds since 1970 as if UTC), and its year.
    private(set) var latest: Int64?
    private var latestYear = 0
    /// The last civil day placed and its day number.
    private var lastDay: (year: Int, month: Int, day: Int, days: Int) = (0, 0, 0, 0)
    /// The last stamp placed and what `place` gave for it: a busy log repeats a second for
    /// dozens of lines, and placing a stamp again gives the same answer (see `place`).
    private var lastPlaced: (month: Int, day: Int, seconds: Int, local: Int64, backwards: Bool)?

    init(firstLineYear: Int?, fileDate: Date?, zone: TimeZone?) {
        self.zone = zone
        // Held just outside the valid years at most, so that rolling it never overflows.
        func clamped(_ y: Int) -> Int { min(max(y, Timestamps.validYears.lowerBound - 1), Timestamps.validYears.upperBound + 1) }
        if let y = firstLineYear {
            firstYear = clamped(y)
            fileMonth = nil
        } else {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone ?? TimeZone(identifier: "UTC")!
            let date = fileDate ?? Date()
            firstYear = clamped(calendar.component(.year, from: date))
            fileMonth = calendar.component(.month, from: date)
        }
    }

    /// The stamp's local wall time in the year nearest the latest line, and whether it is
    /// behind it; nil when the date does not exist in that year.
    ///
    /// The same stamp twice in a row is placed the same: after a line placed at or ahead of
    /// the latest, `latest` is that line's time, and the same stamp is at offset 0 from it,
    /// in the same year, not behind it; after a line behind it, nothing moved. So the answer
    /// for the stamp before is given again without the arithmetic.
    mutating func place(month: Int, day: Int, seconds: Int) -> (local: Int64, backwards: Bool)? {
        if let last = lastPlaced, last.month == month, last.day == day, last.seconds == seconds {
            return (last.local, last.backwards)
        }
        guard let placed = placeAnew(month: month, day: day, seconds: seconds) else { return nil }
        lastPlaced = (month, day, seconds, placed.local, placed.backwards)
        return placed
    }

    private mutating func placeAnew(month: Int, day: Int, seconds: Int) -> (local: Int64, backwards: Bool)? {
        // The day of the line before, most often this line's too.
        func local(_ year: Int) -> Int64 {
            if lastDay.year != year || lastDay.month != month || lastDay.day != day {
                lastDay = (year, month, day, Timestamps.daysFromCivil(year, month, day))
            }
            return Int64(lastDay.days) * 86_400 + Int64(seconds)
        }
        var year: Int
        if let latest {
            year = latestYear
            let halfYear: Int64 = 183 * 86_400
            let offset = local(year) - latest
            if offset > halfYear { year -= 1 } else if offset < -halfYear { year += 1 }
        } else {
            year = firstYear
            if let fileMonth, month > fileMonth { year -= 1 }
        }
        guard Timestamps.validYears.contains(year), day <= Timestamps.daysInMonth(month, year: year) else { return nil }
        let placed = local(year)
        let backwards = latest.map { placed < $0 } ?? false
        if !backwards {
            latest = placed
            latestYear = year
        }
        return (placed, backwards)
    }

    /// UTC microseconds and offset of a local wall time (from `place`).
    func utc(local: Int64) -> (us: Int64, offset: Int32) {
        guard let zone else { return (local * 1_000_000, 0) }
        // Local wall time -> UTC: the offset at the guessed instant, corrected once (DST edges).
        var offset = Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(local))))
        offset = Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(local - offset))))
        return ((local - offset) * 1_000_000, Int32(offset))
    }
}
