import Foundation
import GRDB
import Logging
import Testing
@testable import LocAuditUnitTests
@testable import LocAuditAudit
@testable import LocAuditModel
@testable import LocAuditRules
@testable import LocAuditReport
@testable import LocAuditStore

/// Retention, statistics and the fleet summary, on a real run's database.
@Suite(.tags(.endToEnd), .ownThreads) struct MaintenanceTests {
    /// An inbox with one device's log of 2026-11-10 and two devices' logs of 2026-11-20, run once.
    static func twoNights(_ ws: Workspace) throws -> RunReport {
        let inbox = ws.dir.appendingPathComponent("inbox").path
        try generateFleet(into: inbox + "/old", devices: 1, size: "150K", date: "2026-11-10", seed: 2)
        try generateFleet(into: inbox + "/new", devices: 2, size: "200K", date: "2026-11-20")
        return try NightlyRun(options: settled(RunOptions(inbox: inbox, database: ws.store.path)), logger: Logger(label: "test")).run()
    }

    @Test("prune removes old logs' events and sources, keeps findings, sessions and runs, and measures what it freed")
    func pruneKeepsFindings() throws {
        let ws = try Workspace()
        _ = try MaintenanceTests.twoNights(ws)
        let oldSource = try #require(try ws.rows("SELECT id, events FROM sources WHERE path LIKE '%2026-11-10.log.gz'").first)
        let (events, findings, sessions, runs) = (try ws.count("SELECT count(*) FROM events"), try ws.count("SELECT count(*) FROM findings"),
                                                  try ws.count("SELECT count(*) FROM sessions"), try ws.count("SELECT count(*) FROM audit_runs"))
        #expect(findings > 0)
        let report = try Maintenance.prune(database: ws.store.path, cutoffUS: AuditOptions.parseTime("2026-11-15")!)
        #expect(report.sources == 1)
        #expect(report.events == oldSource[1] as Int)
        #expect(try ws.count("SELECT count(*) FROM events") == events - report.events)
        #expect(try ws.count("SELECT count(*) FROM events WHERE source_id = ?", [oldSource[0] as Int64]) == 0)
        #expect(try ws.count("SELECT count(*) FROM sources WHERE path LIKE '%2026-11-20.log.gz'") == 2)
        #expect(try ws.count("SELECT count(*) FROM findings") == findings)
        #expect(try ws.count("SELECT count(*) FROM sessions") == sessions)
        #expect(try ws.count("SELECT count(*) FROM audit_runs") == runs)
        #expect(report.bytesAfter < report.bytesBefore)
        #expect(report.bytesAfter == Maintenance.fileSize(ws.store.path) + Maintenance.fileSize(ws.store.path + "-wal"))
        // The recorded run still renders, evidence and all.
        #expect(try AuditReport.stored(in: ws.store, run: nil).findings.count > 0)
        let again = try Maintenance.prune(database: ws.store.path, cutoffUS: AuditOptions.parseTime("2026-11-15")!)
        #expect(again.sources == 0 && again.events == 0)
    }

    @Test("stats: size, rows per table, devices, apps, iOS versions, time span")
    func stats() throws {
        let ws = try Workspace()
        _ = try MaintenanceTests.twoNights(ws)
        let stats = try Maintenance.stats(database: ws.store.path)
        #expect(stats.tables["sources"] == (try ws.count("SELECT count(*) FROM sources")))
        #expect(stats.tables["events"] == (try ws.count("SELECT count(*) FROM events")))
        let devices = try ws.rows("SELECT DISTINCT device_id FROM sources WHERE device_id IS NOT NULL ORDER BY 1").map { $0[0] as String }
        #expect(devices.count == 3, "the generator gives each night's qa-fleet-01 its own UDID")
        #expect(stats.devices == devices)
        #expect(stats.iosVersions.values.reduce(0, +) == 3)
        #expect(stats.firstTime.map { $0 >= "2026-11-09" && $0 < "2026-11-11" } == true, "\(String(describing: stats.firstTime))")
        #expect(stats.lastTime?.hasPrefix("2026-11-20") == true)
        #expect(stats.bytes > 0)
        #expect(!stats.apps.isEmpty)
        let cli = try run(locauditExecutable, ["stats", "--db", ws.store.path])
        #expect(cli.status == 0)
        #expect(cli.stdout.contains("devices (3): \(devices.joined(separator: ", "))"), "\(cli.stdout)")
        #expect(try run(locauditExecutable, ["stats", "--db", ws.dir.appendingPathComponent("none.sqlite").path]).status == 3)
        #expect(try run(locauditExecutable, ["prune", "--older-than", "30 days", "--db", ws.store.path]).status == 2)
    }

    @Test("the fleet summary counts open findings fleet-wide and trends them over the runs")
    func fleetSummaryFromTheStore() throws {
        let ws = try Workspace()
        let first = try #require(try MaintenanceTests.twoNights(ws).audit)
        let legacy = first.findings.filter { $0.rule == "invalid-default-accuracy-reduced" }
        #expect(legacy.count == 1)
        // The next night brings the app's fixed Info.plist and a log of the fixed build on that iOS version:
        // its finding is resolved (the Info.plist alone would not judge the earlier logs again).
        let inbox = ws.dir.appendingPathComponent("inbox").path
        let plist = try String(contentsOfFile: inbox + "/new/apps/com.example.legacy.plist", encoding: .utf8)
        let fixed = plist.replacingOccurrences(of: "<key>NSLocationDefaultAccuracyReduced</key>\n\t<string>YES</string>",
                                               with: "<key>NSLocationDefaultAccuracyReduced</key>\n\t<true/>")
        #expect(fixed != plist)
        try ws.write("inbox/fixed/com.example.legacy.plist", fixed)
        let run = LogScript().launch().terminate().text.replacingOccurrences(of: "com.example.app", with: "com.example.legacy")
        try ws.write("inbox/fixed/qa-fleet-09-2026-11-21.log", run.replacingOccurrences(of: "Nov 20", with: "Nov 21") + "\n")
        try ws.write("inbox/fixed/qa-fleet-09-2026-11-21.ideviceinfo.txt",
                     "UniqueDeviceID: qa-fleet-09\nDeviceName: qa-fleet-09\nProductVersion: \(try #require(legacy.first?.osVersion))\nTimeZone: UTC\n")
        // The first night was the night before: the trend counts one run a day.
        try DatabaseQueue(path: ws.store.path).write {
            try $0.execute(sql: "UPDATE audit_runs SET started_at = '2026-11-20T02:00:00.000000Z' WHERE id = ?", arguments: [first.runId])
        }
        let second = try #require(try NightlyRun(options: settled(RunOptions(inbox: inbox, database: ws.store.path)), logger: Logger(label: "test")).run().audit)
        #expect(second.resolved.map(\.fingerprint) == legacy.map(\.fingerprint))

        let summary = try FleetSummary.load(database: ws.store.path, upToRun: second.runId)
        #expect(summary.trend.map(\.runId) == [first.runId, second.runId])
        #expect(summary.trend[0].open == first.findings.count)
        #expect(summary.trend[0].new == first.findings.count)
        #expect(summary.trend[1].resolved == 1)
        #expect(summary.trend[1].open == first.findings.count - 1 + second.new.count)
        #expect(summary.open.count == summary.trend[1].open)
        #expect(!summary.open.contains { $0.rule == "invalid-default-accuracy-reduced" })
        let text = FleetSummaryReporter.generateReport(summary)
        #expect(text.contains("since run \(first.runId)"))
        // As of the first run, the history is the first run alone.
        #expect(try FleetSummary.load(database: ws.store.path, upToRun: first.runId).open.count == first.findings.count)
    }
}
