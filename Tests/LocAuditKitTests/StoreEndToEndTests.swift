import Foundation
import Testing
@testable import LocAuditModel
@testable import LocAuditUnitTests

/// StoreTests' checks that start a program (split from StoreTests.swift, whose other checks run in the test process).
@Suite(.tags(.endToEnd), .ownThreads) struct StoreEndToEndTests {
    @Test func twoIngestProcessesOnOneDatabaseBothFinishAndCountNothingTwice() throws {
        let ws = try Workspace()
        var files: [String] = []
        for d in 1...6 { files.append(try ws.writeGzip("d\(d).log.gz", StoreTests.day(d, count: 300))) }
        let db = ws.store.path
        let exe = locauditExecutable
        // Both runs get every file, in opposite orders, at the same time.
        let results = [files, files.reversed()].map { list in
            let p = Process()
            p.executableURL = URL(fileURLWithPath: exe)
            p.arguments = ["ingest", "--db", db, "--quiet", "--year", "2026", "--device", "D"] + list
            p.standardOutput = FileHandle.nullDevice
            return p
        }
        for p in results { try p.run() }
        for p in results { p.waitUntilExit() }
        #expect(results.map(\.terminationStatus) == [0, 0])
        #expect(try ws.count("SELECT count(*) FROM sources") == 6)
        #expect(try ws.count("SELECT count(*) FROM events") == 6 * 300)
        #expect(try ws.count("SELECT count(*) FROM (SELECT content_sha256 FROM sources GROUP BY 1 HAVING count(*) > 1)") == 0)
    }
}

@Suite(.tags(.endToEnd), .ownThreads) struct CommandLineTests {
    @Test func usageErrorsExitWith2AndSayWhatToDo() throws {
        let result = try run(locauditExecutable, ["ingest", "--tz", "Mars/Olympus", "x.log"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("Unknown time zone"))
        #expect(try run(locauditExecutable, ["ingest"]).status == 2)
    }

    @Test func standardInputIsIngestedAndTheJSONSummaryIsForScripts() throws {
        let ws = try Workspace()
        let gz = try gzip(Array(StoreTests.day(12).utf8))
        let result = try run(locauditExecutable, ["ingest", "--db", ws.store.path, "--json", "--year", "2026", "-"], stdin: gz)
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let files = try #require(json?["files"] as? [[String: Any]])
        #expect(files.first?["outcome"] as? String == "ingested")
        #expect(files.first?["events"] as? Int == 40)
        #expect(files.first?["container"] as? String == "idevicesyslog")
    }

    @Test func aFailedFileExits1AndNothingToReadExits3() throws {
        let ws = try Workspace()
        let cut = try ws.write("cut.log.gz", Array(try gzip(Array(StoreTests.day(12).utf8)).prefix(100)))
        let failed = try run(locauditExecutable, ["ingest", "--db", ws.store.path, cut])
        #expect(failed.status == 1)
        #expect(failed.stdout.contains("FAILED") && failed.stdout.contains("cut.log.gz"))
        let emptyDir = ws.dir.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: emptyDir, withIntermediateDirectories: true)
        #expect(try run(locauditExecutable, ["ingest", "--db", ws.store.path, emptyDir.path]).status == 3)
    }

    @Test func catalogTestChecksAUserFile() throws {
        let ws = try Workspace()
        #expect(try run(locauditExecutable, ["catalog", "test"], environment: ["LOCAUDIT_CATALOG": ""]).status == 0)
        let bad = try ws.write("c.json", #"{"patterns": [{"id": "u", "kind": "crash", "scope": "app", "contains": "boom", "samples": [{"message": "no match", "expect": {}}]}]}"#)
        let result = try run(locauditExecutable, ["catalog", "test", bad])
        #expect(result.status == 1)
        #expect(result.stdout.contains("FAIL u sample 1: not recognised"))
    }
}
