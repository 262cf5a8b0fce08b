import Foundation
import Testing
@testable import LocAuditModel
@testable import LocAuditRules

/// `--since` / `--until` are read by the parser of the logs' own stamps (`Timestamps.parseISOLike`),
/// with the forms a person types around it: a day alone, no seconds, no zone (UTC).
@Suite struct TimeParseTests {
    static func hotPath(_ text: String) -> Int64? {
        Array(text.utf8).withUnsafeBufferPointer { b in
            Timestamps.parseISOLike(b).flatMap { $0.length == b.count ? $0.us : nil }
        }
    }

    /// How `--since` read a time before it used the hot-path parser; its values are
    /// whole milliseconds, so the list compares it only on times with at most three decimals.
    static func formatter(_ text: String) -> Int64? {
        var t = text.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: " ", with: "T")
        if t.count == 10 { t += "T00:00:00" }
        if t.count == 16 { t += ":00" }
        let hasZone = t.hasSuffix("Z") || t.range(of: #"[+-]\d\d:?\d\d$"#, options: .regularExpression) != nil
        if !hasZone { t += "Z" }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        if let date = formatter.date(from: t) { return Int64(date.timeIntervalSince1970 * 1_000_000) }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: t).map { Int64($0.timeIntervalSince1970 * 1_000_000) }
    }

    /// Accepted by both parsers: the same instant from each.
    static let bothAccept = [
        "2026-11-20T10:00:00Z", "2026-11-20 10:00:00Z", "2026-11-20T10:00:00+01:00", "2026-11-20 10:00:00+01:00",
        "2026-11-20T10:00:00+0100", "2026-11-20T10:00:00-05:30", "2026-11-20T10:00:00-00:00",
        "2026-11-20T10:00:00.5Z", "2026-11-20T10:00:00.123+01:00", "2026-11-20T10:00:00.123456Z",
        "2024-02-29T23:59:59Z", "1970-01-01T00:00:00Z", "1969-12-31T23:59:59Z", "0001-01-01T00:00:00Z",
        "9999-12-31T23:59:59Z",
    ]

    /// What a person types that the logs never carry: still accepted, as the formatter read it.
    static let typed = [
        "2026-11-20", " 2026-11-20 ", "\t2026-11-20", "2026-11-20T10:00", "2026-11-20 10:00",
        "2026-11-20T10:00:00", "2026-11-20 10:00:00", "2026-11-20T10:00:00.5", "2026-11-20T10:00:00z",
        "2026-11-20T10:00:00+01", "2026-11-20T10:00:00UTC", "1970-01-01",
    ]

    @Test("every time both parsers accept is the same instant from --since and from a log line")
    func bothParsersAgree() throws {
        for text in Self.bothAccept {
            let hot = try #require(Self.hotPath(text), "\(text)")
            #expect(AuditOptions.parseTime(text) == hot, "\(text)")
        }
    }

    @Test("the forms typed on the command line are read as before (times to the millisecond)")
    func typedFormsKeepTheirMeaning() throws {
        // The formatter kept whole milliseconds, and read years before 1583 in the Julian calendar.
        for text in Self.typed + Self.bothAccept.filter({ !$0.contains(".123456") && !$0.hasPrefix("0001") }) {
            let before = try #require(Self.formatter(text), "\(text)")
            #expect(AuditOptions.parseTime(text) == before, "\(text)")
        }
    }

    @Test("a day or time that does not exist is no time, not the next one")
    func impossibleTimesAreRejected() {
        for text in ["2026-02-29", "2026-11-31", "2026-13-01", "2026-11-20T24:00:00Z",
                     "2026-11-20T10:00:00+24:00", "2026-11-20T10:00:00+01:60", "2026-11-20T10Z", "20261120", "2026-1-2",
                     "2026-11-20T10:00:00 +01:00", "2026-11-20t10:00:00", "x", ""] {
            #expect(AuditOptions.parseTime(text) == nil, "\(text)")
        }
    }
}
