import Foundation
import Testing
@testable import LocAuditUnitTests

/// Evidence paths stay true after `run --archive` moves a file (issue 25): the run's own
/// report, a later `report`, and `sources` cite the file where it is now.
@Suite(.tags(.endToEnd), .ownThreads) struct ArchivedEvidenceTests {
    @Test("after run --archive, the run's report, a later report and sources cite the archived files, which exist")
    func evidenceFollowsTheArchive() throws {
        let ws = try Workspace()
        for name in ["qa-iphone7-10-2026-11-20.log.gz", "qa-iphone7-10-2026-11-20.ideviceinfo.txt"] {
            try ws.write("inbox/" + name, [UInt8](Data(contentsOf: packageRoot.appendingPathComponent("samples/logs/" + name))))
        }
        let db = ws.dir.appendingPathComponent("night.sqlite").path
        let archive = ws.dir.appendingPathComponent("archive").path
        let result = try run(locauditExecutable, ["run", "--inbox", ws.dir.appendingPathComponent("inbox").path, "--db", db, "--settle", "0",
                                                  "--archive", archive, "--report", "json:\(ws.dir.path)/night.json"])
        #expect(result.status == 1, "\(result.stderr)")
        func files(_ json: String) throws -> [String] {
            let doc = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            return (doc["findings"] as? [[String: Any]] ?? []).flatMap { ($0["evidence"] as? [[String: Any]] ?? []).compactMap { $0["file"] as? String } }
        }
        let night = try files(String(contentsOfFile: ws.dir.path + "/night.json", encoding: .utf8))
        let later = try files(run(locauditExecutable, ["report", "--db", db, "--format", "json"]).stdout)
        #expect(!night.isEmpty && !later.isEmpty)
        for file in night + later {
            #expect(file.hasPrefix(archive + "/"), "\(file)")
            #expect(FileManager.default.fileExists(atPath: file), "\(file)")
        }
        #expect(try WatchTests.count(db, "SELECT count(*) FROM sources WHERE path LIKE '%/inbox/%'") == 0)
    }
}
