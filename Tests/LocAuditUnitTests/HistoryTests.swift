import Foundation
import GRDB
import Logging
import Testing
@testable import LocAuditAudit
@testable import LocAuditModel
@testable import LocAuditRules
@testable import LocAuditReport
@testable import LocAuditStore

/// Night after night: what a run calls new, persisting and resolved, and what prune keeps.
@Suite struct HistoryTests {
    /// One device's log of one night in the inbox, with its sidecar.
    static func night(_ inbox: String, device: String, date: String, _ log: LogScript, os: String = "17.5.1") throws {
        let dir = URL(fileURLWithPath: inbox)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let day = log.text.replacingOccurrences(of: "Nov 20", with: "Nov \(date.suffix(2))")
        try Data((day + "\n").utf8).write(to: dir.appendingPathComponent("\(device)-\(date).log"))
        try Data("UniqueDeviceID: \(device)\nDeviceName: \(device)\nProductVersion: \(os)\nTimeZone: UTC\n".utf8)
            .write(to: dir.appendingPathComponent("\(device)-\(date).ideviceinfo.txt"))
    }

    /// Rules of a JSON report's findings at the indices under `key` (`new`, `persisting`).
    static func rules(_ report: [String: Any], _ key: String) -> [String] {
        let findings = report["findings"] as? [[String: Any]] ?? []
        return (report[key] as? [Int] ?? []).map { findings[$0]["rule"] as? String ?? "?" }.sorted()
    }

    /// Three days of one app on one device, each in its own log: day 1 sets what iOS keeps
    /// (the system's upgrade prompt shown once) and has a finding of its own; days 2 and 3
    /// each show the upgrade prompt again, a finding only with day 1's knowledge.
    static func threeDays(_ ws: AuditWorkspace) throws {
        let script = LogScript().launch().call("requestAlwaysAuthorization").prompt("Always", options: "AllowOnce,WhenInUse,Deny")
            .answer("WhenInUse").status("AuthorizedAlways", provisional: 1).property("allowsBackgroundLocationUpdates", 1)
            .call("startUpdatingLocation").state("BackgroundRunning").blueBar(true).deliver()
            .prompt("AlwaysUpgrade", options: "Always,KeepWhenInUse").answer("KeepWhenInUse").status("AuthorizedWhenInUse")
            .state("ForegroundRunning").paused(true).deliver().terminate()
        let day1 = script.lines
        script.launch().state("BackgroundRunning").prompt("AlwaysUpgrade", options: "Always,KeepWhenInUse").terminate()
        let day2 = Array(script.lines.dropFirst(day1.count))
        script.launch().state("BackgroundRunning").prompt("AlwaysUpgrade", options: "Always,KeepWhenInUse")
        let day3 = Array(script.lines.dropFirst(day1.count + day2.count))
        for (day, lines, plist) in [("10", day1, ExamplePlist.complete), ("20", day2, nil), ("25", day3, nil)] {
            try ws.ingest(lines.map { $0.replacingOccurrences(of: "Nov 20", with: "Nov \(day)") }.joined(separator: "\n"),
                          name: "device-2026-11-\(day).log", os: "17.5.1", plist: plist)
        }
    }

    @Test("prune keeps findings and sessions whose lines it removed, marked, never resolved; findings on later data are the same before and after")
    func pruneKeepsHistoryAndKnowledge() throws {
        let ws = try AuditWorkspace()
        try HistoryTests.threeDays(ws)
        let before = try ws.audit()
        #expect(before.rules.sorted() == ["delivery-while-paused", "repeated-always-prompt", "repeated-always-prompt"])
        let byDay = Dictionary(grouping: before.findings) { String($0.time.prefix(10)) }.mapValues { $0.map(\.fingerprint) }
        #expect(byDay.keys.sorted() == ["2026-11-10", "2026-11-20", "2026-11-25"])
        let sessions = try ws.workspace.rows("SELECT pid, start FROM sessions ORDER BY start_us").map(\.description)
        #expect(sessions.count == 3)

        for (cutoff, pruned) in [("2026-11-15", ["2026-11-10"]), ("2026-11-22", ["2026-11-10", "2026-11-20"])] {
            let report = try Maintenance.prune(database: ws.dbPath, cutoffUS: AuditOptions.parseTime(cutoff)!)
            #expect(report.sources == 1, "prune before \(cutoff)")
            let after = try ws.audit()
            // The later data's findings, as before the prune.
            let kept = byDay.filter { !pruned.contains($0.key) }.values.flatMap { $0 }.sorted()
            #expect(after.findings.map(\.fingerprint).sorted() == kept, "after the prune before \(cutoff)")
            #expect(after.new.isEmpty && after.resolved.isEmpty, "after the prune before \(cutoff)")
            // The pruned days' findings and sessions stay as they were, marked.
            let marked = pruned.flatMap { byDay[$0]! }
            for fingerprint in marked {
                let row = try #require(try ws.workspace.rows("SELECT resolved_run, evidence_pruned_at FROM findings WHERE fingerprint = ?", [fingerprint]).first)
                #expect(row["resolved_run"] as Int64? == nil, "\(fingerprint) after the prune before \(cutoff)")
                #expect(row["evidence_pruned_at"] as String? != nil, "\(fingerprint) after the prune before \(cutoff)")
            }
            #expect(try ws.workspace.count("SELECT count(*) FROM findings WHERE evidence_pruned_at IS NULL") == kept.count)
            #expect(try ws.workspace.rows("SELECT pid, start FROM sessions ORDER BY start_us").map(\.description) == sessions)
            #expect(try ws.workspace.count("SELECT count(*) FROM sessions WHERE evidence_pruned_at IS NOT NULL") == pruned.count)
        }
        #expect(try ws.workspace.count("SELECT count(*) FROM replay_checkpoints WHERE device_id = 'device-1' AND bundle_id = 'com.example.app'") == 1)
    }

    @Test("a run's rule checks are stored grouped by subject, a passed check as its rule's name: under a third of the bytes, rendered as before")
    func checksAreStoredCompactly() throws {
        let ws = try QueryTests.samplesStore()
        let live = try Auditor(databasePath: ws.store.path, options: AuditOptions()).run()
        // A row a subject; the one text of runs before migration v18 (and of the central store) from them.
        let subjects = try ws.rows("SELECT checks FROM audit_checks WHERE run_id = ? ORDER BY position", [live.runId]).map { $0[0] as String }
        #expect(subjects.count > 10)
        let stored = try #require(try ws.store.connect(readOnly: true).read { try StoredChecks.runText(live.runId, in: $0) })
        #expect(stored == "{\"subjects\":[" + subjects.joined(separator: ",") + "]}")
        #expect(try ws.rows("SELECT checks FROM audit_runs WHERE id = ?", [live.runId]).first?[0] as String? == nil)
        let asRecords = jsonText(Array(live.checks))
        #expect(live.checks.count > 500)
        #expect(stored.utf8.count * 3 < asRecords.utf8.count, "\(stored.utf8.count) bytes stored for \(asRecords.utf8.count) bytes of records")
        let again = try AuditReport.stored(in: ws.store, run: live.runId)
        #expect(try OutputFormat.junit.render(again) == OutputFormat.junit.render(live))
        #expect(Set(again.checks.map { "\($0)" }) == Set(live.checks.map { "\($0)" }))
    }

    @Test("migration v18 moves the runs' checks from one text into a row a subject; a run of the older list shape keeps its text; the reports stay the same")
    func migrationMovesChecksIntoRows() throws {
        let ws = try QueryTests.samplesStore()
        let first = try Auditor(databasePath: ws.store.path, options: AuditOptions()).run()
        let second = try Auditor(databasePath: ws.store.path, options: AuditOptions()).run()
        let rows = try ws.rows("SELECT run_id, position, checks FROM audit_checks ORDER BY run_id, position").map(\.description)
        let listShape = jsonText(Array(second.checks))
        let firstText = try #require(try ws.store.connect(readOnly: true).read { try StoredChecks.runText(first.runId, in: $0) })
        // The store as v17 left it: the first run's checks one text, the second's the list of records.
        try ws.store.connect().write { db in
            try db.execute(sql: "UPDATE audit_runs SET checks = ? WHERE id = ?", arguments: [firstText, first.runId])
            try db.execute(sql: "UPDATE audit_runs SET checks = ? WHERE id = ?", arguments: [listShape, second.runId])
            try db.execute(sql: "DROP TABLE audit_checks; DELETE FROM grdb_migrations WHERE identifier LIKE 'v18:%'")
        }
        #expect(try ws.count("SELECT count(*) FROM audit_runs WHERE checks IS NOT NULL") == 2)
        _ = try Store(path: ws.store.path, access: .write)
        #expect(try ws.rows("SELECT run_id, position, checks FROM audit_checks ORDER BY run_id, position").map(\.description)
            == rows.filter { $0.contains("run_id:\(first.runId) ") })
        #expect(try ws.rows("SELECT id FROM audit_runs WHERE checks IS NOT NULL").map { $0[0] as Int64 } == [second.runId])
        // The one text as push sends it: the first run's from its rows again, the second's as it was.
        let texts = try ws.store.connect(readOnly: true).read { db in
            [try StoredChecks.runText(first.runId, in: db), try StoredChecks.runText(second.runId, in: db)]
        }
        #expect(texts == [firstText, listShape])
        for run in [first, second] {
            #expect(try OutputFormat.junit.render(try AuditReport.stored(in: ws.store, run: run.runId)) == OutputFormat.junit.render(run))
        }
    }

    @Test("prune thins old runs: their per-check detail goes, their counts, findings and reports stay; the latest runs and those in the window keep it")
    func pruneThinsOldRuns() throws {
        let ws = try AuditWorkspace()
        try ws.ingest(AuditRunTests.findingsLog(), os: "17.5.1", plist: .complete)
        let runs = try (0..<4).map { _ in try ws.audit() }
        let before = try ws.workspace.rows("SELECT id, evaluated, not_evaluable, coverage FROM audit_runs ORDER BY id").map(\.description)
        // Every run started before the cutoff; the latest two keep their checks.
        let report = try Maintenance.prune(database: ws.dbPath, cutoffUS: AuditOptions.parseTime("2100-01-01")!, keepChecks: 2)
        #expect(report.runsThinned == 2)
        #expect(try ws.workspace.count("SELECT count(*) FROM audit_runs WHERE checks IS NULL AND checks_pruned_at IS NOT NULL") == 2)
        #expect(try ws.workspace.count("SELECT count(DISTINCT run_id) FROM audit_checks WHERE run_id >= ?", [runs[2].runId]) == 2)
        #expect(try ws.workspace.count("SELECT count(*) FROM audit_checks WHERE run_id < ?", [runs[2].runId]) == 0)
        #expect(try ws.workspace.rows("SELECT id, evaluated, not_evaluable, coverage FROM audit_runs ORDER BY id").map(\.description) == before)
        // A thinned run still renders: its findings, and the JUnit report says what went.
        let old = try AuditReport.stored(in: ws.workspace.store, run: runs[0].runId)
        #expect(old.findings == runs[0].findings)
        #expect(try OutputFormat.text.render(old) == OutputFormat.text.render(runs[0]))
        let junit = try OutputFormat.junit.render(old)
        // One failing case per app, device (an Info.plist: iOS major version) and rule.
        let failingCases = Set(runs[0].findings.map {
            [$0.bundleId, $0.sessionStart == nil ? "iOS \(IOSVersion($0.osVersion)?.major ?? 0)" : $0.device, $0.rule]
        })
        #expect(!failingCases.isEmpty)
        #expect(junit.components(separatedBy: "<failure ").count - 1 == failingCases.count)
        #expect(junit.contains("per-check detail pruned"))
        #expect(try OutputFormat.junit.render(try AuditReport.stored(in: ws.workspace.store, run: runs[3].runId)) == OutputFormat.junit.render(runs[3]))
        // Runs inside the window keep their checks whatever their number.
        let recent = try Maintenance.prune(database: ws.dbPath, cutoffUS: AuditOptions.parseTime("2000-01-01")!, keepChecks: 0)
        #expect(recent.runsThinned == 0)
    }
}

