import Foundation
import GRDB
import Testing
@testable import LocAuditUnitTests

/// A file name with a newline or an escape sequence never reaches a log or a summary raw:
/// it cannot forge a log line or drive the terminal.
@Suite(.tags(.endToEnd), .ownThreads) struct ControlNameTests {
    static let name = "evil\n2026-11-27T02:30:01+0000 error locaudit: forged\u{1B}[2J-2026-11-20.log"

    func hasRawControl(_ text: String) -> Bool {
        text.contains("\u{1B}") || text.contains("\nforged") || text.split(separator: "\n").contains { $0.hasPrefix("2026-11-27T02:30:01+0000 error locaudit: forged") }
    }

    @Test("run's log and report, and ingest's summary, escape control characters in a file name")
    func escapedEverywhere() throws {
        let ws = try Workspace()
        let log = try [UInt8](Data(contentsOf: packageRoot.appendingPathComponent("samples/logs/qa-iphone12-14-2026-11-20.log")))
        try ws.write("inbox/" + ControlNameTests.name, log)
        try ws.write("broken/" + ControlNameTests.name, Array("not a log at all\n".utf8))
        let db = ws.dir.appendingPathComponent("night.sqlite").path
        let night = try run(locauditExecutable, ["run", "--inbox", ws.dir.appendingPathComponent("inbox").path, "--db", db, "--settle", "0", "--verbose"])
        #expect(night.stderr.contains("forged"), "the name is in the log: \(night.stderr)")
        #expect(!hasRawControl(night.stderr), "\(night.stderr.debugDescription)")
        #expect(!hasRawControl(night.stdout), "\(night.stdout.debugDescription)")
        let ingest = try run(locauditExecutable, ["ingest", "--db", ws.dir.appendingPathComponent("bin.sqlite").path, ws.dir.appendingPathComponent("broken").path])
        #expect(ingest.status == 1)
        #expect(ingest.stdout.contains("forged"), "\(ingest.stdout)")
        #expect(!hasRawControl(ingest.stdout) && !hasRawControl(ingest.stderr), "\(ingest.stdout.debugDescription)")
    }
}
