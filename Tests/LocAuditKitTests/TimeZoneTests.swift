import Foundation
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
}
