import Foundation
import Testing
@testable import LocAuditUnitTests
@testable import LocAuditModel

/// The verdict of rules model v2 through the real binary: PARTIAL when checks were left
/// unevaluated, `--require-evidence` making that exit 3, `--background-grace` moving what is
/// in use, and the in-use lane of the HTML timeline.
@Suite(.tags(.endToEnd), .ownThreads) struct VerdictTests {
    /// A store holding the samples' apps and one sample log of samples/audit.
    static func store(_ log: String) throws -> (Workspace, String) {
        let ws = try Workspace()
        let db = ws.dir.appendingPathComponent("v.sqlite").path
        let ingested = try run(locauditExecutable, ["ingest", "--db", db, packageRoot.appendingPathComponent("samples/apps").path,
                                                    packageRoot.appendingPathComponent("samples/audit/\(log)").path])
        #expect(ingested.status == 0, "\(ingested.stderr)")
        return (ws, db)
    }

    @Test("checks left unevaluated make PARTIAL (exit 0) with the share and the missing facts; --require-evidence makes it exit 3")
    func partialAndRequiredEvidence() throws {
        // The device's logs carry no indicator line: missing-blue-bar cannot be judged there.
        let (ws, db) = try Self.store("delivery-while-paused.log")
        let audit = try run(locauditExecutable, ["audit", "--db", db])
        #expect(audit.status == 0)
        #expect(audit.stdout.contains("\nPARTIAL: ") && audit.stdout.contains("1 finding below high (1 low); missing: indicator lines"))
        let json = try run(locauditExecutable, ["audit", "--db", db, "--format", "json"])
        let doc = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(doc?["verdict"] as? String == "partial")
        let coverage = doc?["coverage"] as? [String: Any]
        let share = coverage?["evaluatedShare"] as? Double
        #expect(share.map { $0 > 0 && $0 < 1 } == true)
        #expect((coverage?["missing"] as? [[String: Any]])?.first?["fact"] as? String == "indicator lines")
        #expect(coverage?["evaluated"] != nil && coverage?["notEvaluable"] != nil, "the keys of version 1 stay")

        let required = try run(locauditExecutable, ["audit", "--db", db, "--require-evidence", "missing-blue-bar"])
        #expect(required.status == 3)
        #expect(required.stderr.contains("'missing-blue-bar' left unevaluated"))
        #expect(try run(locauditExecutable, ["audit", "--db", db, "--require-evidence", "delivery-while-paused"]).status == 0)
        #expect(try run(locauditExecutable, ["audit", "--db", db, "--require-evidence", "all"]).status == 3)
        let unknown = try run(locauditExecutable, ["audit", "--db", db, "--require-evidence", "no-such-rule"])
        #expect(unknown.status == 2 && unknown.stderr.contains("'no-such-rule'"))
        _ = ws
    }

    @Test("--background-grace moves what is in use: a delivery a minute after leaving the foreground is in use with a 120 s grace")
    func backgroundGrace() throws {
        let (ws, db) = try Self.store("background-delivery-without-capability.log")
        let standard = try run(locauditExecutable, ["audit", "--db", db, "--rule", "background-delivery-without-capability"])
        #expect(standard.status == 1)
        #expect(standard.stdout.contains("while the app was not in use: in the background for"))
        let long = try run(locauditExecutable, ["audit", "--db", db, "--rule", "background-delivery-without-capability",
                                               "--background-grace", "120"])
        #expect(long.status == 0)
        #expect(!long.stdout.contains("background-delivery-without-capability ["))
        let bad = try run(locauditExecutable, ["audit", "--db", db, "--background-grace", "-1"])
        #expect(bad.status == 2 && bad.stderr.contains("--background-grace"))
        _ = ws
    }

    @Test("the HTML timeline draws in use as a lane of its own: in use in the foreground, not in use past the grace")
    func inUseLane() throws {
        let (ws, db) = try Self.store("background-delivery-without-capability.log")
        let page = ws.dir.appendingPathComponent("audit.html").path
        _ = try run(locauditExecutable, ["audit", "--db", db, "--report", "html:\(page)"])
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(html.contains(">in use</text>"))
        #expect(html.contains("in use (foreground)"))
        #expect(html.contains("not in use"))
        #expect(html.contains("use-not-in-use"))
    }
}
