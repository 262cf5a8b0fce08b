import Foundation
import GRDB
import Testing
@testable import LocAuditStore
@testable import LocAuditUnitTests

/// IncompleteInputTests' checks that start a program (split from IncompleteInputTests.swift, whose other checks run in the test process).
@Suite(.tags(.endToEnd), .ownThreads) struct IncompleteInputEndToEndTests {
    @Test("standard input is read like a plain file: its last line without a newline is held back unless --complete")
    func standardInput() throws {
        let ws = try Workspace()
        let body = syslogLine("Nov 12 12:00:00", "Runner(CoreLocation)", 412, Messages.delivery(accuracy: 65)) + "\n"
            + syslogLine("Nov 12 12:00:01", "Runner(CoreLocation)", 412, Messages.delivery(accuracy: 3000))
        let held = try run(locauditExecutable, ["ingest", "--db", ws.store.path, "--year", "2026", "-"], stdin: Array(body.utf8))
        #expect(held.status == 0, "\(held.stderr)")
        #expect(held.stdout.contains("1 events"), "\(held.stdout)")
        #expect(held.stdout.contains("held back from line 2"), "\(held.stdout)")
        let ws2 = try Workspace()
        let whole = try run(locauditExecutable, ["ingest", "--db", ws2.store.path, "--year", "2026", "--complete", "-"], stdin: Array(body.utf8))
        #expect(whole.status == 0, "\(whole.stderr)")
        #expect(try ws2.count("SELECT count(*) FROM events") == 2)
    }
}
