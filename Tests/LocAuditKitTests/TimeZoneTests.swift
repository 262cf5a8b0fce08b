import Foundation
import GRDB
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import LocAuditKit

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
            let out = format.render(report)
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
                #expect(collector.properties.contains { $0.suite.hasPrefix("device-utc ") && $0.name == "timeZone" && $0.value == note })
                #expect(!collector.properties.contains { $0.suite.hasPrefix("device-zoned ") })
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
        // As v3 left it: other fingerprints, keyed by the exact time.
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
}

