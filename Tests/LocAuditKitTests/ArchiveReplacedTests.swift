import Foundation
import GRDB
import Testing
@testable import LocAuditUnitTests

/// `run --archive` moves only the file it ingested, not one that took its name since.
@Suite(.tags(.endToEnd), .ownThreads) struct ArchiveReplacedTests {
    @Test("a file replaced (mv) after its ingest stays in the inbox, said in a sentence, and the next run ingests it")
    func replacedAfterItsIngest() throws {
        let ws = try Workspace()
        let first = "qa-iphone12-14-2026-11-20.log", other = "qa-iphone14pro-17-2026-11-20.log"
        let inbox = ws.dir.appendingPathComponent("inbox").path
        try ws.write("inbox/a-2026-11-20.log", [UInt8](Data(contentsOf: packageRoot.appendingPathComponent("samples/logs/" + first))))
        let db = ws.dir.appendingPathComponent("night.sqlite").path
        let archive = ws.dir.appendingPathComponent("archive").path
        let arguments = ["run", "--inbox", inbox, "--db", db, "--settle", "0", "--archive", archive]
        let output = ws.dir.appendingPathComponent("first-run.txt").path
        let stopped = try startLocaudit(arguments, environment: ["LOCAUDIT_TEST_STOP_BEFORE_AUDIT": "1"], output: output)
        let atHook = waitUntilStopped(stopped)
        if !atHook, stopped.isRunning { stopped.terminate() }
        try #require(atHook, "the run never reached the hook after its ingest")
        // Another log takes the name (written beside it, then renamed: as rsync and mv do).
        let replacement = try ws.write("new.log", [UInt8](Data(contentsOf: packageRoot.appendingPathComponent("samples/logs/" + other))))
        try #require(rename(replacement, inbox + "/a-2026-11-20.log") == 0)
        kill(stopped.processIdentifier, SIGCONT)
        stopped.waitUntilExit()
        #expect(stopped.terminationReason == .exit)
        let said = try String(contentsOfFile: output, encoding: .utf8)
        #expect(said.contains("a-2026-11-20.log: changed since its ingest"), "\(said)")
        #expect(FileManager.default.fileExists(atPath: inbox + "/a-2026-11-20.log"), "the new file was never read: it stays")
        let archived = try? Data(contentsOf: URL(fileURLWithPath: archive + "/a-2026-11-20.log"))
        let new = try Data(contentsOf: packageRoot.appendingPathComponent("samples/logs/" + other))
        #expect(archived != new, "the unread file is not in the archive")
        let next = try run(locauditExecutable, arguments)
        #expect(try WatchTests.count(db, "SELECT count(*) FROM sources WHERE container != 'ideviceinfo'") == 2, "the next run reads it")
        #expect(!FileManager.default.fileExists(atPath: inbox + "/a-2026-11-20.log"), "\(next.stdout)")
    }
}
