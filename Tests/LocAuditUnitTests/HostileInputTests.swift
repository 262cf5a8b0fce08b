import Foundation
import Testing
@testable import LocAuditIngest
@testable import LocAuditModel
@testable import LocAuditNormalise

/// Hostile bytes in a log never kill the ingest: each bad line is counted and skipped
/// (or repaired and noted), and the other lines of the file are stored.
@Suite struct HostileInputTests {
    // MARK: Builders

    /// `{"a":{"a":...1...}}`, `levels` objects deep.
    static func nested(_ levels: Int) -> String {
        String(repeating: #"{"a":"#, count: levels) + "1" + String(repeating: "}", count: levels)
    }

    static func jsonString(_ s: String) -> String {
        "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// One `log show --style ndjson` record of locationd.
    static func ndjson(_ message: String, second: Int = 22, pid: String = "64", extra: String = "") -> String {
        #"{"timestamp":"2026-07-26 18:11:\#(second).348728+1200","processImagePath":"/usr/libexec/locationd","processID":\#(pid),"eventMessage":\#(jsonString(message))\#(extra)}"#
    }

    static func privacy(_ kind: String, second: Int, extra: String = "") -> String {
        #"{"accessor":{"identifier":"com.apple.mobilecal","identifierType":"bundleID"},"category":"location","identifier":"0634B0EB","kind":"\#(kind)","timeStamp":"2022-04-27T11:01:\#(second).166-04:00","type":"access"\#(extra)}"#
    }

    static let authorization = Messages.appState("ForegroundRunning", pid: 412, bundle: "com.example.runner")
    /// Another transition: the same state twice would be one event (the second a `repeat`).
    static let background = Messages.appState("BackgroundRunning", pid: 412, bundle: "com.example.runner")

    func ingestOne(_ ws: Workspace, _ name: String, _ body: String, year: Int? = 2026) throws -> FileReport {
        let report = try ws.ingest([try ws.write(name, body)]) { $0.parse.year = year }
        return try #require(report.files.first)
    }

    // MARK: Nesting

    /// A file of three records whose middle one nests 20,000 levels deep, per container.
    static let deepFiles: [(String, String)] = {
        let deep = nested(20_000)
        let good1 = ndjson(authorization, second: 22), good2 = ndjson(background, second: 24)
        let bad = ndjson(authorization, second: 23, extra: #","x":"# + deep)
        return [
            ("deep.ndjson", [good1, bad, good2].joined(separator: "\n") + "\n"),
            ("deep.json", "[\n" + [good1, bad, good2].joined(separator: ",\n") + "\n]\n"),
            ("deep-privacy.ndjson", [privacy("intervalBegin", second: 10), privacy("intervalBegin", second: 11, extra: #","x":"# + deep),
                                     privacy("intervalEnd", second: 19)].joined(separator: "\n") + "\n"),
            // In a message: under a key the catalog reads (a delivery's location).
            ("deep.log", [syslogLine("Nov 12 12:00:01", "Runner(CoreLocation)", 412, Messages.delivery()),
                          syslogLine("Nov 12 12:00:02", "Runner(CoreLocation)", 412,
                                     ##"{"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":{"latitude":"## + deep + "}}"),
                          syslogLine("Nov 12 12:00:03", "Runner(CoreLocation)", 412, Messages.delivery())].joined(separator: "\n") + "\n"),
        ]
    }()

    @Test("a record nested 20,000 levels deep is one malformed line; the others are stored", arguments: deepFiles.map(\.0))
    func deepNesting(name: String) throws {
        let ws = try Workspace()
        let body = try #require(HostileInputTests.deepFiles.first { $0.0 == name }).1
        let file = try ingestOne(ws, name, body)
        #expect(file.outcome == .ingested)
        #expect(file.events == 2)
        #expect(file.skipped?["malformed"] == 1)
        #expect(file.firstSkippedLine?["malformed"] == (name == "deep.json" ? 3 : 2))
    }

    @Test func aCatalogKeyPathTooDeepToMatchAnyMessageIsAnErrorNotACrash() throws {
        var pattern = try #require(Catalog.builtin.patterns.first { $0.msg != nil })
        pattern.id = "deep"
        pattern.fields = ["reason": Array(repeating: "a", count: 100_000).joined(separator: ".")]
        #expect(throws: CatalogError.self) { try Catalog(patterns: [pattern]) }
    }

    // MARK: Ranges in the text headers

    @Test func aSyslogStyleLineWithNothingBeforeTheBracketIsMalformed() throws {
        let ws = try Workspace()
        let body = [
            "2019-08-22 18:21:26.169429+0300  localhost Runner(CoreLocation)[29104]: " + Messages.call("startMonitoringVisits"),
            #"2019-08-22 18:21:27.169429+0300  localhost ]: {"msg":"x"}"#,
            "2019-08-22 18:21:28.169429+0300  localhost Runner(CoreLocation)[29104]: " + Messages.call("startUpdatingLocation"),
        ].joined(separator: "\n") + "\n"
        let file = try ingestOne(ws, "s.log", body)
        #expect(file.container == "log-syslog")
        #expect(file.events == 2)
        #expect(file.skipped?["malformed"] == 1)
        #expect(file.firstSkippedLine?["malformed"] == 2)
    }

    // MARK: Numbers

    static let hugePid = "99999999999999999999"
    static let hugePidFiles: [(String, String)] = [
        ("pid.log", [syslogLine("Nov 12 12:00:01", "locationd", 64, authorization),
                     "Nov 12 12:00:02 iPhone locationd[\(hugePid)] <Notice>: " + authorization,
                     syslogLine("Nov 12 12:00:03", "locationd", 64, background)].joined(separator: "\n") + "\n"),
        ("pid-show.log", (1...3).map { i in
            "2022-07-22 15:25:2\(i).004991+0200 0x47c573   Default     0x18b908   \(i == 2 ? hugePid : "351")    0    locationd: (CoreLocation) [com.apple.locationd.Core:Client] " + (i == 3 ? background : authorization)
        }.joined(separator: "\n") + "\n"),
        ("pid-syslog.log", (1...3).map { i in
            "2019-08-22 18:21:2\(i).169429+0300  localhost locationd[\(i == 2 ? hugePid : "64")]: " + (i == 3 ? background : authorization)
        }.joined(separator: "\n") + "\n"),
    ]

    @Test("a pid too large for 64 bits in a text prefix is a malformed line", arguments: hugePidFiles.map(\.0))
    func hugePidInAPrefix(name: String) throws {
        let ws = try Workspace()
        let file = try ingestOne(ws, name, try #require(HostileInputTests.hugePidFiles.first { $0.0 == name }).1)
        #expect(file.events == 2)
        #expect(file.skipped?["malformed"] == 1)
        #expect(file.firstSkippedLine?["malformed"] == 2)
        #expect(try ws.count("SELECT count(*) FROM events WHERE pid = 64 OR pid = 351") == 2)
    }

    @Test("an ndjson processID that is no 64-bit integer is dropped with a note", arguments: ["1e300", "-1e300", "99999999999999999999", "1.5"])
    func outOfRangeProcessID(value: String) throws {
        let ws = try Workspace()
        let file = try ingestOne(ws, "p.ndjson", HostileInputTests.ndjson(HostileInputTests.authorization, pid: value) + "\n")
        #expect(file.events == 1)
        #expect(file.notes?["number-out-of-range"] == 1)
        #expect(try ws.count("SELECT count(*) FROM events WHERE pid IS NULL") == 1)
    }

    @Test func nonFiniteNumbersAreStoredAsNullWithANote() throws {
        let ws = try Workspace()
        let body = [
            syslogLine("Nov 12 12:00:01", "Runner(CoreLocation)", 412,
                       ##"{"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":{"latitude":1e400, "longitude":"nan", "horizontalAccuracy":-1e999}}"##),
            syslogLine("Nov 12 12:00:02", "Runner(CoreLocation)", 412, Messages.delivery(accuracy: 7)),
        ].joined(separator: "\n") + "\n"
        let file = try ingestOne(ws, "inf.log", body)
        #expect(file.events == 2)
        #expect(file.notes?["non-finite-number"] == 1)
        let rows = try ws.rows("SELECT horizontal_accuracy, latitude, longitude FROM events ORDER BY line")
        #expect(rows.count == 2)
        #expect(rows[0]["horizontal_accuracy"] == nil as Double?)
        #expect(rows[0]["latitude"] == nil as Double?)
        #expect(rows[0]["longitude"] == nil as Double?)
        #expect(rows[1]["horizontal_accuracy"] as Double == 7)
        #expect(try ws.count("SELECT count(*) FROM events WHERE abs(horizontal_accuracy) > 1e308 OR abs(latitude) > 1e308 OR abs(longitude) > 1e308") == 0)
    }

    // MARK: Years and dates

    @Test func aYearThatRollsPast9999IsABadTimestampNotAWrongTime() throws {
        let ws = try Workspace()
        let body = [syslogLine("Dec 31 23:59:59", "Runner(CoreLocation)", 412, Messages.delivery()),
                    syslogLine("Jan  1 00:00:01", "Runner(CoreLocation)", 412, Messages.delivery())].joined(separator: "\n") + "\n"
        let file = try ingestOne(ws, "y.log", body, year: 9999)
        #expect(file.events == 1)
        #expect(file.skipped?["bad-timestamp"] == 1)
        #expect(file.firstSkippedLine?["bad-timestamp"] == 2)
        #expect(file.lastTime == "9999-12-31T23:59:59.000000Z")
    }

    @Test("a first-line year no calendar can hold gives bad timestamps, not a crash", arguments: [Int.max, Int.min, 0, 10_000])
    func absurdYear(year: Int) throws {
        let ws = try Workspace()
        let file = try ingestOne(ws, "y.log", syslogLine("Nov 12 12:00:01", "Runner(CoreLocation)", 412, Messages.delivery()) + "\n", year: year)
        #expect(file.outcome == .ingested)
        #expect(file.events == 0)
        #expect(file.skipped?["bad-timestamp"] == 1)
    }

    @Test("a date that does not exist is a bad timestamp", arguments: ["2026-02-30 10:00:00.000000+0000", "2026-04-31 10:00:00.000000+0000",
                                                                     "0000-01-01 00:00:00.000000+0000", "2026-07-26 10:00:00.000000+9999"])
    func impossibleDate(stamp: String) throws {
        let ws = try Workspace()
        let record = #"{"timestamp":"\#(stamp)","processImagePath":"/usr/libexec/locationd","processID":64,"eventMessage":\#(HostileInputTests.jsonString(HostileInputTests.authorization))}"#
        let file = try ingestOne(ws, "d.ndjson", HostileInputTests.ndjson(HostileInputTests.authorization) + "\n" + record + "\n")
        #expect(file.events == 1)
        #expect(file.skipped?["bad-timestamp"] == 1)
        #expect(file.firstSkippedLine?["bad-timestamp"] == 2)
    }

    @Test func aSyslogFeb30IsABadTimestamp() throws {
        let ws = try Workspace()
        let body = [syslogLine("Feb 28 12:00:01", "Runner(CoreLocation)", 412, Messages.delivery()),
                    syslogLine("Feb 30 12:00:02", "Runner(CoreLocation)", 412, Messages.delivery())].joined(separator: "\n") + "\n"
        let file = try ingestOne(ws, "f.log", body)
        #expect(file.events == 1)
        #expect(file.skipped?["bad-timestamp"] == 1)
    }

    /// Collects what the parser hands on.
    final class Collect: ParseSink {
        var events: [ParsedEvent] = []
        func event(_ e: ParsedEvent) throws { events.append(e) }
        func link(bundleId: String, pid: Int64, timeUS: Int64) throws {}
        func deviceNamed(_ name: String) throws {}
    }

    static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `Nov  2 12:00:01` for a UTC time in microseconds.
    static func syslogStamp(_ us: Int64) -> String {
        let iso = Timestamps.isoUTC(us) // 2026-12-31T23:59:58.000000Z
        let parts = iso.split(separator: "T")
        let date = parts[0].split(separator: "-")
        let month = monthNames[Int(date[1])! - 1]
        let day = Int(date[2])!
        return "\(month) \(day < 10 ? " " : "")\(day) \(parts[1].prefix(8))"
    }

    @Test("an out-of-order line near New Year keeps its own year and moves no other line (seeded property)", arguments: 0..<40)
    func outOfOrderLineAcrossNewYear(seed: Int) throws {
        var rng = SeededGenerator(seed: UInt64(seed) &* 7919 &+ 1)
        // Lines every 10-90 s from a moment 1 to 8 minutes before a New Year, so that they cross it.
        let year = Int.random(in: 1971...2090, using: &rng)
        let newYear = Int64(Timestamps.daysFromCivil(year + 1, 1, 1)) * 86_400_000_000
        var t = newYear - Int64.random(in: 60...480, using: &rng) * 1_000_000
        var times: [Int64] = []
        for _ in 0..<60 {
            times.append(t)
            t += Int64.random(in: 10...90, using: &rng) * 1_000_000
        }
        // One line of the old year logged late (buffered), so that it stands among the new year's.
        let firstNew = try #require(times.firstIndex { $0 >= newYear })
        let from = Int.random(in: 0..<firstNew, using: &rng)
        let to = Int.random(in: firstNew..<min(firstNew + 20, times.count), using: &rng)
        let late = times.remove(at: from)
        times.insert(late, at: to)
        let body = times.map { HostileInputTests.syslogStamp($0) }.map { syslogLine($0, "Runner(CoreLocation)", 412, Messages.delivery()) }
            .joined(separator: "\n") + "\n"
        let sink = Collect()
        let parser = RecordParser(container: .idevicesyslog, catalog: Catalog.builtin,
                                  options: ParseOptions(year: Int(Timestamps.isoUTC(times[0]).prefix(4))), sink: sink)
        try parser.consume(Array(body.utf8))
        try parser.finish(complete: true)
        #expect(sink.events.map(\.timeUS) == times, "seed \(seed): year \(year), line \(from + 1) moved to line \(to + 1)")
    }

    @Test("any valid time prints as ISO 8601 and reads back the same (seeded property)", arguments: 0..<20)
    func isoRoundTrip(seed: Int) throws {
        var rng = SeededGenerator(seed: UInt64(seed) &+ 0xC0FFEE)
        var gregorian = Calendar(identifier: .gregorian)
        gregorian.timeZone = TimeZone(identifier: "UTC")!
        for _ in 0..<500 {
            let us = Int64.random(in: Timestamps.validUS, using: &rng)
            let iso = Timestamps.isoUTC(us)
            let back = try #require(Array(iso.utf8).withUnsafeBufferPointer { Timestamps.parseISOLike($0) }, "\(iso)")
            #expect(back.us == us && back.offset == 0 && back.length == iso.utf8.count, "\(us) -> \(iso)")
            // A local time with an offset reads as Foundation's calendar says (from 1600: before 1582
            // Foundation's "Gregorian" calendar is the Julian one).
            let (y, m, d) = (Int.random(in: 1600...9999, using: &rng), Int.random(in: 1...12, using: &rng), Int.random(in: 1...28, using: &rng))
            let (h, mi, s) = (Int.random(in: 0...23, using: &rng), Int.random(in: 0...59, using: &rng), Int.random(in: 0...59, using: &rng))
            let offset = Int.random(in: -23...23, using: &rng) * 3600 + Int.random(in: 0...1, using: &rng) * 1800
            let text = String(format: "%04d-%02d-%02d %02d:%02d:%02d.250000%@%02d%02d", y, m, d, h, mi, s, offset < 0 ? "-" : "+", abs(offset) / 3600, abs(offset) % 3600 / 60)
            let date = try #require(gregorian.date(from: DateComponents(year: y, month: m, day: d, hour: h, minute: mi, second: s)))
            let expected = Int64(date.timeIntervalSince1970) * 1_000_000 - Int64(offset) * 1_000_000 + 250_000
            let parsed = Array(text.utf8).withUnsafeBufferPointer { Timestamps.parseISOLike($0) }
            if Timestamps.validUS.contains(expected) {
                #expect(parsed?.us == expected && parsed?.offset == Int32(offset), "\(text)")
            } else {
                #expect(parsed == nil, "\(text) lies outside the years 1-9999 in UTC")
            }
        }
    }

    // MARK: Sizes

    @Test func aJSONArrayObjectOver16MiBIsTooLongAndTheNextOneIsRead() throws {
        let ws = try Workspace()
        let good1 = HostileInputTests.ndjson(HostileInputTests.authorization, second: 22)
        let good2 = HostileInputTests.ndjson(HostileInputTests.background, second: 24)
        // 17 lines of 1 MiB each: every line is short enough, the object is not.
        let pad = String(repeating: "x", count: 1 << 20)
        let big = HostileInputTests.ndjson(HostileInputTests.authorization, second: 23, extra: (1...17).map { #",\#n"p\#($0)":"\#(pad)""# }.joined())
        let file = try ingestOne(ws, "big.json", "[\n" + [good1, big, good2].joined(separator: ",\n") + "\n]\n")
        #expect(file.container == "log-json")
        #expect(file.events == 2)
        #expect(file.skipped?["too-long"] == 1)
        #expect(file.firstSkippedLine?["too-long"] == 3)
        #expect(try ws.count("SELECT count(*) FROM events WHERE line = 21") == 1)
    }

    // MARK: Info.plist

    /// A binary property list (`bplist00`) of `objects`, object 0 on top, one-byte references.
    static func bplist(_ objects: [[UInt8]]) -> [UInt8] {
        var bytes = Array("bplist00".utf8), offsets: [Int] = []
        for object in objects { offsets.append(bytes.count); bytes += object }
        let table = bytes.count
        for offset in offsets { bytes += [UInt8(offset >> 8), UInt8(offset & 0xff)] }
        func be64(_ v: Int) -> [UInt8] { (0..<8).map { UInt8((v >> (56 - 8 * $0)) & 0xff) } }
        return bytes + [0, 0, 0, 0, 0, 0, 2, 1] + be64(objects.count) + be64(0) + be64(table)
    }

    /// An ASCII string object (under 256 bytes).
    static func ascii(_ s: String) -> [UInt8] {
        let count = UInt8(s.utf8.count)
        return (count < 15 ? [0x50 | count] : [0x5F, 0x10, count]) + Array(s.utf8)
    }

    @Test func theReleaseBuildKeepsItsRuntimeChecks() throws {
        let manifest = try String(contentsOf: packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(!manifest.contains("-Ounchecked"), "-Ounchecked removes the checks that turn bad input into a clear error")
    }
}
