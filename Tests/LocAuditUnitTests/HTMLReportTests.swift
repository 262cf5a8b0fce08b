import Foundation
import GRDB
import Testing
@testable import LocAuditAudit
@testable import LocAuditModel
@testable import LocAuditReplay
@testable import LocAuditRules
@testable import LocAuditNormalise
@testable import LocAuditReport
@testable import LocAuditStore

/// An audit of ingested logs, with what the HTML report reads from the store.
struct RenderedAudit {
    var report: AuditReport
    var timelines: [SessionTimeline]
    var evidence: [Int64: EvidenceText]
    var devices: [String: DeviceLabel]

    /// Audits the store and loads timelines, evidence and devices the way `locaudit report` does.
    init(_ workspace: Workspace, options: ReportOptions = ReportOptions()) throws {
        let report = try Auditor(databasePath: workspace.store.path, options: AuditOptions()).run()
        let inputs = try Store(path: workspace.store.path, access: .read).htmlReportInputs(for: report.findings, options: options)
        (timelines, evidence, devices) = (inputs.timelines, inputs.evidence, inputs.devices)
        self.report = report
    }

    func html(_ options: ReportOptions = ReportOptions()) -> String {
        HTMLReporter.generateReport(report, timelines: timelines, evidence: evidence, devices: devices, options: options)
    }

    /// The bundled samples: `samples/logs` and `samples/apps`.
    static func samples(_ options: ReportOptions = ReportOptions()) throws -> (Workspace, RenderedAudit) {
        let ws = try Workspace()
        _ = try ws.ingest([packageRoot.appendingPathComponent("samples/logs").path, packageRoot.appendingPathComponent("samples/apps").path])
        return (ws, try RenderedAudit(ws, options: options))
    }
}

@Suite struct HTMLReportTests {
    // MARK: Expected output

    /// iOS 13.7: the app asks for Always without the iOS 11+ key, gets provisional Always
    /// anyway, and delivers in the background with no blue bar.
    static func tinyAudit() throws -> (Workspace, RenderedAudit) {
        let log = LogScript()
            .launch()
            .blueBar(false)
            .call("requestAlwaysAuthorization")
            .prompt("Always", options: "AllowOnce,WhenInUse,Deny")
            .answer("WhenInUse")
            .status("AuthorizedAlways", provisional: 1)
            .told("AuthorizedAlways")
            .property("allowsBackgroundLocationUpdates", 1)
            .call("startUpdatingLocation")
            .app(Messages.delivery(accuracy: 5))
            .state("BackgroundRunning")
            .app(Messages.delivery(accuracy: 10))
            .app(Messages.delivery(accuracy: 65))
            .terminate()
        let ws = try Workspace()
        let path = try ws.write("qa-phone-2026-11-20.log", log.text + "\n")
        try ws.write("qa-phone-2026-11-20.ideviceinfo.txt", "UniqueDeviceID: qa-phone\nDeviceName: iPhone\nProductVersion: 13.7\n")
        let plist = ExamplePlist(usageKeys: [UsageKey.whenInUse], backgroundModes: ["location"])
        let plistPath = try ws.write("com.example.app.plist", plist.xml)
        _ = try ws.ingest([path]) {
            $0.infoPlists = [plistPath]
            $0.parse = ParseOptions(year: 2026, zone: TimeZone(identifier: "UTC"))
        }
        var audit = try RenderedAudit(ws)
        // What differs from one run to the next: the clock, and the temporary folder's name.
        audit.report.startedAt = "2026-11-21T08:00:00.000000Z"
        audit.report.database = "audit.sqlite"
        for f in audit.report.findings.indices {
            for e in audit.report.findings[f].evidence.indices {
                audit.report.findings[f].evidence[e].file = URL(fileURLWithPath: audit.report.findings[f].evidence[e].file).lastPathComponent
            }
        }
        for id in audit.evidence.keys { audit.evidence[id]!.file = URL(fileURLWithPath: audit.evidence[id]!.file).lastPathComponent }
        return (ws, audit)
    }

    @Test("a small audit renders exactly as Expected/report.html (LOCAUDIT_WRITE_EXPECTED=1 rewrites it)")
    func expectedOutput() throws {
        let (_, audit) = try Self.tinyAudit()
        #expect(audit.report.rules.sorted() == ["grant-without-usage-description", "missing-blue-bar", "missing-usage-description"])
        var options = ReportOptions()
        options.version = "0.0.0-test"
        let html = audit.html(options)
        if ProcessInfo.processInfo.environment["LOCAUDIT_WRITE_EXPECTED"] == "1" {
            let source = testFiles.appendingPathComponent("Expected/report.html")
            try html.write(to: source, atomically: true, encoding: .utf8)
        }
        let expectedURL = testFiles.appendingPathComponent("Expected/report.html")
        let expected = try String(contentsOf: expectedURL, encoding: .utf8)
        if html != expected {
            let actual = FileManager.default.temporaryDirectory.appendingPathComponent("locaudit-report-actual.html")
            try html.write(to: actual, atomically: true, encoding: .utf8)
            Issue.record("the HTML report differs from Expected/report.html: diff it with \(actual.path)")
        }
    }

    @Test("the timeline of the small audit has its lanes, deliveries and finding from the replay")
    func timelineFromTheStore() throws {
        let (_, audit) = try Self.tinyAudit()
        let timeline = try #require(audit.timelines.first)
        #expect(audit.timelines.count == 1)
        func values(_ kind: SessionTimeline.LaneKind) -> [String?] {
            timeline.lanes.first { $0.kind == kind }!.intervals.map(\.value)
        }
        // The launch line says foreground from the start; the termination ends the session: it
        // holds for no time and is not drawn.
        #expect(values(.appState) == ["foreground", "background"])
        #expect(values(.authorization) == [nil, "provisional Always"])
        #expect(values(.blueBar) == ["hidden"])
        #expect(values(.services) == ["none", "standard"])
        #expect(timeline.deliveries.map(\.background) == [false, true, true])
        #expect(timeline.deliveries.map(\.horizontalAccuracy) == [5, 10, 65])
        #expect(timeline.deliveries.allSatisfy { $0.coordinate == nil })
        let blueBar = try #require(timeline.findings.first { $0.rule == "missing-blue-bar" })
        #expect(blueBar.evidence.map(\.event).sorted() == Array(timeline.deliveries.map(\.event).suffix(2)).sorted())
    }

    @Test("locationd's location arrow for the app is a lane of its own, drawn only where its lines are, read by no rule")
    func locationArrowLane() throws {
        func arrow(_ old: String, _ new: String) -> String {
            ##"{"msg":"#sbim client arrow state changed", "clientKey":"icom.example.app:", "entityClass":"Application", "oldArrowState":""##
                + old + ##"", "newArrowState":""## + new + ##"", "dueToDeauthorization":0}"##
        }
        // A delivery while denied: a finding, so the session has a timeline.
        let log = LogScript().launch().told("Denied").call("startUpdatingLocation")
            .system(arrow("Off", "ReceivingLocationInformation")).app(Messages.delivery(accuracy: 5))
            .system(arrow("ReceivingLocationInformation", "Off")).terminate()
        let ws = try Workspace()
        let path = try ws.write("qa-phone-2026-11-20.log", log.text + "\n")
        try ws.write("qa-phone-2026-11-20.ideviceinfo.txt", "UniqueDeviceID: qa-phone\nDeviceName: iPhone\nProductVersion: 17.5\n")
        _ = try ws.ingest([path]) { $0.parse = ParseOptions(year: 2026, zone: TimeZone(identifier: "UTC")) }
        let audit = try RenderedAudit(ws)
        let timeline = try #require(audit.timelines.first)
        let lane = try #require(timeline.lanes.first { $0.kind == .locationArrow })
        #expect(lane.intervals.map(\.value) == [nil, "ReceivingLocationInformation", "off"])
        #expect(lane.intervals.map(\.state) == [nil, .arrowOn, .arrowOff])
        let html = audit.html()
        #expect(html.contains("location arrow") && html.contains("arrow-arrow-on"))
        // The tiny audit has no arrow line: no such lane.
        let (_, tiny) = try Self.tinyAudit()
        #expect(tiny.timelines.first?.lanes.contains { $0.kind == .locationArrow } == false)
    }

    @Test("the prompts lane shows each prompt from its line to its answer, the answer readable, and only in a session with such lines")
    func promptsLane() throws {
        let (_, tiny) = try Self.tinyAudit()
        let timeline = try #require(tiny.timelines.first)
        #expect(timeline.prompts.count == 1)
        let prompt = try #require(timeline.prompts.first)
        #expect(prompt.shown?.kind == "Always" && prompt.shown?.options == ["AllowOnce", "WhenInUse", "Deny"])
        #expect(prompt.answer?.choice == .whenInUse)
        let shown = try #require(prompt.shown), answer = try #require(prompt.answer)
        #expect(shown.timeUS <= answer.timeUS)
        let html = tiny.html()
        #expect(html.contains("<g class=\"prompts\">\n<text class=\"lane-name\" x=\"4\" y=\"")
                && html.contains(">prompts</text>"))
        #expect(html.contains(">Always prompt → While Using</text>"), "the answer is drawn readable beside the prompt")
        let sentence = "Always prompt shown at \(HTMLFormat.clock(shown.timeUS)) (offering Allow Once, While Using, Don't Allow), "
            + "answered While Using at \(HTMLFormat.clock(answer.timeUS))"
        #expect(html.contains("<title>\(HTMLFormat.escape(sentence))</title>"), "the tooltip tells the whole prompt")
        #expect(html.contains("<ul class=\"prompts\">\n<li>\(HTMLFormat.escape(sentence))</li>"), "and the list under the drawing")
        #expect(html.contains("<circle class=\"answer grant\""))

        // An answer whose prompt is not in the log, and a prompt not answered: each drawn as such.
        let log = LogScript().launch().answer("Deny").told("Denied").call("startUpdatingLocation").app(Messages.delivery(accuracy: 5))
            .prompt("AlwaysUpgrade", options: "Always,KeepWhenInUse").terminate()
        let ws = try Workspace()
        let path = try ws.write("qa-phone-2026-11-20.log", log.text + "\n")
        try ws.write("qa-phone-2026-11-20.ideviceinfo.txt", "UniqueDeviceID: qa-phone\nDeviceName: iPhone\nProductVersion: 17.5\n")
        _ = try ws.ingest([path]) { $0.parse = ParseOptions(year: 2026, zone: TimeZone(identifier: "UTC")) }
        let odd = try RenderedAudit(ws)
        let oddTimeline = try #require(odd.timelines.first)
        #expect(oddTimeline.prompts.map { $0.shown == nil } == [true, false])
        #expect(oddTimeline.prompts.map { $0.answer?.choice } == [.deny, nil])
        let oddHTML = odd.html()
        #expect(oddHTML.contains(">answered Don&#39;t Allow (no prompt line)</text>"))
        #expect(oddHTML.contains(">upgrade to Always prompt, no answer</text>"))
        #expect(oddHTML.contains("<circle class=\"answer deny\""))

        // A session with no prompt or answer line has no prompts lane.
        let quiet = LogScript().launch().told("Denied").call("startUpdatingLocation").app(Messages.delivery(accuracy: 5)).terminate()
        let quietWS = try Workspace()
        let quietPath = try quietWS.write("qa-phone-2026-11-20.log", quiet.text + "\n")
        try quietWS.write("qa-phone-2026-11-20.ideviceinfo.txt", "UniqueDeviceID: qa-phone\nDeviceName: iPhone\nProductVersion: 17.5\n")
        _ = try quietWS.ingest([quietPath]) { $0.parse = ParseOptions(year: 2026, zone: TimeZone(identifier: "UTC")) }
        let silent = try RenderedAudit(quietWS)
        #expect(try #require(silent.timelines.first).prompts.isEmpty)
        let silentHTML = silent.html()
        #expect(!silentHTML.contains("<g class=\"prompts\">") && !silentHTML.contains(">prompts</text>"))
        #expect(!silentHTML.contains("a prompt, from its line to the answer"), "no legend for a lane the page does not draw")
    }

    // MARK: The page's order and filters

    @Test("the page opens on the findings: they come before the summary and the coverage, and lead the contents")
    func findingsFirst() throws {
        let (_, audit) = try RenderedAudit.samples()
        let html = audit.html()
        func at(_ id: String) throws -> String.Index { try #require(html.range(of: "id=\"\(id)\"")).lowerBound }
        #expect(try at("verdict-title") < at("findings-title"))
        #expect(try at("findings-title") < at("summary-title"))
        #expect(try at("summary-title") < at("coverage-title"))
        #expect(try at("coverage-title") < at("timelines-title"))
        let contents = try #require(html.firstMatch(of: #/<nav aria-label="Contents">(.*)</nav>/#)).output.1
        #expect(contents.hasPrefix("<ul class=\"contents\"><li><a href=\"#findings-title\">Findings (\(audit.report.findings.count))</a>"))
    }

    @Test("the findings can be narrowed by severity, app and rule with no script: radio buttons and the page's own style rules; the CSP is unchanged")
    func filtersWithoutScript() throws {
        let (_, audit) = try RenderedAudit.samples()
        let html = audit.html()
        #expect(html.contains("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">"))
        #expect(!html.contains("<script") && !html.contains("script-src") && !html.contains("http://") && !html.contains("https://"))
        let findings = audit.report.findings
        let filters = FindingFilters(findings)
        let apps = Set(findings.map(\.bundleId)), rules = Set(findings.map(\.rule)), severities = Set(findings.map(\.severity))
        #expect(apps.count > 1 && rules.count > 1 && severities.count > 1, "the samples should exercise each filter")
        #expect(filters.apps.map(\.0) == apps.sorted())
        #expect(Set(filters.rules.map(\.0)) == rules)
        // A choice per value with its count, and `all` checked; one style rule per choice.
        for key in ["sev", "app", "rule"] {
            #expect(html.contains("<input type=\"radio\" name=\"f-\(key)\" id=\"f-\(key)-all\" checked><label for=\"f-\(key)-all\">all \(findings.count)</label>"))
        }
        for (i, app) in filters.apps.enumerated() {
            #expect(html.contains("<label for=\"f-app-\(i + 1)\"><code>\(HTMLFormat.escape(app.0))</code> \(app.1)</label>"))
            #expect(html.contains("main:has(#f-app-\(i + 1):checked) .finding:not(.app-\(i + 1)) { display: none; }"))
        }
        for severity in severities {
            #expect(html.contains("main:has(#f-sev-\(severity.rawValue):checked) .finding:not(.sev-\(severity.rawValue)) { display: none; }"))
        }
        #expect(occurrences(of: "main:has(#f-rule-", in: html) == rules.count)
        // Each finding carries the classes the rules read.
        for (i, f) in findings.enumerated() {
            #expect(html.contains("<article class=\"finding sev-\(f.severity.rawValue) \(filters.classes(f))\" id=\"finding-\(i + 1)\">"))
        }
        // A hostile app name is a label's text, never a class or a selector.
        let (report, timelines, evidence) = Self.hostileReport()
        let hostile = HTMLReporter.generateReport(report, timelines: timelines, evidence: evidence, options: ReportOptions())
        #expect(hostile.contains("main:has(#f-app-1:checked) .finding:not(.app-1)"))
        #expect(hostile.contains("<label for=\"f-app-1\"><code>app&lt;script&gt;"))
    }

    /// What the findings' filters show in a real browser, after clicking their labels.
    struct Filtered: Decodable {
        var all: [String]
        var high: [String]
        var highAndApp: [String]
        var app: [String]
        var rule: [String]
        var reset: [String]
        var checked: [String]
        /// Where the findings' heading is on a 1400x900 window.
        var findingsTop: Double
    }

    static func filterScript(app: Int, rule: Int) -> String {
        """
        const shown = () => [...document.querySelectorAll('.finding')].filter(a => getComputedStyle(a).display !== 'none').map(a => a.id);
        const pick = id => document.querySelector(`label[for="${id}"]`).click();
        const out = { all: shown() };
        pick('f-sev-high'); out.high = shown();
        pick('f-app-\(app)'); out.highAndApp = shown();
        pick('f-sev-all'); out.app = shown();
        pick('f-app-all'); pick('f-rule-\(rule)'); out.rule = shown();
        pick('f-rule-all'); out.reset = shown();
        out.checked = [...document.querySelectorAll('.filters input:checked')].map(i => i.id);
        out.findingsTop = document.getElementById('findings-title').getBoundingClientRect().top;
        return out;
        """
    }

    // MARK: Verdict

    static func report(findings: [Finding] = [], evaluated: Int) -> AuditReport {
        var coverage = Coverage()
        coverage.sessions = 2
        coverage.evaluated = evaluated
        if evaluated == 0 { coverage.insufficientSessions = ["device-1 com.example.app pid 7 from 2026-11-20T09:00:00.000000Z"] }
        return AuditReport(runId: 1, startedAt: "2026-11-21T08:00:00.000000Z", database: "audit.sqlite", events: 4, findings: findings,
                           new: [], persisting: [], resolved: [], hiddenByBaseline: 0, coverage: coverage, failOn: .high)
    }

    @Test("insufficient evidence is shown as such, never as a pass")
    func insufficientEvidence() {
        let html = HTMLReporter.generateReport(Self.report(evaluated: 0), timelines: [], evidence: [:], options: ReportOptions())
        #expect(html.contains("<p class=\"verdict-line\" id=\"verdict\">INSUFFICIENT EVIDENCE</p>"))
        #expect(html.contains("This is not a pass."))
        #expect(html.contains("insufficient evidence: device-1 com.example.app pid 7"))
        #expect(!html.contains("PASS"))
    }

    @Test("a clean audit passes, and findings below --fail-on are not a failure")
    func passAndThreshold() {
        let clean = HTMLReporter.generateReport(Self.report(evaluated: 12), timelines: [], evidence: [:], options: ReportOptions())
        #expect(clean.contains("id=\"verdict\">PASS</p>"))
        #expect(clean.contains("12 rule checks"))
        let low = Finding(rule: "unexpected-blue-bar", severity: .low, device: "device-1", bundleId: "com.example.app", pid: 7,
                          sessionStartUS: nil, time: "2026-11-20T09:00:05.000000Z", message: "blue bar", evidence: [],
                          fingerprint: "f1", timeUS: 0, osVersion: "10.3.3")
        let below = HTMLReporter.generateReport(Self.report(findings: [low], evaluated: 12), timelines: [], evidence: [:], options: ReportOptions())
        #expect(below.contains("id=\"verdict\">PASS, 1 finding below high (1 low)</p>"))
    }

    @Test("a finding shown thousands of times quotes its first 50 lines and says how many more")
    func evidenceCap() {
        let lines = (1...60).map { EvidenceLine(file: "device.log", line: Int($0), event: Int64($0)) }
        var evidence: [Int64: EvidenceText] = [:]
        for line in lines { evidence[line.event!] = EvidenceText(event: line.event!, file: "device.log", line: line.line!, time: "2026-11-20T09:00:00.000000Z", message: "delivery") }
        let finding = Finding(rule: "delivery-without-authorization", severity: .critical, device: "device-1", bundleId: "com.example.app",
                              pid: 7, sessionStartUS: nil, time: "2026-11-20T09:00:05.000000Z", message: "location delivered", evidence: lines,
                              fingerprint: "f1", timeUS: 0, osVersion: "17.5")
        let html = HTMLReporter.generateReport(Self.report(findings: [finding], evaluated: 3), timelines: [], evidence: evidence, options: ReportOptions())
        #expect(occurrences(of: "<li id=\"ev-", in: html) == 50)
        #expect(occurrences(of: "href=\"#ev-", in: html) == 50)
        #expect(html.contains("id=\"ev-50\"") && !html.contains("id=\"ev-51\""))
        #expect(html.contains("and 10 more lines, not shown here"))
    }

    // MARK: A stored run

    @Test("a stored audit run renders later from the store, with its timelines and evidence")
    func storedRun() throws {
        let (ws, fresh) = try Self.tinyAudit()
        let stored = try ws.store.connect(readOnly: true).read { db in
            try Row.fetchAll(db, sql: """
                SELECT fingerprint, rule, severity, device_id, bundle_id, pid, session_start, time, message, evidence, time_us, os_version
                FROM findings ORDER BY id
                """).map(Finding.init(row:))
        }
        #expect(Set(stored.map(\.fingerprint)) == Set(fresh.report.findings.map(\.fingerprint)))
        let (timelines, evidence) = try ws.store.connect(readOnly: true).read { db in
            (try SessionTimeline.load(db, for: stored), try EvidenceText.load(db, for: stored))
        }
        #expect(timelines.map(\.sessionStart) == fresh.timelines.map(\.sessionStart))
        #expect(timelines.map(\.lanes) == fresh.timelines.map(\.lanes))
        #expect(timelines.map(\.prompts) == fresh.timelines.map(\.prompts) && !timelines.flatMap(\.prompts).isEmpty)
        // Stored findings keep the event ids the page links by.
        #expect(evidence.count == fresh.evidence.count)
        #expect(timelines.flatMap(\.findings).map(\.evidence) == fresh.timelines.flatMap(\.findings).map(\.evidence))
    }

    // MARK: Escaping

    static let hostile = "<script>alert(1)</script> ]]> \"quoted\" 'single' & ampersand\nsecond line"

    /// A report whose every log-borne string carries `hostile`.
    static func hostileReport() -> (AuditReport, [SessionTimeline], [Int64: EvidenceText]) {
        let finding = Finding(rule: "missing-blue-bar", severity: .high, device: "dev" + hostile, bundleId: "app" + hostile, pid: 7,
                              sessionStartUS: AuditOptions.parseTime("2026-11-20T09:00:00.000000Z"), time: "2026-11-20T09:00:05.000000Z",
                              message: "message " + hostile, evidence: [EvidenceLine(file: "file" + hostile + ".log", line: 3, event: 42),
                                                                         EvidenceLine(file: "plist" + hostile, line: nil)],
                              fingerprint: "f1", timeUS: 1_795_165_205_000_000, osVersion: "13" + hostile)
        var coverage = Coverage()
        coverage.sessions = 1
        coverage.evaluated = 1
        coverage.count("rule" + hostile, notEvaluable: "reason" + hostile)
        coverage.insufficientSessions = ["session" + hostile]
        let report = AuditReport(runId: 3, startedAt: "2026-11-21T08:00:00.000000Z", database: "db" + hostile, events: 10,
                                 findings: [finding], new: ["f1"], persisting: [], resolved: [finding], hiddenByBaseline: 0,
                                 coverage: coverage, failOn: .high)
        let start: Int64 = 1_795_165_200_000_000
        let timeline = SessionTimeline(
            deviceId: finding.device, bundleId: finding.bundleId, pid: 7, osVersion: finding.osVersion, sessionStart: finding.sessionStart!,
            startUS: start, endUS: start + 10_000_000, endReason: .terminated,
            lanes: [SessionTimeline.Lane(kind: .services, intervals: [.init(startUS: start, endUS: start + 10_000_000, value: "svc" + hostile)])],
            deliveries: [.init(event: 42, timeUS: start + 5_000_000, horizontalAccuracy: 10, background: true, coordinate: nil)],
            findings: [.init(fingerprint: "f1", rule: "rule" + hostile, severity: .high, timeUS: start + 5_000_000,
                             evidence: [.init(event: 42, timeUS: start + 5_000_000)])])
        let evidence: [Int64: EvidenceText] = [42: EvidenceText(event: 42, file: "file" + hostile + ".log", line: 3,
                                                                  time: "2026-11-20T09:00:05.000000Z", message: "logged " + hostile)]
        return (report, [timeline], evidence)
    }

    @Test("every string from a log is escaped for HTML text and attributes")
    func escaping() {
        let (report, timelines, evidence) = Self.hostileReport()
        let html = HTMLReporter.generateReport(report, timelines: timelines, evidence: evidence, options: ReportOptions())
        for raw in ["<script", "</script>", "]]>", "\"quoted\"", "'single'", "& ampersand", "ampersand\nsecond"] {
            #expect(!html.contains(raw), "raw \(raw.debugDescription) in the page")
        }
        let escaped = "&lt;script&gt;alert(1)&lt;/script&gt; ]]&gt; &quot;quoted&quot; &#39;single&#39; &amp; ampersand&#10;second line"
        for context in ["message ", "logged ", "dev", "app", "db", "rule", "reason", "session", "svc", "file"] {
            #expect(html.contains(context + escaped), "\(context)... is not escaped as expected")
        }
        // In an attribute: the evidence link's title.
        #expect(html.contains("title=\"file" + escaped + ".log:3\""))
    }

    // MARK: Privacy

    /// The sample logs' positions, to four decimals (Paris and Central Park).
    static func sampleCoordinates(_ ws: Workspace) throws -> [Double] {
        try ws.rows("SELECT DISTINCT latitude, longitude FROM events WHERE latitude IS NOT NULL").flatMap { [$0[0] as Double, $0[1] as Double] }
    }

    @Test("coordinates are absent by default, and shown rounded with showCoordinates")
    func coordinates() throws {
        let (ws, hidden) = try RenderedAudit.samples()
        let coordinates = try Self.sampleCoordinates(ws)
        #expect(coordinates.count > 20)
        let page = hidden.html()
        #expect(hidden.timelines.allSatisfy { $0.deliveries.allSatisfy { $0.coordinate == nil } })
        for value in coordinates {
            #expect(!page.contains(String(format: "%.2f", value)), "\(value) shows without --show-coordinates")
        }
        #expect(page.contains("&quot;latitude&quot;:(hidden)"))

        var options = ReportOptions()
        options.showCoordinates = true
        options.coordinateDecimals = 3
        let shown = try RenderedAudit(ws, options: options)
        let shownPage = shown.html(options)
        #expect(shown.timelines.contains { $0.deliveries.contains { $0.coordinate != nil } })
        var seen = 0
        for value in coordinates {
            #expect(!shownPage.contains(String(format: "%.4f", value)), "\(value) shows with more than 3 decimals")
            if shownPage.contains(String(format: "%.3f", value)) { seen += 1 }
        }
        #expect(seen > 10)
        #expect(shownPage.contains("&quot;latitude&quot;:48.858,"))
    }

    // MARK: In a real browser

}

private func occurrences(of needle: String, in text: String) -> Int {
    text.components(separatedBy: needle).count - 1
}

private func captures(_ regex: Regex<(Substring, Substring)>, in text: String) -> [String] {
    text.matches(of: regex).map { String($0.output.1) }
}
