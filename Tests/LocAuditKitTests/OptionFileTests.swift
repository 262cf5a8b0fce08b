import ArgumentParser
import Foundation
import Testing
@testable import LocAuditCommands
@testable import LocAuditModel
@testable import LocAuditRules
@testable import LocAuditStore
@testable import LocAuditUnitTests

/// Files named by options that cannot be read: a sentence naming the file and saying what
/// to do, exit 2, and nothing recorded; never a Foundation error.
@Suite struct OptionFileTests {
    @Test("audit --baseline that is missing, a folder or not a baseline: exit 2, a sentence naming it, no audit recorded")
    func baselineFiles() throws {
        let ws = try Workspace()
        let db = try StoreErrorTests.realStore(ws)
        let runs = try ws.count("SELECT count(*) FROM audit_runs")
        let notBaseline = try ws.write("not-a-baseline.json", "{\"a\": 1}")
        let missingFolder = ws.dir.appendingPathComponent("no-such-folder").path
        let cases: [(arguments: [String], says: [String])] = [
            (["--baseline", missingFolder + "/b.json"], ["cannot read the baseline \(missingFolder)/b.json", "no such file"]),
            (["--baseline", ws.dir.path], ["cannot read the baseline \(ws.dir.path)", "folder"]),
            (["--baseline", notBaseline], ["cannot read the baseline \(notBaseline)", "not a locaudit baseline"]),
        ]
        for (arguments, phrases) in cases {
            let result = try run(locauditExecutable, ["audit", "--db", db, "--quiet"] + arguments)
            StoreErrorTests.expect(result, arguments.joined(separator: " "), exit: 2, saying: phrases)
        }
        #expect(try ws.count("SELECT count(*) FROM audit_runs") == runs, "no audit was recorded")
    }

    @Test("a catalog file that cannot be read is a usage error (exit 2) for run as for ingest")
    func catalogFile() throws {
        let ws = try Workspace()
        let missing = ws.dir.appendingPathComponent("missing-catalog.json").path
        let inbox = try StoreErrorTests.inbox(ws)
        for arguments in [["ingest", "--db", ws.store.path, "--quiet", "--catalog", missing, StoreErrorTests.log],
                          ["run", "--db", ws.store.path, "--inbox", inbox, "--quiet", "--catalog", missing]] {
            StoreErrorTests.expect(try run(locauditExecutable, arguments), arguments[0], exit: 2, saying: [missing, "cannot read the catalog file"])
        }
        #expect(try ws.count("SELECT count(*) FROM sources") == 0)
    }
}
