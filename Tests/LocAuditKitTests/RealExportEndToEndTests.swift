import Foundation
import Testing
@testable import LocAuditUnitTests

/// RealExportTests' checks that start a program (split from RealExportTests.swift, whose other checks run in the test process).
@Suite(.tags(.endToEnd), .ownThreads) struct RealExportEndToEndTests {
    /// Ingests with the real binary (for `--date`), then returns the workspace.
    static func ingestWithBinary(_ name: String, _ flags: [String]) throws -> (Workspace, String) {
        let ws = try Workspace()
        let result = try run(locauditExecutable, ["ingest", "--db", ws.store.path, "--json"] + flags + [RealExportTests.real(name)])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        return (ws, result.stdout)
    }

    @Test("the Juniper Console copy: 1365 lines, 264 continuation lines, 2 blank ones, EXPECTED.md's times on the --date given")
    func juniperReinstall() throws {
        let (ws, json) = try Self.ingestWithBinary("juniper-rn-ios18-console-reinstall-launch-crash.log", ["--date", "2025-10-10"])
        #expect(json.contains("\"container\" : \"console\""), "\(json)")
        let source = try #require(try ws.rows("SELECT * FROM sources").first)
        #expect(source["lines_read"] as Int == 1365)
        // The other lines of each transition (EXPECTED.md 183-191, 1278-1290, and RunningBoard's
        // `none` at 1258-1259, the process's end that locationd logs too) are repeats; the
        // blank lines inside the paste (624, and one of a tab) are noise, no lines of a message.
        #expect(source["skipped"] as String == #"{"noise":2,"repeat":21}"#)
        #expect(source["notes"] as String == #"{"continuation":264}"#)
        #expect(source["zone_assumed"] as Int == 0)
        #expect(source["first_time"] as String == "2025-10-11T04:30:38.553942Z") // 23:30:38.553942 -0500 on the 10th
        let rows = try ws.rows("SELECT line, time, utc_offset, process, pid, app_pid, kind, app_state FROM events ORDER BY line")
        // Launch, foreground, the app's own crash (not the location crash), SpringBoard's
        // `[app<…>:26683] Process exited: … code:SIGABRT(6)` (issue 26), terminated.
        #expect(rows.map { $0["line"] as Int } == [15, 188, 1194, 1261, 1284])
        #expect(rows.map { $0["kind"] as String } == ["launch", "app-state", "crash", "crash", "app-state"])
        #expect(rows.map { $0["time"] as String } == ["2025-10-11T04:30:43.112133Z", "2025-10-11T04:30:43.235435Z",
                                                      "2025-10-11T04:30:44.789933Z", "2025-10-11T04:30:44.813159Z",
                                                      "2025-10-11T04:30:44.824731Z"])
        #expect(rows.allSatisfy { ($0["utc_offset"] as Int) == -5 * 3600 && ($0["pid"] as Int?) == nil })
        #expect(rows.map { $0["process"] as String } == ["SpringBoard", "locationd", "MobileJarvisNative", "SpringBoard", "locationd"])
        #expect(rows.map { $0["app_pid"] as Int? } == [nil, 26683, nil, 26683, 26683])
        let exit = try #require(try ws.rows("SELECT bundle_id, reason FROM events WHERE line = 1261").first)
        #expect(exit["bundle_id"] as String == "com.hightowerai.MobileJarvisNative")
        #expect(exit["reason"] as String == "SIGABRT(6)")
    }

    @Test("the other Juniper copy starts mid-session and reads with no error")
    func juniperCrash() throws {
        let (ws, _) = try Self.ingestWithBinary("juniper-rn-ios18-console-crash-terminated.log", ["--date", "2025-10-14"])
        let source = try #require(try ws.rows("SELECT container, lines_read, skipped FROM sources").first)
        #expect(source["container"] as String == "console")
        #expect(source["lines_read"] as Int == 229)
        // Blank lines inside the paste (69, 78, and one of a tab) are noise; RunningBoard's
        // `none` (121, 127) repeats the end locationd logs at 151.
        #expect(source["skipped"] as String == #"{"noise":3,"repeat":7}"#)
        // SpringBoard's exit with SIGABRT(6) is the crash that ends the session (line 122;
        // its FBApplicationProcess form, line 130, tells the same exit and is not read).
        #expect(try ws.rows("SELECT line, app_pid, reason FROM events WHERE kind = 'crash'").map { "\($0["line"] as Int) \($0["app_pid"] as Int) \($0["reason"] as String)" }
                == ["122 51362 SIGABRT(6)"])
        let row = try #require(try ws.rows("SELECT time, app_pid, app_state FROM events WHERE line = 151").first)
        #expect(row["app_state"] as String == "terminated")
        #expect(row["app_pid"] as Int == 51362)
        #expect((row["time"] as String).hasPrefix("2025-10-15T00:28:"), "19:28 -0500 on the 14th")
    }

    @Test("the transistorsoft Console copy: the app line keeps its process name and no pid")
    func transistorsoft() throws {
        let (ws, _) = try Self.ingestWithBinary("transistorsoft-rn-bggeo-1860-ios16.3.log", ["--date", "2023-03-01"])
        let source = try #require(try ws.rows("SELECT container, lines_read, skipped FROM sources").first)
        #expect(source["container"] as String == "console")
        #expect(source["lines_read"] as Int == 10)
        #expect(source["skipped"] as String == #"{"repeat":6}"#, "lines 5-10 repeat dasd's activation of line 4")
        let row = try #require(try ws.rows("SELECT time, utc_offset, process, pid, property FROM events WHERE line = 1").first)
        #expect(row["time"] as String == "2023-03-02T02:13:52.655417Z")
        #expect(row["utc_offset"] as Int == -4 * 3600)
        #expect(row["process"] as String == "Wridz")
        #expect(row["pid"] as Int? == nil)
        #expect(row["property"] as String == "updatingLocation")
    }
}
