import Foundation
import Testing
@testable import LocAuditUnitTests

/// Evidence shows the whole cause (issue 25): a finding that rests on an earlier session cites
/// that session's deciding line; a configuration finding cites lines of its own device only.
@Suite(.tags(.endToEnd), .ownThreads) struct FindingEvidenceTests {
    func findings(_ db: String) throws -> [[String: Any]] {
        let json = try run(locauditExecutable, ["audit", "--db", db, "--report", "json", "--no-config"]).stdout
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        return doc["findings"] as? [[String: Any]] ?? []
    }

    func lines(_ finding: [String: Any]) -> [(file: String, line: Int)] {
        (finding["evidence"] as? [[String: Any]] ?? []).compactMap { e in
            (e["file"] as? String).map { ($0, e["line"] as? Int ?? 0) }
        }
    }

    @Test("allow-once-persisting cites the Allow Once grant's line in the earlier session")
    func allowOnceCitesTheGrant() throws {
        let ws = try Workspace()
        let db = ws.dir.appendingPathComponent("s.sqlite").path
        for name in ["qa-iphone11-13-2026-11-20.log.gz", "qa-iphone11-13-2026-11-20.ideviceinfo.txt"] {
            try ws.write("logs/" + name, [UInt8](Data(contentsOf: packageRoot.appendingPathComponent("samples/logs/" + name))))
        }
        _ = try run(locauditExecutable, ["ingest", ws.dir.appendingPathComponent("logs").path, "--db", db, "--quiet"])
        let finding = try #require(try findings(db).first { $0["rule"] as? String == "allow-once-persisting" })
        // Line 12: `#Authorization changed … "status":"AuthorizedWhenInUse", "reason":"Prompt", … "temporary":1` at 09:05, two hours before the session.
        #expect(lines(finding).map(\.line).contains(12), "\(lines(finding))")
        #expect(finding["sessionStart"] as? String == "2026-11-20T10:30:40.000000Z")
    }

    @Test("a configuration finding seen on two devices of one iOS version cites the lines of its own device only")
    func configurationCitesItsDevice() throws {
        let ws = try Workspace()
        let db = ws.dir.appendingPathComponent("s.sqlite").path
        let log = "qa-iphone14pro-17-2026-11-20.log"
        let text = try String(contentsOf: packageRoot.appendingPathComponent("samples/logs/" + log), encoding: .utf8)
        let info = try String(contentsOf: packageRoot.appendingPathComponent("samples/logs/qa-iphone14pro-17-2026-11-20.ideviceinfo.txt"), encoding: .utf8)
        try ws.write("a/" + log, text)
        try ws.write("a/qa-iphone14pro-17-2026-11-20.ideviceinfo.txt", info)
        // A second iOS 17 device with the same app and the same refusal (other bytes: another export).
        try ws.write("b/qa-iphone15-17-2026-11-20.log", text + "\n")
        try ws.write("b/qa-iphone15-17-2026-11-20.ideviceinfo.txt", info
            .replacingOccurrences(of: "00008120-0002FD5630D7CF8D", with: "00008120-0000000000000B02")
            .replacingOccurrences(of: "qa-iphone14pro-17", with: "qa-iphone15-17"))
        _ = try run(locauditExecutable, ["ingest", ws.dir.appendingPathComponent("a").path, ws.dir.appendingPathComponent("b").path,
                                         packageRoot.appendingPathComponent("samples/apps").path, "--db", db, "--quiet"])
        let configuration = try findings(db).filter { $0["sessionStart"] is NSNull && $0["rule"] as? String == "missing-usage-description" }
        #expect(configuration.count == 1, "\(configuration)")
        for finding in configuration {
            let device = try #require(finding["device"] as? String)
            let files = Set(lines(finding).map(\.file).filter { !$0.hasSuffix(".plist") })
            #expect(!files.isEmpty)
            let folder = device == "00008120-0002FD5630D7CF8D" ? "/a/" : "/b/"
            #expect(files.allSatisfy { $0.contains(folder) }, "\(device): \(files)")
        }
    }
}
