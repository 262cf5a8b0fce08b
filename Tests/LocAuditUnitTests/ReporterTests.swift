import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import LocAuditAudit
@testable import LocAuditModel
@testable import LocAuditRules
@testable import LocAuditReport

/// Every reporter is a pure function of the report: these tests compare each with an
/// expected file and feed hostile log strings through all of them.
@Suite struct ReporterTests {
    static let expected = testFiles.appendingPathComponent("Expected")

    /// A small report with every part a reporter shows: a session finding (new), a
    /// configuration finding (persisting), a resolved one, a hidden one, coverage and checks.
    static func fixture(message: String = "background delivery under WhenInUse with no blue bar (2 times)",
                        bundle: String = "com.example.runner", file: String = "logs/qa-iphone12-2026-11-20.log.gz") -> AuditReport {
        let session = Finding(rule: "missing-blue-bar", severity: .high, device: "00008101-00085E0284779021", bundleId: bundle,
                              pid: 1347, sessionStartUS: AuditOptions.parseTime("2026-11-20T13:05:44.000000Z"), time: "2026-11-20T13:05:48.000000Z",
                              message: message, evidence: [EvidenceLine(file: file, line: 150, event: 7), EvidenceLine(file: file, line: 151, event: 8)],
                              fingerprint: "f-session", timeUS: 1_795_093_548_000_000, osVersion: "12.5.7")
        let config = Finding(rule: "deprecated-usage-key", severity: .low, device: "00008101-00085E0284779021", bundleId: "com.example.legacy",
                             pid: nil, sessionStartUS: nil, time: "2026-11-20T08:41:00.000000Z",
                             message: #"only "NSLocationAlwaysUsageDescription" for Always on iOS 12"#,
                             evidence: [EvidenceLine(file: "apps/com.example.legacy.plist", line: nil)],
                             fingerprint: "f-config", timeUS: 1_795_078_860_000_000, osVersion: "12.5.7")
        let resolved = Finding(rule: "delivery-while-paused", severity: .low, device: "D2", bundleId: "com.example.tracker",
                               pid: 9, sessionStartUS: AuditOptions.parseTime("2026-11-19T10:00:00.000000Z"), time: "2026-11-19T10:00:05.000000Z",
                               message: "location delivered while updates are paused", evidence: [],
                               fingerprint: "f-resolved", timeUS: 1_795_000_000_000_000, osVersion: "18.1")
        var coverage = Coverage()
        coverage.sessions = 2
        coverage.evaluated = 4
        coverage.notApplicable = 1
        coverage.count("precise-delivery-under-reduced-accuracy", notEvaluable: "unknown iOS version")
        let sessionSubject = "00008101-00085E0284779021 \(bundle) pid 1347 from 2026-11-20T13:05:44.000000Z"
        let checks = [
            RuleCheckRecord(subject: sessionSubject, rule: "missing-blue-bar", notEvaluable: nil, findings: ["f-session"]),
            RuleCheckRecord(subject: sessionSubject, rule: "delivery-without-authorization", notEvaluable: nil, findings: []),
            RuleCheckRecord(subject: "com.example.legacy on iOS 12", rule: "deprecated-usage-key", notEvaluable: nil, findings: ["f-config"]),
            RuleCheckRecord(subject: "com.example.legacy on iOS 12", rule: "missing-usage-description", notEvaluable: nil, findings: ["f-hidden"]),
            RuleCheckRecord(subject: "D3 com.example.weather pid 4 from 2026-11-20T09:00:00.000000Z", rule: "precise-delivery-under-reduced-accuracy",
                            notEvaluable: "unknown iOS version", findings: []),
        ]
        let report = AuditReport(runId: 3, startedAt: "2026-11-21T06:00:00.000000Z", database: "fleet.sqlite", events: 641,
                                 findings: [session, config], new: ["f-session"], persisting: ["f-config"], resolved: [resolved],
                                 hiddenByBaseline: 1, coverage: coverage, checks: checks, failOn: .high)
        // The store names one device and knows the Runner's Info.plist; D2 and D3 it does not name.
        let names = ReportNames(devices: ["00008101-00085E0284779021": DeviceLabel(id: "00008101-00085E0284779021", name: "qa-iphone12-14", model: "iPhone13,2")],
                                apps: ["f-session": ReportNames.AppBuild(version: "3.2.0", build: "3200.14")])
        return names.apply(to: report)
    }

    // The HTML page has its own expected-output test, drawn from a real audit (HTMLReportTests).
    @Test("each reporter's output is the expected file", arguments: OutputFormat.allCases.filter { $0 != .html })
    func expectedOutput(format: OutputFormat) throws {
        let name = "report.\(format.rawValue)"
        let actual = try format.render(ReporterTests.fixture())
        let path = ReporterTests.expected.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["LOCAUDIT_UPDATE_EXPECTED"] == "1" {
            try Data(actual.utf8).write(to: path)
        }
        let expected = try String(contentsOf: path, encoding: .utf8)
        #expect(actual == expected, "\(name) differs; rerun with LOCAUDIT_UPDATE_EXPECTED=1 and review the diff")
    }

    static let hostile = "<script>alert(\"x\")</script> ]]> 'quoted', \"double\", a,b\nsecond line\u{1B}[31m red | `tick` *star* & =HYPERLINK()"

    @Test("a log string carrying markup, quotes, commas and newlines is escaped by every reporter", arguments: OutputFormat.allCases)
    func escaping(format: OutputFormat) throws {
        let report = ReporterTests.fixture(message: ReporterTests.hostile, bundle: "com.evil.<b>\"app\"</b>", file: "logs/a,b\n\"c\".log")
        let out = try format.render(report)
        switch format {
        case .json:
            let doc = try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any])
            let findings = try #require(doc["findings"] as? [[String: Any]])
            #expect(findings.first?["message"] as? String == ReporterTests.hostile)
            #expect(findings.first?["bundleId"] as? String == "com.evil.<b>\"app\"</b>")
        case .jsonl:
            let lines = out.split(separator: "\n")
            #expect(lines.count == 2)
            let first = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
            #expect(first["message"] as? String == ReporterTests.hostile)
        case .sarif:
            let doc = try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any])
            let results = try #require((doc["runs"] as? [[String: Any]])?.first?["results"] as? [[String: Any]])
            let text = try #require((results.first?["message"] as? [String: Any])?["text"] as? String)
            #expect(text.hasPrefix(ReporterTests.hostile))
            let location = try #require((results.first?["locations"] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any])
            let uri = try #require((location["artifactLocation"] as? [String: Any])?["uri"] as? String)
            #expect(!uri.contains("\n") && !uri.contains("\""), "a URI is percent-encoded: \(uri)")
            #expect(uri.removingPercentEncoding == "logs/a,b\n\"c\".log")
        case .csv:
            let rows = ReporterTests.parseCSV(out)
            #expect(rows.count == 3)
            #expect(rows.allSatisfy { $0.count == CSVReporter.header.count })
            #expect(rows[1][7] == ReporterTests.hostile)
            #expect(rows[1][3] == "com.evil.<b>\"app\"</b>")
            #expect(rows[1][8] == "logs/a,b\n\"c\".log:150 logs/a,b\n\"c\".log:151")
        case .junit:
            let parser = XMLParser(data: Data(out.utf8))
            let collector = XMLCollector()
            parser.delegate = collector
            #expect(parser.parse(), "JUnit output is not well-formed XML: \(String(describing: parser.parserError))")
            #expect(collector.failureMessages.contains(ReporterTests.hostile.replacingOccurrences(of: "\u{1B}", with: "\u{FFFD}")))
            #expect(!out.contains("<script>"))
        case .markdown:
            // Markup only inside code spans, where Markdown shows it as text.
            let outsideCode = out.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 0 }.map(\.element).joined()
            #expect(!outsideCode.contains("<script>") && !outsideCode.contains("<b>"))
            #expect(!out.contains("\u{1B}"))
            let tableRows = out.split(separator: "\n").filter { $0.hasPrefix("| ") && !$0.hasPrefix("| severity") }
            #expect(tableRows.count == 2, "a newline in a log string must not add table rows")
            #expect(tableRows.allSatisfy { $0.replacingOccurrences(of: "\\|", with: "").filter { $0 == "|" }.count == 8 })
        case .html:
            #expect(!out.contains("<script>alert") && !out.contains("<b>\"app\"</b>"))
            #expect(out.contains("&lt;script&gt;alert("))
        case .fleet:
            #expect(out.contains("com.evil.<b>\"app\"</b>"), "plain text shows the bundle as it is, on one line")
            #expect(!out.contains("\u{1B}"))
        case .fleetHTML:
            #expect(out.contains("com.evil.&lt;b&gt;&quot;app&quot;&lt;/b&gt;"))
            #expect(!out.contains("<b>"))
        case .text:
            #expect(!out.contains("\u{1B}"), "no terminal escape from a log line")
            #expect(!out.contains("\nsecond line"), "a log line cannot start a line of the report")
            #expect(out.contains("⏎second line"))
        }
    }

    @Test func theVerdictLineIsPassFailOrInsufficientEvidence() {
        var report = ReporterTests.fixture()
        #expect(TextReporter.generateReport(report).hasSuffix("FAIL: 2 findings (1 high, 1 low)\n"))
        report.failOn = .critical
        // v2: PASS only when every applicable check was evaluated; findings below --fail-on are listed.
        report.coverage.notEvaluable = [:]
        #expect(TextReporter.generateReport(report).hasSuffix("PASS, 2 findings below critical (1 high, 1 low)\n"))
        report.findings = []
        #expect(TextReporter.generateReport(report).hasSuffix("PASS\n"))
        report.coverage.notEvaluable = ["missing-blue-bar": [Fact.indicatorLines.unknown: 2]]
        let partial = TextReporter.generateReport(report)
        #expect(partial.contains("\nPARTIAL: ") && partial.hasSuffix("checks evaluated; missing: indicator lines (2)\n"))
        #expect(report.exitCode == 0)
        report.requireEvidence = ["missing-blue-bar"]
        #expect(report.exitCode == 3)
        report.requireEvidence = nil
        report.coverage.evaluated = 0
        #expect(TextReporter.generateReport(report).hasSuffix("INSUFFICIENT EVIDENCE\n"))
        #expect(MarkdownReporter.generateReport(report).contains("**INSUFFICIENT EVIDENCE**"))
    }

    @Test func coloursOnlyWhenAsked() {
        var options = ReportOptions()
        #expect(!TextReporter.generateReport(ReporterTests.fixture(), options: options).contains("\u{1B}["))
        options.color = true
        let coloured = TextReporter.generateReport(ReporterTests.fixture(), options: options)
        #expect(coloured.contains("\u{1B}[31;1mHIGH\u{1B}[0m"))
        #expect(coloured.hasSuffix("\u{1B}[31;1mFAIL: 2 findings (1 high, 1 low)\u{1B}[0m\n"))
    }

    @Test func junitHasATestCasePerCheckAFailurePerFindingAndSkipsTheNotEvaluable() throws {
        let out = JUnitReporter.generateReport(ReporterTests.fixture())
        let parser = XMLParser(data: Data(out.utf8))
        let collector = XMLCollector()
        parser.delegate = collector
        #expect(parser.parse())
        #expect(collector.counts["testcase"] == 5)
        #expect(collector.counts["failure"] == 2, "f-hidden was hidden by the baseline: its check passes")
        #expect(collector.counts["skipped"] == 1)
        #expect(collector.counts["testsuite"] == 3)
    }

    /// RFC 4180, enough to check the CSV reporter.
    static func parseCSV(_ text: String) -> [[String]] {
        var rows: [[String]] = [], row: [String] = [], field = "", quoted = false
        var chars = Array(text)[...]
        while let c = chars.popFirst() {
            if quoted {
                if c == "\"" { if chars.first == "\"" { field.append("\""); chars.removeFirst() } else { quoted = false } } else { field.append(c) }
            } else if c == "\"" { quoted = true }
            else if c == "," { row.append(field); field = "" }
            else if c == "\r\n" || c == "\n" { row.append(field); rows.append(row); row = []; field = "" }
            else { field.append(c) }
        }
        return rows
    }
}

/// Counts elements and keeps failure messages.
final class XMLCollector: NSObject, XMLParserDelegate {
    var counts: [String: Int] = [:]
    var failureMessages: [String] = []
    /// `<property>` elements, with the name of the test suite they are in.
    var properties: [(suite: String, name: String, value: String)] = []
    private var suite = ""
    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        counts[name, default: 0] += 1
        if name == "failure", let m = attributes["message"] { failureMessages.append(m) }
        if name == "testsuite" { suite = attributes["name"] ?? "" }
        if name == "property" { properties.append((suite, attributes["name"] ?? "", attributes["value"] ?? "")) }
    }
}

@Suite struct StoredReportTests {
    @Test func aStoredRunRendersAsTheAuditDidInEveryFormat() throws {
        let ws = try QueryTests.samplesStore()
        let live = try Auditor(databasePath: ws.store.path, options: AuditOptions()).run()
        let stored = try AuditReport.stored(in: ws.store)
        #expect(stored.runId == live.runId)
        for format in OutputFormat.allCases {
            #expect(try format.render(stored) == format.render(live), "\(format) of the stored run differs from the audit's")
        }
        // A second audit: the first run can still be rendered, and says the same as before.
        let second = try Auditor(databasePath: ws.store.path, options: AuditOptions()).run()
        #expect(second.persisting.count == live.findings.count && second.new.isEmpty)
        #expect(try AuditReport.stored(in: ws.store, run: live.runId).findings == live.findings)
        #expect(throws: AuditError.self) { try AuditReport.stored(in: ws.store, run: 99) }
    }

    @Test func noReporterShowsTheCoordinatesOfADelivery() throws {
        let ws = try QueryTests.samplesStore()
        let report = try Auditor(databasePath: ws.store.path, options: AuditOptions()).run()
        let coordinates = try ws.rows("SELECT DISTINCT latitude FROM events WHERE latitude IS NOT NULL").map { String($0[0] as Double) }
        #expect(!coordinates.isEmpty)
        for format in OutputFormat.allCases {
            let out = try format.render(report)
            #expect(!coordinates.contains(where: out.contains), "\(format) shows a coordinate")
        }
    }
}
