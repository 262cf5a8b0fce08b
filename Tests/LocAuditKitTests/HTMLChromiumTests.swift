import Foundation
import GRDB
import Testing
@testable import LocAuditUnitTests
@testable import LocAuditAudit
@testable import LocAuditModel
@testable import LocAuditReplay
@testable import LocAuditRules
@testable import LocAuditNormalise
@testable import LocAuditReport
@testable import LocAuditStore

/// HTMLReportTests' pages in headless Chromium (split from HTMLReportTests.swift, whose checks run in the test process).
@Suite(.tags(.endToEnd), .ownThreads) struct HTMLChromiumTests {
    @Test("in headless Chromium, clicking a severity, an app and a rule hides the other findings (and the choices combine); the report opens on the findings; screenshots at 1400 and 760 px",
          .tags(.endToEnd), .timeLimit(.minutes(3)), .needsChromium)
    func filtersInChromium() throws {
        let chromium = try Chromium.required()
        let (ws, audit) = try RenderedAudit.samples()
        let findings = audit.report.findings
        let filters = FindingFilters(findings)
        let ids = findings.indices.map { "finding-\($0 + 1)" }
        func expected(_ keep: (Finding) -> Bool) -> [String] { findings.indices.filter { keep(findings[$0]) }.map { ids[$0] } }
        // The app and rule with the most findings (2nd app in name order when it has a high finding too).
        let app = filters.apps.indices.max { filters.apps[$0].1 < filters.apps[$1].1 }!
        let rule = filters.rules.indices.max { filters.rules[$0].1 < filters.rules[$1].1 }!
        let html = audit.html()
        let result: HTMLReportTests.Filtered = try chromium.evaluate(html, script: HTMLReportTests.filterScript(app: app + 1, rule: rule + 1), in: ws.dir,
                                                     width: 1400, height: 900)
        #expect(result.all == ids)
        #expect(result.high == expected { $0.severity == .high } && !result.high.isEmpty)
        #expect(result.highAndApp == expected { $0.severity == .high && $0.bundleId == filters.apps[app].0 })
        #expect(result.app == expected { $0.bundleId == filters.apps[app].0 } && result.app.count < ids.count)
        #expect(result.rule == expected { $0.rule == filters.rules[rule].0 } && result.rule.count < ids.count)
        #expect(result.reset == ids)
        #expect(result.checked == ["f-sev-all", "f-app-all", "f-rule-all"])
        #expect(result.findingsTop < 900, "the findings do not start on the first screen: at \(result.findingsTop) px")

        // The page as written (its CSP, no script), and a copy that opens narrowed to high
        // findings (the `checked` moved, no script either): screenshots at both widths.
        try TestScreenshots.take(chromium, html: html, name: "report", in: ws.dir)
        let narrowed = html.replacingOccurrences(of: "id=\"f-sev-all\" checked>", with: "id=\"f-sev-all\">")
            .replacingOccurrences(of: "id=\"f-sev-high\">", with: "id=\"f-sev-high\" checked>")
        #expect(narrowed.contains("id=\"f-sev-high\" checked>") && !narrowed.contains("id=\"f-sev-all\" checked>"))
        try TestScreenshots.take(chromium, html: narrowed, name: "report-high-only", in: ws.dir)
        // The tiny audit's page down to its timeline, with its prompts lane.
        let (tinyWS, tiny) = try HTMLReportTests.tinyAudit()
        try TestScreenshots.take(chromium, html: tiny.html(), name: "report-prompts", in: tinyWS.dir, showing: "#session-1")
    }

    @Test("the sample report renders in headless Chromium: verdict, a timeline per session with findings, findings linked to their evidence, a non-blank screenshot",
          .tags(.endToEnd), .timeLimit(.minutes(2)), .needsChromium)
    func chromium() throws {
        let chromium = try Chromium.required()
        let (ws, audit) = try RenderedAudit.samples()
        let page = ws.dir.appendingPathComponent("report.html")
        try audit.html().write(to: page, atomically: true, encoding: .utf8)

        let dom = try chromium.dumpDOM(page, profile: ws.dir.appendingPathComponent("chromium-profile"))
        #expect(dom.contains("FAIL: 16 findings (2 critical, 9 high, 3 medium, 2 low)"))
        #expect(dom.contains("<title>Location permission audit: FAIL: 16 findings"))
        let sessions = Set(audit.report.findings.compactMap { f in f.sessionStart.map { "\(f.device) \(f.bundleId) \(f.pid ?? -1) \($0)" } })
        #expect(sessions.count == 12)
        #expect(occurrences(of: "<svg class=\"timeline\"", in: dom) == sessions.count)
        #expect(occurrences(of: "<svg class=\"timeline\"", in: dom) == audit.timelines.count)

        let ids = Set(captures(#/ id="([^"]+)"/#, in: dom))
        let targets = captures(#/ href="#([^"]+)"/#, in: dom)
        #expect(!targets.isEmpty)
        #expect(Set(targets).subtracting(ids).isEmpty, "links to nothing: \(Set(targets).subtracting(ids).sorted())")
        for (i, finding) in audit.report.findings.enumerated() {
            #expect(ids.contains("finding-\(i + 1)"))
            for id in finding.evidence.compactMap(\.event) {
                #expect(ids.contains("ev-\(id)") && targets.contains("ev-\(id)"), "finding \(i + 1): evidence \(id) not linked")
            }
        }
        // Each timeline's finding marks lead to findings.
        #expect(occurrences(of: "<a href=\"#finding-", in: dom) >= audit.timelines.map(\.findings.count).reduce(0, +))
        #expect(!dom.contains("<script"))
        // Nothing from the network: the only url() is the page's own hatch pattern for unknown values.
        #expect(!dom.contains("src=\"http") && !dom.contains("href=\"http") && !dom.replacingOccurrences(of: "url(#unknown-hatch)", with: "").contains("url("))

        let screenshot = ws.dir.appendingPathComponent("report.png")
        try chromium.screenshot(page, to: screenshot, profile: ws.dir.appendingPathComponent("chromium-profile"))
        let png = try Data(contentsOf: screenshot)
        try Chromium.keep([page, screenshot])
        let size = try #require(pngSize(png))
        #expect(size.width == 1280 && size.height == 2000)
        // A blank page of the same size, rendered by the same browser, for scale.
        let blankPage = ws.dir.appendingPathComponent("blank.html")
        try "<!DOCTYPE html><html><head><title>blank</title></head><body></body></html>".write(to: blankPage, atomically: true, encoding: .utf8)
        let blankShot = ws.dir.appendingPathComponent("blank.png")
        try chromium.screenshot(blankPage, to: blankShot, profile: ws.dir.appendingPathComponent("chromium-profile"))
        let blank = try Data(contentsOf: blankShot)
        #expect(pngSize(blank).map { $0.width == 1280 && $0.height == 2000 } == true)
        #expect(png.count > 8 * blank.count, "the screenshot (\(png.count) bytes) looks blank next to an empty page (\(blank.count) bytes)")

        // The browser parses log strings as text: no element, no attribute comes out of them.
        let (report, timelines, evidence) = HTMLReportTests.hostileReport()
        let hostilePage = ws.dir.appendingPathComponent("hostile.html")
        try HTMLReporter.generateReport(report, timelines: timelines, evidence: evidence, options: ReportOptions())
            .write(to: hostilePage, atomically: true, encoding: .utf8)
        let hostileDOM = try chromium.dumpDOM(hostilePage, profile: ws.dir.appendingPathComponent("chromium-profile"))
        #expect(!hostileDOM.contains("<script"))
        #expect(hostileDOM.contains("logged &lt;script&gt;alert(1)&lt;/script&gt; ]]&gt; \"quoted\" 'single' &amp; ampersand\nsecond line"))
        #expect(occurrences(of: "<article ", in: hostileDOM) == 1)
        #expect(occurrences(of: "<svg class=\"timeline\"", in: hostileDOM) == 1)
    }
}

private func occurrences(of needle: String, in text: String) -> Int {
    text.components(separatedBy: needle).count - 1
}

private func captures(_ regex: Regex<(Substring, Substring)>, in text: String) -> [String] {
    text.matches(of: regex).map { String($0.output.1) }
}
