import Foundation
import Testing
@testable import LocAuditUnitTests

/// The project's `.locaudit.yml` (issue 25): found from the working directory upward or given
/// by --config; fail-on, skipped rules, rule settings, report targets and suppressions. A
/// suppressed finding is reported with its reason and does not fail the run; an expired one
/// warns and counts again; an unknown key or rule is exit 2 naming the line.
@Suite(.tags(.endToEnd), .ownThreads) struct ConfigTests {
    /// A store with the iOS 10 sample: one critical finding, background-flag-without-capability of com.example.tracker.
    func store(_ ws: Workspace) throws -> String {
        let db = ws.dir.appendingPathComponent("s.sqlite").path
        for name in ["qa-iphone7-10-2026-11-20.log.gz", "qa-iphone7-10-2026-11-20.ideviceinfo.txt"] {
            try ws.write("logs/" + name, [UInt8](Data(contentsOf: packageRoot.appendingPathComponent("samples/logs/" + name))))
        }
        _ = try run(locauditExecutable, ["ingest", ws.dir.appendingPathComponent("logs").path, "--db", db, "--quiet"])
        return db
    }

    func suppression(expires: String) -> String {
        """
        fail-on: high
        suppressions:
          - rule: background-flag-without-capability
            app: com.example.tracker
            device: qa-iphone7-10
            ios: "10...11"
            reason: "FB13579: the crash is iOS's own"
            expires: \(expires)

        """
    }

    @Test("a suppressed finding is reported as suppressed with its reason, in text and JSON, and does not fail the run; found from a parent folder")
    func suppressedDoesNotFail() throws {
        let ws = try Workspace()
        let db = try store(ws)
        try ws.write(".locaudit.yml", suppression(expires: "2099-06-30"))
        let below = ws.dir.appendingPathComponent("project/sub")
        try FileManager.default.createDirectory(at: below, withIntermediateDirectories: true)
        let text = try run(locauditExecutable, ["audit", "--db", db], directory: below)
        #expect(text.status == 0, "\(text.stdout)\(text.stderr)")
        #expect(text.stdout.contains("suppressed until 2099-06-30"), "\(text.stdout)")
        #expect(text.stdout.contains("FB13579: the crash is iOS's own"))
        #expect(text.stdout.contains("1 suppressed (not failing)"), "\(text.stdout)")
        let json = try run(locauditExecutable, ["audit", "--db", db, "--report", "json"], directory: below)
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let finding = try #require((doc["findings"] as? [[String: Any]])?.first { $0["rule"] as? String == "background-flag-without-capability" })
        let note = try #require(finding["suppressed"] as? [String: Any])
        #expect(note["reason"] as? String == "FB13579: the crash is iOS's own")
        #expect(note["expires"] as? String == "2099-06-30")
        // Without the config (or with --no-config) the finding fails the run.
        #expect(try run(locauditExecutable, ["audit", "--db", db, "--no-config", "--quiet"], directory: below).status == 1)
        // report marks it again from the config.
        let report = try run(locauditExecutable, ["report", "--db", db], directory: below)
        #expect(report.stdout.contains("suppressed until 2099-06-30"), "\(report.stdout)")
    }

    @Test("a suppressed finding is a SARIF result with an external suppression (valid by the official schema) and a skipped JUnit case with its reason",
          .needsJSONSchema)
    func suppressedInCIFormats() throws {
        let ws = try Workspace()
        let db = try store(ws)
        let config = try ws.write("s.yml", suppression(expires: "2099-06-30"))
        let result = try run(locauditExecutable, ["audit", "--db", db, "--config", config, "--report", "sarif:out.sarif", "--report", "junit:out.xml"], directory: ws.dir)
        #expect(result.status == 0, "\(result.stderr)")
        let sarif = ws.dir.appendingPathComponent("out.sarif").path
        let validation = try ReportFormatsTests.SchemaValidator.errors(sarif)
        #expect(validation.status == 0, "\(validation.output)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: sarif))) as? [String: Any])
        let results = ((doc["runs"] as? [[String: Any]])?.first?["results"] as? [[String: Any]]) ?? []
        let suppressed = try #require(results.first { $0["ruleId"] as? String == "background-flag-without-capability" })
        let suppressions = try #require(suppressed["suppressions"] as? [[String: Any]])
        #expect(suppressions.first?["kind"] as? String == "external")
        #expect((suppressions.first?["justification"] as? String)?.contains("FB13579") == true)
        let junit = try String(contentsOf: ws.dir.appendingPathComponent("out.xml"), encoding: .utf8)
        #expect(!junit.contains("<failure"), "\(junit)")
        #expect(junit.contains("<skipped message=\"suppressed until 2099-06-30"), "\(junit)")
    }

    @Test("an expired suppression warns, naming its line, and the finding counts again")
    func expiredCountsAgain() throws {
        let ws = try Workspace()
        let db = try store(ws)
        let config = try ws.write("old.yml", suppression(expires: "2020-01-31"))
        let result = try run(locauditExecutable, ["audit", "--db", db, "--config", config])
        #expect(result.status == 1)
        #expect(result.stderr.contains("old.yml:3: the suppression of background-flag-without-capability for com.example.tracker on qa-iphone7-10 expired on 2020-01-31"), "\(result.stderr)")
        #expect(!result.stdout.contains("suppressed until"))
    }

    @Test("a suppression for another device or another iOS range does not cover the finding")
    func scopedSuppression() throws {
        let ws = try Workspace()
        let db = try store(ws)
        let otherDevice = try ws.write("a.yml", suppression(expires: "2099-01-01").replacingOccurrences(of: "device: qa-iphone7-10", with: "device: qa-iphone6-8"))
        #expect(try run(locauditExecutable, ["audit", "--db", db, "--config", otherDevice, "--quiet"]).status == 1)
        let otherIOS = try ws.write("b.yml", suppression(expires: "2099-01-01").replacingOccurrences(of: "\"10...11\"", with: "\"11...14\""))
        #expect(try run(locauditExecutable, ["audit", "--db", db, "--config", otherIOS, "--quiet"]).status == 1)
        let byUDID = try ws.write("c.yml", suppression(expires: "2099-01-01").replacingOccurrences(of: "device: qa-iphone7-10", with: "device: f19e10f790457b49ae65cbc96c1dac19751f4b05"))
        #expect(try run(locauditExecutable, ["audit", "--db", db, "--config", byUDID, "--quiet"]).status == 0)
    }

    @Test("the issue's example works as written; fail-on, skip-rules and reports come from the config, and flags win over it")
    func settingsAndReports() throws {
        let ws = try Workspace()
        let db = try store(ws)
        let example = try ws.write("example.yml", """
            fail-on: high
            suppressions:
              - rule: missing-blue-bar
                app: com.example.runner
                reason: "FB13579: iOS 13.7 shows no pill on this device model"
                expires: 2027-06-30

            """)
        let plain = try run(locauditExecutable, ["audit", "--db", db, "--config", example, "--quiet"])
        #expect(plain.status == 1, "the critical finding is not suppressed by it \(plain.stderr)")
        let skip = try ws.write("skip.yml", "fail-on: critical\nskip-rules: [background-flag-without-capability]\nreports: [\"json:\(ws.dir.path)/out.json\"]\n")
        let skipped = try run(locauditExecutable, ["audit", "--db", db, "--config", skip])
        #expect(skipped.status == 0, "\(skipped.stderr)")
        let out = try String(contentsOfFile: ws.dir.path + "/out.json", encoding: .utf8)
        #expect(!out.contains("\"rule\" : \"background-flag-without-capability\""), "skipped by the config")
        let failOn = try ws.write("failon.yml", "fail-on: critical\n")
        #expect(try run(locauditExecutable, ["audit", "--db", db, "--config", failOn, "--quiet"]).status == 1, "a critical finding")
        let lenient = try ws.write("lenient.yml", "fail-on: critical\nskip-rules: [background-flag-without-capability]\n")
        #expect(try run(locauditExecutable, ["audit", "--db", db, "--config", lenient, "--fail-on", "low", "--quiet"]).status == 0)
    }

    @Test("an unknown key, rule, value or report in the config is exit 2 naming the file and line, before anything is audited", arguments: [
        ("fail-on: high\nsupressions: []\n", ":2: unknown key 'supressions' (did you mean 'suppressions'?)"),
        ("suppressions:\n  - rule: missing-blue-barr\n    app: a\n    reason: r\n", ":2: unknown rule 'missing-blue-barr' (did you mean 'missing-blue-bar'?)"),
        ("suppressions:\n  - rule: missing-blue-bar\n    app: a\n    reason: r\n    expire: 2027-01-01\n", ":5: unknown key 'expire' in a suppression"),
        ("suppressions:\n  - rule: missing-blue-bar\n    app: a\n", ":2: a suppression needs reason:"),
        ("fail-on: severe\n", ":1: fail-on takes"),
        ("suppressions:\n  - rule: missing-blue-bar\n    app: a\n    reason: r\n    expires: 2027-13-01\n", ":5: expires takes a day"),
        ("reports: [\"pdf:out.pdf\"]\n", ":1: 'pdf:out.pdf' is not a report"),
        ("fail-on: [high\n", "is not YAML"),
    ])
    func refused(yaml: String, message: String) throws {
        let ws = try Workspace()
        let db = try store(ws)
        let config = try ws.write("bad.yml", yaml)
        let result = try run(locauditExecutable, ["audit", "--db", db, "--config", config])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("bad.yml" + message) || (message.hasPrefix("is not") && result.stderr.contains(message)), "\(result.stderr)")
        #expect(try WatchTests.count(db, "SELECT count(*) FROM audit_runs") == 0, "nothing audited")
    }
}
