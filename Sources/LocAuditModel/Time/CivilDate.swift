import Foundation

/// A day of the calendar, without a zone: `--date YYYY-MM-DD`, the day of the first line of
/// a log whose lines give only a time of day (Console copies).
public struct CivilDate: Sendable, Equatable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int

    /// `YYYY-MM-DD` naming a real day of the years 1970 to 9999; nil otherwise.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy { $0 >= "0" && $0 <= "9" } }),
              let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]) else { return nil }
        self.init(year: y, month: m, day: d)
    }

    public init?(year: Int, month: Int, day: Int) {
        guard (1970...9999).contains(year), (1...12).contains(month), day >= 1,
              day <= Timestamps.daysInMonth(month, year: year) else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// Days since 1970-01-01.
    package var days: Int { Timestamps.daysFromCivil(year, month, day) }

    public var description: String { String(format: "%04d-%02d-%02d", year, month, day) }
}
