import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import LocAuditUnitTests
@testable import LocAuditModel
@testable import LocAuditRules
@testable import LocAuditReport

/// What a finding asks of people, and the formats CI tools read (issue 25), through the real
/// binary where a user sees them: who owns each rule and what to do, device names and app
/// versions in every format, SARIF valid against the official schema, JUnit names that stay
/// from night to night, stable codes for not-evaluable reasons.
@Suite(.tags(.endToEnd), .ownThreads) struct ReportFormatsTests {
    /// A store holding the missing-blue-bar sample (device `qa-iphone6s-12`, Runner 3.2.0)
    /// for one night or two: the second night the same behaviour by another process, a day later.
    final class Nights: Sendable {
        let workspace: Workspace
        var db: String { workspace.dir.appendingPathComponent("nights.sqlite").path }

        init() throws { workspace = try Workspace() }

        /// Writes night `n` (1 or 2) into the inbox and ingests it with the binary.
        func ingest(night n: Int) throws {
            let log = try String(contentsOf: packageRoot.appendingPathComponent("samples/audit/missing-blue-bar.log"), encoding: .utf8)
            let info = try String(contentsOf: packageRoot.appendingPathComponent("samples/audit/missing-blue-bar.ideviceinfo.txt"), encoding: .utf8)
            let day = 19 + n
            let text = n == 1 ? log : log.replacingOccurrences(of: "Nov 20 ", with: "Nov \(day) ")
                .replacingOccurrences(of: "[713]", with: "[913]").replacingOccurrences(of: "\"pid\":713", with: "\"pid\":913")
            let path = try workspace.write("night\(n)/runner-2026-11-\(day).log", text)
            try workspace.write("night\(n)/runner-2026-11-\(day).ideviceinfo.txt", info)
            let plist = packageRoot.appendingPathComponent("samples/apps/com.example.runner.plist").path
            let result = try run(locauditExecutable, ["ingest", "--db", db, "--quiet", "--year", "2026", plist, path])
            #expect(result.status == 0, "ingest of night \(n): \(result.stderr)")
        }

        /// `locaudit audit` with these reports written into the workspace; its exit status.
        @discardableResult
        func audit(_ reports: [String], _ extra: [String] = []) throws -> Int32 {
            var arguments = ["audit", "--db", db]
            for r in reports { arguments += ["--report", r] }
            let result = try run(locauditExecutable, arguments + extra, directory: workspace.dir)
            #expect(result.status == 0 || result.status == 1, "audit exited \(result.status): \(result.stderr)")
            return result.status
        }

        func read(_ name: String) throws -> String {
            try String(contentsOf: workspace.dir.appendingPathComponent(name), encoding: .utf8)
        }
    }

    // MARK: Owner and what to do

    @Test("locaudit rules explain says who owns a finding, what to do and where Apple says so; no seed file is cited", arguments: ["missing-blue-bar", "missing-usage-description"])
    func explainSaysWhatToDo(rule: String) throws {
        let result = try run(locauditExecutable, ["rules", "explain", rule])
        #expect(result.status == 0)
        let description = try #require(RuleRegistry.description(of: rule))
        #expect(result.stdout.contains("Owner: \(description.owner.label) (\(description.owner.rawValue))\n"))
        #expect(result.stdout.contains("What to do: \(description.whatToDo)\n"))
        for source in description.sources { #expect(result.stdout.contains("  \(source)\n")) }
        #expect(!result.stdout.contains("History"), "the seed notes are no reference a user can open")
        if description.owner == .iOS {
            #expect(result.stdout.contains("https://feedbackassistant.apple.com"))
        }
    }

    // MARK: Device names, app versions, fingerprints, grouping

    @Test("every format names the device, not only its UDID; JSON findings carry fingerprint, deviceName and appVersion; text and Markdown say what to do")
    func namesInEveryFormat() throws {
        let nights = try Nights()
        try nights.ingest(night: 1)
        let formats = ["text", "json", "markdown", "junit", "csv", "jsonl", "sarif", "html"]
        #expect(try nights.audit(formats.map { "\($0):report.\($0)" }) == 1)
        let udid = "5222e195291c51153ff9948aca45032bb931df76"
        for format in formats {
            let out = try nights.read("report.\(format)")
            #expect(out.contains("qa-iphone6s-12"), "\(format) does not name the device")
            #expect(out.contains(udid), "\(format) lost the UDID")
        }
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(nights.read("report.json").utf8)) as? [String: Any])
        let findings = try #require(doc["findings"] as? [[String: Any]])
        let finding = try #require(findings.first { $0["rule"] as? String == "missing-blue-bar" })
        #expect(finding["deviceName"] as? String == "qa-iphone6s-12")
        #expect(finding["appVersion"] as? String == "3.2.0")
        #expect(finding["appBuild"] as? String == "3200.14")
        let fingerprint = try #require(finding["fingerprint"] as? String)
        #expect(fingerprint.count == 24)
        for key in ["rule", "severity", "device", "bundleId", "pid", "sessionStart", "time", "message", "evidence"] {
            #expect(finding.keys.contains(key), "the public key \(key) is gone")
        }
        let rules = try #require(doc["rules"] as? [[String: Any]])
        let help = try #require(rules.first { $0["id"] as? String == "missing-blue-bar" })
        #expect(help["owner"] as? String == "ios")
        #expect((help["whatToDo"] as? String)?.contains("Feedback Assistant") == true)

        let text = try nights.read("report.text")
        #expect(text.contains("\nDevice qa-iphone6s-12 (\(udid), iOS 12.5.7)\n"))
        #expect(text.contains(", app 3.2.0 (3200.14)\n"))
        #expect(text.contains("\nWhat to do:\n  missing-blue-bar (owner: iOS itself (Apple)): Report that iOS showed no blue bar"))
        let markdown = try nights.read("report.markdown")
        #expect(markdown.contains("\n### App `com.example.runner`\n"), "markdown groups by app by default: a ticket per app")
        #expect(markdown.contains("| qa-iphone6s-12 (`\(udid)`) |"))
        #expect(markdown.contains("\n**What to do:**\n\n- `missing-blue-bar`, owner iOS itself (Apple): Report that iOS"))
        let csv = ReporterTests.parseCSV(try nights.read("report.csv"))
        let header = try #require(csv.first)
        #expect(Array(header.prefix(CSVReporter.header.count - 5)) == ["rule", "severity", "device", "bundleId", "pid", "sessionStart", "time", "message", "evidence", "change", "timeZone"])
        let row = try #require(csv.dropFirst().first { $0.first == "missing-blue-bar" })
        #expect(row[header.firstIndex(of: "deviceName")!] == "qa-iphone6s-12")
        #expect(row[header.firstIndex(of: "appVersion")!] == "3.2.0 (3200.14)")
        #expect(row[header.firstIndex(of: "owner")!] == "ios")
        #expect(row[header.firstIndex(of: "fingerprint")!] == fingerprint)
    }

    @Test("--group-by app groups the text report by app, --group-by device the Markdown report by device")
    func groupBy() throws {
        let nights = try Nights()
        try nights.ingest(night: 1)
        try nights.audit(["text:app.txt", "markdown:device.md"], ["--group-by", "app"])
        let byApp = try nights.read("app.txt")
        #expect(byApp.contains("\nApp com.example.runner\n  qa-iphone6s-12 (5222e195291c51153ff9948aca45032bb931df76)\n    HIGH missing-blue-bar"))
        #expect(!byApp.contains("\nDevice "))
        try nights.audit(["markdown:device.md"], ["--group-by", "device"])
        let byDevice = try nights.read("device.md")
        #expect(byDevice.contains("\n### Device qa-iphone6s-12 (`5222e195291c51153ff9948aca45032bb931df76`)\n"))
        #expect(!byDevice.contains("### App "))
        let wrong = try run(locauditExecutable, ["audit", "--db", nights.db, "--group-by", "rule"])
        #expect(wrong.status == 2 && wrong.stderr.contains("group-by"))
    }

    // MARK: JUnit

    /// (suite name, classname, case name) of every test case.
    final class JUnitCases: NSObject, XMLParserDelegate {
        var cases: [[String]] = []
        var failures = 0
        private var suite = ""
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            if name == "testsuite" { suite = attributes["name"] ?? "" }
            if name == "testcase" { cases.append([suite, attributes["classname"] ?? "", attributes["name"] ?? ""]) }
            if name == "failure" { failures += 1 }
        }
        static func of(_ xml: String) -> JUnitCases {
            let collector = JUnitCases()
            let parser = XMLParser(data: Data(xml.utf8))
            parser.delegate = collector
            #expect(parser.parse())
            return collector
        }
    }

    @Test("a JUnit file of two nights (another process, another day) has the same suites and cases: one per app, device and rule, no pid or time in a name")
    func junitNamesSurviveTheNight() throws {
        let nights = try Nights()
        try nights.ingest(night: 1)
        try nights.audit(["junit:night1.xml"])
        try nights.ingest(night: 2)
        try nights.audit(["junit:night2.xml"])
        let first = JUnitCases.of(try nights.read("night1.xml")), second = JUnitCases.of(try nights.read("night2.xml"))
        #expect(!first.cases.isEmpty)
        #expect(first.cases == second.cases, "the case names moved between the nights")
        #expect(Set(second.cases).count == second.cases.count, "one case per app, device and rule")
        #expect(second.failures == 1, "the second night's two sessions fail one missing-blue-bar case")
        for names in second.cases {
            for name in names {
                #expect(!name.contains("pid") && !name.contains("713") && !name.contains("913") && !name.contains("2026-"), "\(names)")
            }
            // Jenkins splits a class name at its last dot: package locaudit.APP, class DEVICE (or iOS_N).
            #expect(names[1].split(separator: ".").count == 3, "\(names[1])")
            #expect(names[1].hasPrefix("locaudit.com_example_runner."), "\(names[1])")
        }
        #expect(second.cases.contains(["com.example.runner on qa-iphone6s-12 (5222e195291c51153ff9948aca45032bb931df76)",
                                       "locaudit.com_example_runner.5222e195291c51153ff9948aca45032bb931df76", "missing-blue-bar"]))
        #expect(second.cases.contains(["com.example.runner Info.plist on iOS 12", "locaudit.com_example_runner.iOS_12", "missing-usage-description"]))
    }

    // MARK: SARIF

    /// Python's jsonschema, which the schema test validates with.
    enum SchemaValidator {
        static let available = (try? run("/usr/bin/env", ["python3", "-c", "import jsonschema"]).status) == 0
        static let underCI = ProcessInfo.processInfo.environment["CI"] == "true"
        static let schema = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/sarif/sarif-schema-2.1.0.json")
        static let script = """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1]))
            document = json.load(open(sys.argv[2]))
            validator = jsonschema.validators.validator_for(schema)
            validator.check_schema(schema)
            errors = sorted(validator(schema).iter_errors(document), key=lambda e: list(map(str, e.absolute_path)))
            for e in errors[:20]:
                print("/".join(map(str, e.absolute_path)) + ": " + e.message)
            sys.exit(1 if errors else 0)
            """

        /// The schema's complaints about a file; empty when valid.
        static func errors(_ path: String) throws -> (status: Int32, output: String) {
            let result = try run("/usr/bin/env", ["python3", "-c", script, schema.path, path])
            return (result.status, result.stdout + result.stderr)
        }
    }

    @Test("the SARIF report of the samples is valid SARIF 2.1.0 by the official schema: one result per finding, rule help, evidence locations, stable fingerprints",
          .needsJSONSchema)
    func sarifIsValid() throws {
        guard SchemaValidator.available else {
            Issue.record("CI=true and python3 cannot import jsonschema: scripts/setup.sh --test installs python3-jsonschema")
            return
        }
        let ws = try Workspace()
        let db = ws.dir.appendingPathComponent("samples.sqlite").path
        let ingest = try run(locauditExecutable, ["ingest", "--db", db, "--quiet"] + ["samples/apps", "samples/logs", "samples/audit"].map {
            packageRoot.appendingPathComponent($0).path
        })
        #expect(ingest.status == 0, "\(ingest.stderr)")
        let audit = try run(locauditExecutable, ["audit", "--db", db, "--report", "sarif:audit.sarif", "--report", "json:audit.json"], directory: ws.dir)
        #expect(audit.status == 1, "\(audit.stderr)")
        let sarifPath = ws.dir.appendingPathComponent("audit.sarif").path
        let validation = try SchemaValidator.errors(sarifPath)
        #expect(validation.status == 0, "not valid SARIF 2.1.0:\n\(validation.output)")

        // The validator does reject: the same file without a result's message is invalid.
        var sarif = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: sarifPath))) as? [String: Any])
        var runs = try #require(sarif["runs"] as? [[String: Any]])
        var results = try #require(runs[0]["results"] as? [[String: Any]])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: ws.dir.appendingPathComponent("audit.json"))) as? [String: Any])
        let findings = try #require(json["findings"] as? [[String: Any]])
        #expect(results.count == findings.count, "one result per finding")
        #expect(Set(results.compactMap { ($0["partialFingerprints"] as? [String: String])?["locaudit/v1"] })
                == Set(findings.compactMap { $0["fingerprint"] as? String }))
        let driver = try #require((runs[0]["tool"] as? [String: Any])?["driver"] as? [String: Any])
        let rules = try #require(driver["rules"] as? [[String: Any]])
        #expect(Set(rules.compactMap { $0["id"] as? String }) == Set(findings.compactMap { $0["rule"] as? String }))
        for rule in rules {
            let id = try #require(rule["id"] as? String)
            let description = try #require(RuleRegistry.description(of: id))
            #expect((rule["help"] as? [String: Any])?["text"] as? String == "Owner: \(description.owner.label). \(description.whatToDo)")
            #expect(rule["helpUri"] as? String == description.helpURL)
            #expect((rule["properties"] as? [String: Any])?["owner"] as? String == description.owner.rawValue)
        }
        // Evidence lines as locations: the first finding's file and lines.
        let evidence = try #require(findings.first?["evidence"] as? [[String: Any]])
        let locations = try #require(results.first?["locations"] as? [[String: Any]])
        #expect(locations.count == evidence.count)
        for (location, line) in zip(locations, evidence) {
            let physical = try #require(location["physicalLocation"] as? [String: Any])
            let uri = try #require((physical["artifactLocation"] as? [String: Any])?["uri"] as? String)
            let file = try #require(line["file"] as? String)
            #expect(uri.removingPercentEncoding.map { $0 == file || $0 == "file://" + file } == true, "\(uri) for \(file)")
            #expect((physical["region"] as? [String: Any])?["startLine"] as? Int == line["line"] as? Int)
        }
        results[0]["message"] = nil
        runs[0]["results"] = results
        sarif["runs"] = runs
        let broken = try ws.write("broken.sarif", Array(try JSONSerialization.data(withJSONObject: sarif)))
        let rejected = try SchemaValidator.errors(broken)
        #expect(rejected.status == 1 && rejected.output.contains("message"), "the schema let a result without a message pass: \(rejected.output)")
    }

    // MARK: Not-evaluable codes

    @Test("every not-evaluable reason has a stable code of its own; the JSON report gives each beside its sentence")
    func notEvaluableCodes() throws {
        let codes = Fact.allCases.map(\.code) + Coverage.auditReasons.values
        #expect(Set(codes).count == codes.count, "two reasons share a code")
        for code in codes { #expect(code.range(of: #"^[a-z0-9]+(-[a-z0-9]+)*$"#, options: .regularExpression) != nil, "\(code)") }
        for fact in Fact.allCases { #expect(Coverage.code(ofReason: fact.unknown) == fact.code) }
        #expect(Coverage.code(ofReason: "unknown iOS version") == "unknown-ios-version")
        #expect(Coverage.code(ofReason: "a reason of a future version") == "other")

        let nights = try Nights()
        try nights.ingest(night: 1)
        try nights.audit(["json:report.json"])
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(nights.read("report.json").utf8)) as? [String: Any])
        let coverage = try #require(doc["coverage"] as? [String: Any])
        let sentences = try #require(coverage["notEvaluable"] as? [String: [String: Int]], "the existing key stays")
        let reasons = try #require(coverage["notEvaluableReasons"] as? [[String: Any]])
        #expect(!reasons.isEmpty)
        #expect(reasons.count == sentences.values.map(\.count).reduce(0, +))
        for reason in reasons {
            let rule = try #require(reason["rule"] as? String), sentence = try #require(reason["reason"] as? String)
            #expect(reason["code"] as? String == Coverage.code(ofReason: sentence))
            #expect(reason["code"] as? String != "other", "\(sentence)")
            #expect(sentences[rule]?[sentence] == reason["checks"] as? Int)
        }
    }
}
