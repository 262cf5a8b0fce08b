import Foundation
import GRDB
import Testing
@testable import LocAuditUnitTests

/// What a user reads when a disk fills up, and the text an odd Info.plist value is stored as
/// (issue 24, point 12): sentences that name the files and say what to do, stable text.
@Suite(.tags(.endToEnd), .ownThreads) struct FaultSentenceTests {
    /// A tmpfs of `options` mounted at `path` (a real full disk); the caller unmounts it.
    static func mount(_ path: String, _ options: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        #expect(try run("/bin/mount", ["-t", "tmpfs", "-o", options, "tmpfs", path]).status == 0)
    }

    @Test("a full archive disk: each file not archived is one sentence naming it, its archive folder and what to do; no NSError text",
          .enabled(if: StoreErrorTests.canMountTmpfs, "mounting a tmpfs needs root"))
    func fullArchiveDisk() throws {
        let ws = try Workspace()
        let archive = ws.dir.appendingPathComponent("archive").path
        try Self.mount(archive, "size=64k,nr_inodes=8")
        defer { _ = try? run("/bin/umount", ["-l", archive]) }
        // Full: its blocks, then its inodes.
        _ = try run("/bin/sh", ["-c", "dd if=/dev/zero of=\"$0/fill\" bs=4k 2>/dev/null; i=0; while touch \"$0/f$i\" 2>/dev/null && [ $i -lt 100 ]; do i=$((i+1)); done", archive])
        let top = "qa-iphone12-14-2026-11-20.log", nested = "qa-iphone14pro-17-2026-11-20.log"
        try ws.write("inbox/" + top, Array(try Data(contentsOf: packageRoot.appendingPathComponent("samples/logs/" + top))))
        try ws.write("inbox/sub/" + nested, Array(try Data(contentsOf: packageRoot.appendingPathComponent("samples/logs/" + nested))))
        let inbox = ws.dir.appendingPathComponent("inbox").path
        let db = ws.dir.appendingPathComponent("night.sqlite").path
        let result = try run(locauditExecutable, ["run", "--inbox", inbox, "--db", db, "--settle", "0", "--archive", archive])
        let lines = result.stderr.split(separator: "\n").filter { $0.contains("not archived") }
        #expect(lines.count == 2, "\(result.stderr)")
        for (file, target, folder) in [(inbox + "/" + top, archive + "/" + top, archive), (inbox + "/sub/" + nested, archive + "/sub/" + nested, archive + "/sub")] {
            let line = try #require(lines.first { $0.contains("not archived \(file):") }, "\(result.stderr)")
            #expect(line.contains("cannot move it to \(target): the disk holding the archive folder \(folder) is full"), "\(line)")
            #expect(line.contains("Free some space there, or give --archive a folder on another disk"), "\(line)")
            #expect(FileManager.default.fileExists(atPath: file), "\(file) stays in the inbox")
        }
        #expect(!result.stderr.contains("The operation could not be completed"), "\(result.stderr)")
        #expect(!result.stderr.contains("NSCocoaErrorDomain") && !result.stderr.contains("Error Domain"), "\(result.stderr)")
    }

    @Test("a full database disk (exit 6) lists the files stored whole before it, which stay stored",
          .enabled(if: StoreErrorTests.canMountTmpfs, "mounting a tmpfs needs root"))
    func fullDatabaseDiskListsStoredFiles() throws {
        let ws = try Workspace()
        let mount = ws.dir.appendingPathComponent("small").path
        try Self.mount(mount, "size=1m")
        defer { _ = try? run("/bin/umount", ["-l", mount]) }
        let db = mount + "/locaudit.sqlite"
        let first = try ws.write("first.log", StoreTests.day(10, count: 20))
        let second = try ws.write("second.log", StoreTests.day(11, count: 20))
        var lines: [String] = []
        for i in 0..<12_000 {
            let stamp = String(format: "Nov 12 %02d:%02d:%02d", i / 3600, i / 60 % 60, i % 60)
            lines.append(syslogLine(stamp, "Runner(CoreLocation)", 412, Messages.delivery(accuracy: Double(i))))
        }
        let big = try ws.write("big.log", lines.joined(separator: "\n") + "\n")
        let result = try run(locauditExecutable, ["ingest", "--db", db, "--year", "2026", "--jobs", "1", first, second, big])
        StoreErrorTests.expect(result, "ingest", exit: 6, saying: [db, "full", "Stored before it, and kept (the next ingest skips them): \(first), \(second)."])
        let stored = try DatabaseQueue(path: db).read { try String.fetchAll($0, sql: "SELECT path FROM sources ORDER BY id") }
        #expect(stored.count == 2 && stored.allSatisfy { !$0.hasSuffix("big.log") }, "\(stored)")
    }

    @Test("a dictionary or an array under NSLocationDefaultAccuracyReduced is stored as stable text, and the rule flags it")
    func collectionUnderDefaultAccuracyReduced() throws {
        let source = try Data(contentsOf: packageRoot.appendingPathComponent("samples/apps/com.example.runner.plist"))
        var plist = try #require(try PropertyListSerialization.propertyList(from: source, format: nil) as? [String: Any])
        for (value, text, type) in [(["b": 2, "a": "x"] as [String: Any], "dictionary of 2 keys", "dictionary"),
                                    ([["a": 1]] as [Any], "array of 1 value", "array")] as [(Any, String, String)] {
            let ws = try Workspace()
            plist["NSLocationDefaultAccuracyReduced"] = value
            let path = try ws.write("com.example.runner.plist", Array(try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)))
            let db = ws.dir.appendingPathComponent("d.sqlite").path
            // An iOS 13 device: --os makes it one the rule (iOS 14+) applies to.
            let log = packageRoot.appendingPathComponent("samples/audit/clean-provisional-always-upgrade.log").path
            let ingested = try run(locauditExecutable, ["ingest", "--quiet", "--db", db, "--year", "2026", "--os", "17.5.1", path, log])
            #expect(ingested.status == 0, "\(ingested.stderr)")
            let query = try run(locauditExecutable, ["query", "--db", db, "--format", "csv", "--sql",
                                                      "SELECT default_accuracy_reduced AS v, default_accuracy_reduced_type AS t FROM app_versions WHERE default_accuracy_reduced IS NOT NULL"])
            #expect(query.stdout == "v,t\r\n\(text),\(type)\r\n", "\(query.stdout)\(query.stderr)")
            let audit = try run(locauditExecutable, ["audit", "--db", db, "--format", "json"])
            #expect(audit.stdout.contains("invalid-default-accuracy-reduced"), "\(audit.stderr)")
            #expect(audit.stdout.contains("is a \\\"\(type)\\\" (\\\"\(text)\\\"), not a Boolean"), "\(audit.stdout)")
        }
    }
}
