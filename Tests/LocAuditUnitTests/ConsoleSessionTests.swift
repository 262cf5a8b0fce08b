import Foundation
import Testing

/// A Console copy has no pids: the process name keys the app's own lines. They are linked to
/// their bundle by name or by an Info.plist's executable, and the sessions are cut by the
/// launch and RunningBoard lines (whose pid the session takes) without merging two runs.
@Suite struct ConsoleSessionTests {
    @Test("console: app lines without pid are linked by their process name, and the session gets locationd's pid")
    func consoleSessionLinking() throws {
        let audit = try AuditWorkspace()
        let ws = audit.workspace
        // Two runs of the app: the second without a launch line, after the first's termination.
        let body = CollectorContainerTests.consoleSession() + [
            "default\t00:00:02.000000+0100\tlocationd\t" + Messages.appState("Terminated", pid: 812, bundle: "com.example.runner"),
            "default\t00:10:00.000000+0100\tRunner\t" + Messages.delivery(accuracy: 9),
        ].joined(separator: "\n") + "\n"
        let report = try ws.ingest([try ws.write("qa-2026-11-20.log", body)])
        #expect(report.files.first?.events == 5)
        let rows = try ws.rows("SELECT process, bundle_id, bundle_via FROM events WHERE process = 'Runner' ORDER BY line")
        #expect(rows.count == 2)
        #expect(rows.allSatisfy { ($0["bundle_id"] as String?) == "com.example.runner" })
        #expect(rows.allSatisfy { ($0["bundle_via"] as String?) == "name" })
        _ = try audit.audit()
        let sessions = try ws.rows("SELECT pid, events, end_reason FROM sessions WHERE bundle_id = 'com.example.runner' ORDER BY start_us")
        #expect(sessions.map { $0["pid"] as Int? } == [812, nil], "the later line opens its own session")
        #expect(sessions.map { $0["events"] as Int } == [4, 1])
        #expect(sessions.map { $0["end_reason"] as String } == ["terminated", "end-of-log"])
    }

    @Test("RunningBoard's `none (role: None)` ends the running session (the app's later line opens a new one); a `none` before any launch opens no session")
    func runningBoardNoneEndsTheProcess() throws {
        let audit = try AuditWorkspace()
        let ws = audit.workspace
        // The real wording (fixtures/real/juniper-*, line 121), for the sample app.
        func none(_ time: String) -> String {
            "default\t\(time)\trunningboardd\tCalculated state for app<com.example.runner(BED36376-5A4B-42A9-9620-6AE0BC5F0283)>: none (role: None) (endowments: (null))"
        }
        let body = none("23:59:57.000000+0100") + "\n" + CollectorContainerTests.consoleSession() + [
            none("00:00:02.000000+0100"),
            "default\t00:10:00.000000+0100\tRunner\t" + Messages.delivery(accuracy: 9),
        ].joined(separator: "\n") + "\n"
        let report = try ws.ingest([try ws.write("qa-2026-11-20.log", body)])
        #expect(report.files.first?.events == 6)
        #expect(try ws.count("SELECT count(*) FROM events WHERE kind = 'app-state' AND app_state = 'terminated' AND process = 'runningboardd'") == 2)
        _ = try audit.audit()
        let sessions = try ws.rows("SELECT pid, events, end_reason FROM sessions WHERE bundle_id = 'com.example.runner' ORDER BY start_us")
        #expect(sessions.map { $0["end_reason"] as String } == ["terminated", "end-of-log"], "the first none opens nothing; the second ends the run")
        #expect(sessions.map { $0["events"] as Int } == [4, 1])
        #expect(sessions.map { $0["pid"] as Int? } == [812, nil])
    }

}
