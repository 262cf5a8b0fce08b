import Foundation
import Testing
@testable import LocAuditModel
@testable import LocAuditNormalise

/// Year-less stamps (`Nov 12 12:24:58`): which year each line gets, and which dates do not exist.
@Suite struct SyslogClockTests {
    static func stamp(_ local: Int64) -> (month: Int, day: Int, seconds: Int) {
        let days = Int(local / 86_400)
        let (_, month, day) = Timestamps.civilFromDays(days)
        return (month, day, Int(local - Int64(days) * 86_400))
    }

    static func syslogStamp(_ local: Int64) -> String {
        let s = stamp(local)
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        return String(format: "%@ %2d %02d:%02d:%02d", months[s.month - 1], s.day, s.seconds / 3600, s.seconds / 60 % 60, s.seconds % 60)
    }

    @Test("one late Dec 31 line after New Year stays in the old year and moves no later line a year ahead")
    func lateLineAcrossNewYear() throws {
        let ws = try Workspace()
        let stamps = ["Dec 31 23:59:58", "Jan  1 00:00:01", "Dec 31 23:59:59", "Jan  1 00:00:02"]
        let body = stamps.enumerated().map { syslogLine($0.element, "Runner(CoreLocation)", 412, Messages.delivery(accuracy: Double($0.offset + 1))) }
            .joined(separator: "\n") + "\n"
        let report = try ws.ingest([try ws.write("late.log", body)]) { $0.parse.year = 2026 }
        #expect(try ws.rows("SELECT time FROM events ORDER BY line").map { $0["time"] as String }
                == ["2026-12-31T23:59:58.000000Z", "2027-01-01T00:00:01.000000Z", "2026-12-31T23:59:59.000000Z", "2027-01-01T00:00:02.000000Z"])
        #expect(report.files.first?.notes?["time-backwards"] == 1)
        #expect(try ws.rows("SELECT first_time, last_time FROM sources").first.map { [$0[0] as String, $0[1] as String] }
                == ["2026-12-31T23:59:58.000000Z", "2027-01-01T00:00:02.000000Z"])
    }

    @Test("a date that does not exist is a counted bad-timestamp, not a day of March")
    func nonexistentDates() throws {
        let ws = try Workspace()
        let stamps = ["Feb 28 10:00:00", "Feb 29 10:00:00", "Feb 30 10:00:00", "Apr 30 10:00:00", "Apr 31 10:00:00", "Jun 31 10:00:00", "Jul 31 10:00:00"]
        let body = stamps.map { syslogLine($0, "Runner(CoreLocation)", 412, Messages.delivery()) }.joined(separator: "\n") + "\n"
        let report = try ws.ingest([try ws.write("feb.log", body)]) { $0.parse.year = 2026 }
        let file = try #require(report.files.first)
        #expect(file.skipped == ["bad-timestamp": 4])
        #expect(file.firstSkippedLine == ["bad-timestamp": 2])
        #expect(try ws.rows("SELECT time FROM events ORDER BY line").map { $0["time"] as String }
                == ["2026-02-28T10:00:00.000000Z", "2026-04-30T10:00:00.000000Z", "2026-07-31T10:00:00.000000Z"])
        // In a leap year February has its 29th.
        let leap = try Workspace()
        let leapReport = try leap.ingest([try leap.write("leap.log", body)]) { $0.parse.year = 2028 }
        #expect(leapReport.files.first?.skipped == ["bad-timestamp": 3])
        #expect(try leap.count("SELECT count(*) FROM events WHERE time = '2028-02-29T10:00:00.000000Z'") == 1)
    }

    @Test("property: a log that runs forward, with late lines up to months behind and seconds repeated, gets back every line's year", arguments: [1, 2, 3, 4, 5, 6, 7, 8])
    func yearsOfARandomLog(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        // Local wall times, seconds since 1970 as if UTC: from 2019 to 2031.
        let start = Int64.random(in: 1_546_300_800...1_893_456_000, using: &random)
        var latest = start
        var clock = SyslogClock(firstLineYear: Timestamps.civilFromDays(Int(start / 86_400)).0, fileDate: nil, zone: nil)
        let first = SyslogClockTests.stamp(start)
        #expect(clock.place(month: first.month, day: first.day, seconds: first.seconds)?.local == start, "seed \(seed): the first line")
        for i in 0..<3000 {
            let truth: Int64
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<70: truth = latest + Int64.random(in: 0...120, using: &random)                  // the next lines
            case 70..<85: truth = latest + Int64.random(in: 0...(20 * 86_400), using: &random)       // a quiet spell
            case 85..<90: truth = latest + Int64.random(in: 0...(170 * 86_400), using: &random)      // months without a line
            case 90..<97: truth = latest - Int64.random(in: 0...3600, using: &random)               // a line logged late
            default: truth = latest - Int64.random(in: 0...(150 * 86_400), using: &random)            // a line months late
            }
            let s = SyslogClockTests.stamp(truth)
            let placed = clock.place(month: s.month, day: s.day, seconds: s.seconds)
            #expect(placed?.local == truth, "seed \(seed), line \(i): \(SyslogClockTests.syslogStamp(truth)) after \(SyslogClockTests.syslogStamp(latest))")
            #expect(placed?.backwards == (truth < latest), "seed \(seed), line \(i)")
            if placed?.local != truth { return }
            // A busy log repeats a second: the same stamp again, right after, is placed the
            // same (the clock answers a repeat without placing it anew).
            for _ in 0..<Int.random(in: 0...2, using: &random) {
                let again = clock.place(month: s.month, day: s.day, seconds: s.seconds)
                #expect(again?.local == placed?.local && again?.backwards == placed?.backwards, "seed \(seed), line \(i) repeated")
            }
            latest = max(latest, truth)
        }
    }

    @Test("property: every day of every month of 400 years exists or not as the calendar says")
    func existingDates() {
        for year in 2000..<2400 {
            var clock = SyslogClock(firstLineYear: year, fileDate: nil, zone: nil)
            _ = clock.place(month: 1, day: 1, seconds: 0)
            for month in 1...12 {
                for day in 1...31 {
                    var components = DateComponents()
                    (components.year, components.month, components.day) = (year, month, day)
                    let exists = components.isValidDate(in: Calendar(identifier: .gregorian))
                    var probe = clock
                    #expect((probe.place(month: month, day: day, seconds: 0) != nil) == exists, "\(year)-\(month)-\(day)")
                }
            }
        }
    }

    @Test("every month's three letters read as that month, and a near miss as no stamp")
    func monthNames() {
        let names = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        for (index, name) in names.enumerated() {
            for spelling in [name, name.lowercased(), name.uppercased(), String(name.dropLast()) + "x"] {
                let text = Array("\(spelling)  9 07:08:09 host".utf8)
                let stamp = text.withUnsafeBufferPointer { Timestamps.parseSyslogStamp($0.baseAddress!, $0.count) }
                if spelling == name {
                    #expect(stamp?.month == index + 1 && stamp?.day == 9 && stamp?.seconds == 7 * 3600 + 8 * 60 + 9, "\(spelling)")
                } else {
                    #expect(stamp == nil, "\(spelling)")
                }
            }
        }
        for bad in ["Jan  9 7:08:09 host", "Jan  9 07:0x:09 host", "Jan  9 24:00:00 host", "Jan 32 07:08:09 host", "Feb 30 07:08:09 host"] {
            #expect(Array(bad.utf8).withUnsafeBufferPointer { Timestamps.parseSyslogStamp($0.baseAddress!, $0.count) } == nil, "\(bad)")
        }
    }
}
