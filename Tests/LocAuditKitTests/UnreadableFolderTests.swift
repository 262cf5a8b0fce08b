import Foundation
import GRDB
import Testing
@testable import LocAuditUnitTests

/// A folder in the inbox the run's user cannot read is named, and fails the run as an
/// unreadable file does (exit 5).
@Suite(.tags(.endToEnd), .ownThreads) struct UnreadableFolderTests {
    /// Runs `locaudit` as a user that is not root (root reads every folder): `nobody`
    /// through `setpriv` when the tests run as root, else as the tests' own user.
    func runAsUser(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String)? {
        if getuid() != 0 { return try run(locauditExecutable, arguments) }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { return nil }
        return try run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "--", locauditExecutable] + arguments)
    }

    /// A user that cannot read a folder of mode 000: any but root, or `nobody` through setpriv.
    static var otherUser: Bool { getuid() != 0 || FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") }

    @Test("an unreadable folder in the inbox: named in the report and the log, exit 5, the readable files stored",
          .enabled(if: UnreadableFolderTests.otherUser, "skipped: the tests run as root and there is no setpriv to run as nobody"))
    func anUnreadableFolderIsNamed() throws {
        let ws = try Workspace()
        let name = "qa-iphone12-14-2026-11-20.log"
        let inbox = ws.dir.appendingPathComponent("inbox").path
        try ws.write("inbox/" + name, [UInt8](Data(contentsOf: packageRoot.appendingPathComponent("samples/logs/" + name))))
        try ws.write("inbox/locked/qa-iphone6-8-2026-11-20.log.gz",
                     [UInt8](Data(contentsOf: packageRoot.appendingPathComponent("samples/logs/qa-iphone6-8-2026-11-20.log.gz"))))
        let run = ws.dir.appendingPathComponent("run")
        try FileManager.default.createDirectory(at: run, withIntermediateDirectories: true)
        if getuid() == 0 {
            // The workspace belongs to the user the run runs as.
            for path in [ws.dir.path, inbox, inbox + "/" + name, inbox + "/locked", inbox + "/locked/qa-iphone6-8-2026-11-20.log.gz", run.path] {
                #expect(chown(path, 65534, 65534) == 0, "chown \(path)")
            }
        }
        #expect(chmod(inbox + "/locked", 0) == 0)
        defer { chmod(inbox + "/locked", 0o755) }
        let db = run.appendingPathComponent("night.sqlite").path
        let result = try #require(try runAsUser(["run", "--inbox", inbox, "--db", db, "--settle", "0"]))
        #expect(result.status == 5, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("locked: a folder that cannot be read"), "\(result.stdout)")
        #expect(result.stderr.contains("locked"), "\(result.stderr)")
        #expect(try WatchTests.count(db, "SELECT count(*) FROM sources WHERE path LIKE '%\(name)'") == 1, "the readable log is stored")
    }
}
