import Foundation
import Testing
@testable import LocAuditIngest
@testable import LocAuditModel
@testable import LocAuditNormalise
@testable import LocAuditUnitTests

/// HostileInputTests' checks that start a program (split from HostileInputTests.swift, whose other checks run in the test process).
@Suite(.tags(.endToEnd), .ownThreads) struct HostileInputEndToEndTests {
    /// A binary Info.plist whose `NSLocationDefaultAccuracyReduced` is `c = [c] * 10`, `levels`
    /// deep: plistlib writes each list once and refers to it ten times (238 bytes for nine
    /// levels, a billion objects once expanded into a tree).
    static func plistBomb(levels: Int) throws -> [UInt8] {
        let script = """
            import plistlib, sys
            c = "bomb"
            for _ in range(\(levels)): c = [c] * 10
            open(sys.argv[1], "wb").write(plistlib.dumps({"CFBundleIdentifier": "com.example.bomb",
                "NSLocationDefaultAccuracyReduced": c}, fmt=plistlib.FMT_BINARY))
            """
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("locaudit-bomb-\(UUID().uuidString).plist").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try run("/usr/bin/env", ["python3", "-c", script, path])
        try #require(result.status == 0, "python3: \(result.stderr)")
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Binary Info.plists holding a set (marker 0xCn), which Foundation on Linux crashed on.
    static let plistsWithASet: [(String, [UInt8])] = {
        // samples/apps/com.example.runner.plist with its top dictionary (0xDF) turned into a set (0xCF).
        var runner = (try? [UInt8](Data(contentsOf: packageRoot.appendingPathComponent("samples/apps/com.example.runner.plist")))) ?? []
        if runner.count > 40, runner[8] == 0xDF { runner[8] = 0xCF } else { runner = [] }
        // {CFBundleIdentifier: "com.example.set", UIBackgroundModes: {set of "location"}}
        let valueSet = HostileInputTests.bplist([[0xD2, 1, 2, 3, 4], HostileInputTests.ascii("CFBundleIdentifier"), HostileInputTests.ascii("UIBackgroundModes"),
                               HostileInputTests.ascii("com.example.set"), [0xC1, 5], HostileInputTests.ascii("location")])
        return [("top-set.plist", runner), ("value-set.plist", valueSet)]
    }()

    /// Runs the real binary under a 3 GB address-space limit: a bound that stops holding fails
    /// the test (killed), instead of taking the memory of the machine.
    func runBounded(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try run("/usr/bin/prlimit", ["--as=\(3 << 30)", "--", locauditExecutable] + arguments)
    }

    @Test func theRealBinaryIngestsADeeplyNestedFileAndExitsNormally() throws {
        let ws = try Workspace()
        let path = try ws.write("deep.ndjson", try #require(HostileInputTests.deepFiles.first).1)
        let db = ws.dir.appendingPathComponent("bin.sqlite").path
        let result = try run(locauditExecutable, ["ingest", "--db", db, path])
        #expect(result.status == 0, "stderr: \(result.stderr.prefix(400))")
        #expect(result.stdout.contains("malformed 1 (line 2)"))
        #expect(result.stdout.contains("1 ingested, 0 already ingested, 0 failed; 2 events"))
    }

    @Test("a binary Info.plist holding a set is refused with a sentence, not a crash", arguments: HostileInputEndToEndTests.plistsWithASet.map(\.0))
    func anInfoPlistWithASet(name: String) throws {
        let ws = try Workspace()
        let bytes = try #require(HostileInputEndToEndTests.plistsWithASet.first { $0.0 == name }).1
        try #require(bytes.count > 40, "the sample's top object is no longer a dictionary at offset 8")
        let path = try ws.write(name, bytes)
        let db = ws.dir.appendingPathComponent("bin.sqlite").path
        let result = try run(locauditExecutable, ["ingest", "--db", db, path])
        #expect(result.status == 1, "stderr: \(result.stderr.prefix(400))")
        let output = result.stdout + result.stderr
        #expect(output.contains("FAILED") && output.contains(name) && output.contains("a set"), "\(output.prefix(600))")
        #expect(!output.contains("Error Domain=") && !output.contains("NSCocoaErrorDomain"))
    }

    @Test("a binary Info.plist of shared references (nine levels of c = [c] * 10) is refused naming the file; the log beside it is stored",
          arguments: ["run", "ingest"])
    func anInfoPlistBomb(command: String) throws {
        let ws = try Workspace()
        let bomb = try Self.plistBomb(levels: 9)
        #expect(bomb.count < 400, "\(bomb.count) bytes")
        let inbox = ws.dir.appendingPathComponent("inbox")
        let plist = try ws.write("inbox/apps/bomb.plist", bomb)
        for name in ["qa-iphone12-14-2026-11-20.log", "qa-iphone12-14-2026-11-20.ideviceinfo.txt"] {
            try ws.write("inbox/" + name, [UInt8](Data(contentsOf: packageRoot.appendingPathComponent("samples/logs/" + name))))
        }
        let db = ws.dir.appendingPathComponent("bin.sqlite").path
        let result = command == "run"
            ? try runBounded(["run", "--inbox", inbox.path, "--db", db, "--settle", "0", "--archive", ws.dir.appendingPathComponent("archive").path])
            : try runBounded(["ingest", "--db", db, inbox.path + "/qa-iphone12-14-2026-11-20.log", plist])
        #expect(result.status == (command == "run" ? 5 : 1), "stderr: \(result.stderr.suffix(600))")
        let output = result.stdout + result.stderr
        #expect(output.contains("bomb.plist: refused: its objects, shared by reference, would expand to over 100,000 objects"), "\(output.prefix(1200))")
        #expect(try WatchTests.count(db, "SELECT count(*) FROM app_versions") == 0, "nothing of the plist is stored")
        #expect(try WatchTests.count(db, "SELECT count(*) FROM sources WHERE container = 'info-plist'") == 0)
        #expect(try WatchTests.count(db, "SELECT count(*) FROM sources WHERE container NOT IN ('info-plist', 'ideviceinfo')") == 1, "the log beside it is stored")
        #expect(try WatchTests.count(db, "SELECT count(*) FROM events") > 0)
        if command == "run" { #expect(FileManager.default.fileExists(atPath: plist), "a refused file stays in the inbox") }
    }

    @Test("what a binary plist may cost: under the bounds it reads; past them, or holding itself, it is refused")
    func plistCostBounds() throws {
        try PlistCost.check(try Self.plistBomb(levels: 4)) // 11,113 objects
        #expect(throws: PlistCost.Refusal.self) { try PlistCost.check(try Self.plistBomb(levels: 5)) }
        // A 10,000-byte string referred to 2,000 times: few objects, 20 MB of text.
        let array: [UInt8] = [0xAF, 0x11, 0x07, 0xD0] + [UInt8](repeating: 1, count: 2_000)
        let long: [UInt8] = [0x5F, 0x11, 0x27, 0x10] + [UInt8](repeating: 0x61, count: 10_000)
        #expect(throws: PlistCost.Refusal.self) { try PlistCost.check(HostileInputTests.bplist([array, long])) }
        // An array that holds itself.
        #expect(throws: PlistCost.Refusal.self) { try PlistCost.check(HostileInputTests.bplist([[0xA1, 0]])) }
        // The fuzz seed (scripts/fuzz.sh) is the bomb.
        let seed = try Data(contentsOf: packageRoot.appendingPathComponent("fuzz/seeds/info-plist-bomb.plist"))
        #expect(throws: PlistCost.Refusal.self) { try PlistCost.check([UInt8](seed)) }
        // The samples' Info.plists read.
        for name in ["com.example.runner.plist", "com.example.tracker.plist"] {
            try PlistCost.check([UInt8](Data(contentsOf: packageRoot.appendingPathComponent("samples/apps/" + name))))
        }
    }
}
