import Foundation
import GRDB
import Logging
import Testing
@testable import LocAuditAudit
@testable import LocAuditModel
@testable import LocAuditRules
@testable import LocAuditReport
@testable import LocAuditStore

/// The fleet summary reporter: a pure function, against expected files.
@Suite struct FleetSummaryReporterTests {
    static let summary = FleetSummary(
        runId: 3, startedAt: "2026-11-22T02:00:00.000000Z",
        open: [
            .init(rule: "missing-blue-bar", severity: .high, device: "qa-fleet-01", bundleId: "com.example.runner", iosMajor: 17),
            .init(rule: "missing-blue-bar", severity: .high, device: "qa-fleet-02", bundleId: "com.example.runner", iosMajor: 9),
            .init(rule: "delivery-while-paused", severity: .low, device: "qa-fleet-02", bundleId: "com.example.<b>", iosMajor: nil),
        ],
        trend: [.init(runId: 2, startedAt: "2026-11-21T02:00:00.000000Z", open: 5, new: 5, resolved: 0),
                .init(runId: 3, startedAt: "2026-11-22T02:00:00.000000Z", open: 3, new: 1, resolved: 3)])

    @Test(arguments: [("fleet-summary.txt", OutputFormat.fleet), ("fleet-summary.html", OutputFormat.fleetHTML)])
    func matchesExpected(file: String, format: OutputFormat) throws {
        let path = ReporterTests.expected.appendingPathComponent(file)
        let rendered = format == .fleet ? FleetSummaryReporter.generateReport(FleetSummaryReporterTests.summary)
                                        : FleetSummaryReporter.generateHTML(FleetSummaryReporterTests.summary)
        if ProcessInfo.processInfo.environment["LOCAUDIT_UPDATE_EXPECTED"] == "1" { try Data(rendered.utf8).write(to: path) }
        #expect(rendered == (try String(contentsOf: path, encoding: .utf8)), "\(file) differs; rerun with LOCAUDIT_UPDATE_EXPECTED=1 and review the diff")
    }

    @Test func htmlEscapesWhatCameFromLogs() {
        let html = FleetSummaryReporter.generateHTML(FleetSummaryReporterTests.summary)
        #expect(html.contains("com.example.&lt;b&gt;"))
        #expect(!html.contains("<b>"))
        // Self-contained: no address to fetch (the Content-Security-Policy's http-equiv forbids any).
        #expect(!html.contains("http://") && !html.contains("https://") && !html.contains("src="), "self-contained: no network")
    }
}
