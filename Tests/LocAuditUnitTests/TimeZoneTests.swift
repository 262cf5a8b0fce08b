import Foundation
import GRDB
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import LocAuditAudit
@testable import LocAuditIngest
@testable import LocAuditModel
@testable import LocAuditRules
@testable import LocAuditNormalise
@testable import LocAuditReport
@testable import LocAuditStore

/// Times read without a zone: every report says so, and two exports of one device with
/// different zone knowledge give one truth.
@Suite struct TimeZoneTests {
    @Test("a device whose times were assumed UTC: every report says so for that device, also when rendered from the store")
    func reportsSayUTCWasAssumed() throws {
        let ws = try AuditWorkspace()
        let log = LogScript().launch().told("Denied").deliver().text
        try ws.ingest(log, name: "zoneless-2026-11-20.log", os: "17.5.1", device: "device-utc", plist: .complete, zone: nil)
        try ws.ingest(log.replacingOccurrences(of: "Nov 20", with: "Nov 21"), name: "zoned-2026-11-21.log", os: "17.5.1",
                      device: "device-zoned", zone: "Europe/Paris")
        let report = try ws.audit()
        #expect(report.findings.map(\.device).sorted() == ["device-utc", "device-zoned"])
        let note = try #require(report.coverage.timeZones?["device-utc"])
        #expect(note.contains("assumed UTC"))
        #expect(report.coverage.timeZones?["device-zoned"] == nil, "a device read in its zone needs no note")
        #expect(try AuditReport.stored(in: ws.workspace.store).coverage == report.coverage)

        for format in [OutputFormat.text, .json, .markdown, .html, .junit, .csv] {
            let out = try format.render(report)
            switch format {
            case .json:
                let doc = try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any])
                let zones = (doc["coverage"] as? [String: Any])?["timeZones"] as? [String: String]
                #expect(zones == ["device-utc": note])
            case .csv:
                let rows = ReporterTests.parseCSV(out)
                let column = try #require(rows.first?.firstIndex(of: "timeZone"))
                for row in rows.dropFirst() { #expect(row[column] == (row[2] == "device-utc" ? note : ""), "csv row of \(row[2])") }
            case .junit:
                let collector = XMLCollector()
                let parser = XMLParser(data: Data(out.utf8))
                parser.delegate = collector
                #expect(parser.parse())
                #expect(collector.properties.contains { $0.suite.hasSuffix(" on device-utc") && $0.name == "timeZone" && $0.value == note })
                #expect(!collector.properties.contains { $0.suite.hasSuffix(" on device-zoned") && $0.name == "timeZone" })
            default:
                #expect(out.contains("device-utc"), "\(format)")
                #expect(out.contains(format == .html ? HTMLFormat.escape(note) : format == .markdown ? MarkdownReporter.escape(note) : note), "\(format)")
                #expect(!out.contains("device-zoned: times"), "\(format)")
            }
        }
    }

    /// The same lines as `log show --style ndjson` prints them: microseconds, and the offset.
    static func ndjson(_ syslog: [String], offset: String, fraction: (Int) -> Int = { 100_000 + $0 * 7 }) -> String {
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let shape = try! NSRegularExpression(pattern: #"^(\w{3}) +(\d+) (\d\d:\d\d:\d\d) \S+ ([^\[]+)\[(\d+)\] <\w+>: (.*)$"#)
        return syslog.enumerated().map { i, line in
            let m = shape.firstMatch(in: line, range: NSRange(line.startIndex..., in: line))!
            func group(_ n: Int) -> String { String(line[Range(m.range(at: n), in: line)!]) }
            let month = months.firstIndex(of: group(1))! + 1
            let stamp = String(format: "2026-%02d-%02d %@.%06d%@", month, Int(group(2))!, group(3), fraction(i), offset)
            let record: [String: Any] = ["eventMessage": group(6), "eventType": "logEvent", "processImagePath": "/usr/libexec/" + group(4),
                                         "processID": Int(group(5))!, "timestamp": stamp]
            return String(decoding: try! JSONSerialization.data(withJSONObject: record, options: [.sortedKeys]), as: UTF8.self)
        }.joined(separator: "\n") + "\n"
    }

    /// A log and its sidecar naming the device, ingested; `zone` is `--tz`.
    @discardableResult
    static func ingest(_ ws: Workspace, _ name: String, _ content: String, zone: String? = nil) throws -> FileReport {
        let path = try ws.write(name, content)
        try ws.write(name.components(separatedBy: ".").first! + ".ideviceinfo.txt", "UniqueDeviceID: device-1\nDeviceName: iPhone\nProductVersion: 17.5.1\n")
        let report = try ws.ingest([path]) { $0.parse = ParseOptions(year: 2026, zone: zone.flatMap(TimeZone.init(identifier:))) }
        return try #require(report.files.first { $0.path == path })
    }

    @Test("the same lines in a whole-second export and a microsecond export of one device are one event each, in either order")
    func secondsAgainstMicroseconds() throws {
        let lines = LogScript().launch().told("AuthorizedWhenInUse").deliver(5).deliver(5).terminate().lines
        let precise = TimeZoneTests.ndjson(lines, offset: "+0100")
        for syslogFirst in [true, false] {
            let ws = try Workspace()
            var reports: [FileReport] = []
            for first in [syslogFirst, !syslogFirst] {
                reports.append(first ? try TimeZoneTests.ingest(ws, "dev-2026-11-20.log", lines.joined(separator: "\n") + "\n", zone: "Europe/Paris")
                                     : try TimeZoneTests.ingest(ws, "dev-2026-11-20b.ndjson", precise))
            }
            #expect(reports.map(\.outcome) == [.ingested, .ingested])
            #expect(try ws.count("SELECT count(*) FROM events") == lines.count, "syslog first: \(syslogFirst)")
            #expect(reports[1].events == 0 && reports[1].skipped?["duplicate"] == lines.count, "syslog first: \(syslogFirst)")
            // Each event's time is the first export's: whole seconds or microseconds.
            let fractions = try ws.count("SELECT count(*) FROM events WHERE time_us % 1000000 != 0")
            #expect(fractions == (syslogFirst ? 0 : lines.count))
        }
    }

    @Test("a store written before v4 gets the new line fingerprints: a grown export ingested again adds only its new lines")
    func oldStoresAreRefingerprinted() throws {
        let ws = try Workspace()
        let lines = LogScript().launch().told("AuthorizedWhenInUse").deliver(5).deliver(5).deliver(5).terminate().lines
        try TimeZoneTests.ingest(ws, "dev-2026-11-20.log", lines.dropLast().joined(separator: "\n") + "\n", zone: "UTC")
        let fresh = try ws.rows("SELECT id, fingerprint FROM events ORDER BY id").map { [$0[0] as Int64, $0[1] as Int64] }
        #expect(fresh.count == lines.count - 1)
        // As v3 left it: one events table, other fingerprints, keyed by the exact time.
        try EventLayoutTests.downgradeToV10(ws.store.path)
        try DatabaseQueue(path: ws.store.path).write { db in
            try db.execute(sql: """
                DROP INDEX events_by_line;
                UPDATE events SET fingerprint = id * 7919;
                CREATE UNIQUE INDEX events_by_fingerprint ON events(time_us, fingerprint);
                DELETE FROM grdb_migrations WHERE identifier LIKE 'v4:%';
                """)
        }
        _ = try Store(path: ws.store.path)
        #expect(try ws.rows("SELECT id, fingerprint FROM events ORDER BY id").map { [$0[0] as Int64, $0[1] as Int64] } == fresh)
        let grown = try TimeZoneTests.ingest(ws, "dev-2026-11-20-grown.log", lines.joined(separator: "\n") + "\n", zone: "UTC")
        #expect(grown.events == 1)
        #expect(grown.skipped?["duplicate"] == lines.count - 1)
    }

    @Test("a zone-less export beside a zoned one of the same device and period takes its offset and says so, in either order")
    func zonelessTakesTheZonedOffset() throws {
        // Paris wall time in the idevicesyslog lines; the ndjson export says +0100. One line
        // is only in the zone-less export, and must be re-timed too.
        let script = LogScript().launch().told("Denied").deliver(5).deliver(5)
        let shared = script.lines
        let zoneless = (shared + script.terminate().lines.suffix(1)).joined(separator: "\n") + "\n"
        let zoned = TimeZoneTests.ndjson(shared, offset: "+0100")
        for zonedFirst in [true, false] {
            let ws = try Workspace()
            var files: [String: FileReport] = [:]
            for name in zonedFirst ? ["zoned", "zoneless"] : ["zoneless", "zoned"] {
                files[name] = name == "zoned" ? try TimeZoneTests.ingest(ws, "dev-2026-11-20.ndjson", zoned)
                                              : try TimeZoneTests.ingest(ws, "dev-2026-11-20b.log", zoneless)
            }
            let order = "zoned first: \(zonedFirst)"
            // One event per line, all in UTC: Paris wall time minus an hour.
            #expect(try ws.count("SELECT count(*) FROM events") == shared.count + 1, "\(order)")
            let times = try ws.rows("SELECT time FROM events ORDER BY time_us").map { String(($0[0] as String).prefix(19)) }
            #expect(times.first == "2026-11-20T08:00:01", "\(order)")
            #expect(times.last == "2026-11-20T08:00:\(String(format: "%02d", shared.count + 1))", "\(order)")
            #expect(try ws.count("SELECT count(*) FROM events WHERE utc_offset = 3600") == shared.count + 1, "\(order)")
            // The first export stored keeps each line; the other counts it as a duplicate.
            let first = zonedFirst ? "zoned" : "zoneless", second = zonedFirst ? "zoneless" : "zoned"
            #expect(try ws.count("SELECT events FROM sources WHERE path LIKE ?", [zonedFirst ? "%.ndjson" : "%.log"]) == shared.count + (zonedFirst ? 0 : 1), "\(order)")
            #expect(files[second]?.skipped?["duplicate"] == shared.count, "\(order)")
            #expect(files[second]?.events == (zonedFirst ? 1 : 0), "\(order)")
            _ = first
            // The zone-less source says whose offset it took.
            let source = try #require(try ws.rows("SELECT zone_assumed, zone_offset, zone_from, notes FROM sources WHERE path LIKE '%.log'").first)
            #expect(source["zone_assumed"] as Int == 0, "\(order)")
            #expect(source["zone_offset"] as Int? == 3600, "\(order)")
            #expect((source["zone_from"] as String?)?.hasSuffix("dev-2026-11-20.ndjson") == true, "\(order)")
            #expect((source["notes"] as String).contains("\"zone-from-export\":\(zonedFirst ? 1 : shared.count + 1)"), "\(order)")
            // And the report says so for the device.
            let report = try Auditor(databasePath: ws.store.path, options: AuditOptions()).run()
            let note = try #require(report.coverage.timeZones?["device-1"], "\(order)")
            #expect(note.contains("UTC+01:00") && note.contains("dev-2026-11-20.ndjson"), "\(order): \(note)")
            #expect(!note.contains("assumed UTC"), "\(order)")
        }
    }

    @Test("a zoned export of another day lends no offset: the zone-less one stays assumed UTC")
    func noOverlapNoOffset() throws {
        let ws = try Workspace()
        let lines = LogScript().launch().told("Denied").deliver(5).lines
        try TimeZoneTests.ingest(ws, "dev-2026-11-20.log", lines.joined(separator: "\n") + "\n")
        try TimeZoneTests.ingest(ws, "dev-2026-11-22.ndjson", TimeZoneTests.ndjson(lines.map { $0.replacingOccurrences(of: "Nov 20", with: "Nov 22") }, offset: "+0100"))
        let source = try #require(try ws.rows("SELECT zone_assumed, zone_offset FROM sources WHERE path LIKE '%.log'").first)
        #expect(source["zone_assumed"] as Int == 1)
        #expect(source["zone_offset"] as Int? == nil)
        #expect(try ws.count("SELECT count(*) FROM events") == 2 * lines.count)
    }
}

