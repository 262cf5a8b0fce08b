import Foundation
import GRDB
import Testing
@testable import LocAuditUnitTests

/// An inbox that is a symbolic link is followed when given on the command line (as `find -H`);
/// links inside it are skipped, with a sentence.
@Suite(.tags(.endToEnd), .ownThreads) struct InboxLinkTests {
    static let log = "qa-iphone12-14-2026-11-20.log"

    /// `real/` with a sample log and its sidecar, `inbox` a link to it, and inside `real/` a
    /// link to a log outside it.
    func linkedInbox(_ ws: Workspace) throws -> (link: String, outside: String) {
        for name in [InboxLinkTests.log, "qa-iphone12-14-2026-11-20.ideviceinfo.txt"] {
            try ws.write("real/" + name, [UInt8](Data(contentsOf: packageRoot.appendingPathComponent("samples/logs/" + name))))
        }
        let outside = try ws.write("elsewhere/qa-iphone6-8-2026-11-20.log.gz",
                                   [UInt8](Data(contentsOf: packageRoot.appendingPathComponent("samples/logs/qa-iphone6-8-2026-11-20.log.gz"))))
        try FileManager.default.createSymbolicLink(atPath: ws.dir.appendingPathComponent("real/linked-2026-11-20.log.gz").path, withDestinationPath: outside)
        let link = ws.dir.appendingPathComponent("inbox").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: ws.dir.appendingPathComponent("real").path)
        return (link, outside)
    }

    @Test("run --inbox LINK reads the folder the link names; a link inside it is skipped, said in a sentence")
    func runFollowsTheInboxLink() throws {
        let ws = try Workspace()
        let (link, outside) = try linkedInbox(ws)
        let db = ws.dir.appendingPathComponent("night.sqlite").path
        let archive = ws.dir.appendingPathComponent("archive").path
        let result = try run(locauditExecutable, ["run", "--inbox", link, "--db", db, "--settle", "0", "--archive", archive])
        #expect([0, 1, 3].contains(result.status), "\(result.stderr)")
        #expect(result.stdout.contains("1 new logs"), "\(result.stdout)")
        #expect(try WatchTests.count(db, "SELECT count(*) FROM sources WHERE path LIKE '%\(InboxLinkTests.log)'") == 1)
        #expect(try WatchTests.count(db, "SELECT count(*) FROM sources WHERE path LIKE '%linked%'") == 0, "a link inside the inbox is not read")
        let output = result.stdout + result.stderr
        #expect(output.contains("linked-2026-11-20.log.gz: a symbolic link inside the inbox; skipped"), "\(output)")
        #expect(FileManager.default.fileExists(atPath: archive + "/" + InboxLinkTests.log), "archived under its path in the inbox")
        #expect(FileManager.default.fileExists(atPath: outside), "what a link inside the inbox names is never moved")
    }

    @Test("ingest LINK/ reads the folder the link names")
    func ingestFollowsTheLink() throws {
        let ws = try Workspace()
        let (link, _) = try linkedInbox(ws)
        let db = ws.dir.appendingPathComponent("bin.sqlite").path
        let result = try run(locauditExecutable, ["ingest", "--db", db, link + "/"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("1 ingested"), "\(result.stdout)")
        #expect((result.stdout + result.stderr).contains("a symbolic link inside"), "\(result.stdout)\(result.stderr)")
    }
}
