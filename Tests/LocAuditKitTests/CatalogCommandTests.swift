import Foundation
import Testing
@testable import LocAuditUnitTests
@testable import LocAuditModel

/// `locaudit catalog show` and `locaudit catalog coverage`, the binary.
@Suite(.tags(.endToEnd), .ownThreads) struct CatalogCommandTests {
    @Test("catalog show marks every pattern real, binary or reference with its source")
    func provenance() throws {
        let result = try run(locauditExecutable, ["catalog", "show"])
        #expect(result.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let patterns = try #require(json["patterns"] as? [[String: Any]])
        for pattern in patterns {
            let provenance = pattern["provenance"] as? [String: String]
            #expect(["real", "binary", "reference"].contains(provenance?["evidence"] ?? ""), "\(pattern["id"] ?? "?")")
            #expect((provenance?["source"]).map { !$0.isEmpty } == true, "\(pattern["id"] ?? "?")")
        }
        let evidence = Dictionary(uniqueKeysWithValues: patterns.map { ($0["id"] as! String, ($0["provenance"] as? [String: String])?["evidence"]) })
        #expect(evidence["system.app-state"] == "real")
        #expect(evidence["system.blue-bar"] == "reference")
        // A format string of Apple's code with no pasted line is binary, not real.
        #expect(evidence["app.resumed"] == "binary")
        #expect(evidence["system.prompt-response.allow-once"] == "binary")
    }

    @Test("catalog coverage counts each family per device and says what a missing family leaves unjudged")
    func coverage() throws {
        let ws = try Workspace()
        let log = try ws.write("wridz-2023-02-20.ndjson", try RealFixture.ndjson(
            try RealFixture.console(RealFixture.wridz, date: "2023-02-20", lines: Array(1...10))))
        let report = try ws.ingest([log]) { $0.device = DeviceFacts(udid: "wridz-iphone") }
        #expect(report.failed == 0)
        let json = try run(locauditExecutable, ["catalog", "coverage", "--db", ws.store.path, "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let devices = try #require(object["devices"] as? [[String: Any]])
        #expect(devices.first?["device"] as? String == "wridz-iphone")
        let families = try #require(devices.first?["families"] as? [String: Int])
        #expect(families == ["app": 1, "app-state": 1, "relaunches": 0, "status-changes": 0, "accuracy-changes": 0, "daemon": 1,
                             "indicator": 0, "prompts": 0, "answers": 0, "installs": 0, "privacy-report": 0, "system": 0])
        let text = try run(locauditExecutable, ["catalog", "coverage", "--db", ws.store.path])
        #expect(text.status == 0)
        #expect(text.stdout.contains("indicator            0  none: missing-blue-bar and unexpected-blue-bar cannot be judged"), "\(text.stdout)")
        let missing = try run(locauditExecutable, ["catalog", "coverage", "--db", ws.dir.appendingPathComponent("none.sqlite").path])
        #expect(missing.status == 3)
    }
}
