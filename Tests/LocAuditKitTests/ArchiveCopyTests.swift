import Foundation
import GRDB
import Testing
@testable import LocAuditUnitTests

/// An archive on another file system: each file is copied to a temporary name, synced, then
/// renamed; a leftover of a copy that was killed is verified by the next run.
@Suite(.tags(.endToEnd), .ownThreads) struct ArchiveCopyTests {
    /// Whether /dev/shm (tmpfs) is another file system than the workspaces'.
    static var otherFileSystem: Bool {
        var shm = stat(), tmp = stat()
        return stat("/dev/shm", &shm) == 0 && stat(FileManager.default.temporaryDirectory.path, &tmp) == 0 && shm.st_dev != tmp.st_dev
    }

    @Test("a truncated file under the archive's name (a killed copy) is replaced by the whole file; the inbox is emptied",
          .enabled(if: ArchiveCopyTests.otherFileSystem, "skipped: /dev/shm is not another file system than the temporary folder here"))
    func aTruncatedLeftoverIsVerified() throws {
        let ws = try Workspace()
        let other = URL(fileURLWithPath: "/dev/shm/locaudit-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: other) }
        let name = "qa-iphone12-14-2026-11-20.log"
        let bytes = try Data(contentsOf: packageRoot.appendingPathComponent("samples/logs/" + name))
        let inbox = ws.dir.appendingPathComponent("inbox").path
        try ws.write("inbox/" + name, [UInt8](bytes))
        let archive = other.appendingPathComponent("archive")
        try FileManager.default.createDirectory(at: archive, withIntermediateDirectories: true)
        // What a copy killed half-way left under the final name (an older locaudit), and under
        // the temporary name (this one).
        try bytes.prefix(bytes.count / 2).write(to: archive.appendingPathComponent(name))
        try bytes.prefix(100).write(to: archive.appendingPathComponent("." + name + ".locaudit-copy"))
        let db = ws.dir.appendingPathComponent("night.sqlite").path
        let result = try run(locauditExecutable, ["run", "--inbox", inbox, "--db", db, "--settle", "0", "--archive", archive.path])
        #expect([0, 1, 3].contains(result.status), "\(result.stderr)")
        let output = result.stdout + result.stderr
        #expect(output.contains("not the file it names (a copy that was stopped?); replaced"), "\(output)")
        #expect(try Data(contentsOf: archive.appendingPathComponent(name)) == bytes, "the whole file is in the archive")
        #expect(!FileManager.default.fileExists(atPath: inbox + "/" + name), "\(output)")
        #expect(!FileManager.default.fileExists(atPath: archive.appendingPathComponent("." + name + ".locaudit-copy").path), "a leftover temporary copy is removed")
        let left = (try? FileManager.default.contentsOfDirectory(atPath: archive.path)) ?? []
        #expect(left == [name], "no temporary name left: \(left)")
    }
}
