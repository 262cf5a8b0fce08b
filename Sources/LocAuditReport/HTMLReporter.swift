import Foundation
import LocAuditModel
import LocAuditReplay
import LocAuditRules

/// The HTML report: one self-contained page for people who do not read logs. Verdict,
/// summaries by rule, app, device and iOS version, coverage, every finding linked to its
/// evidence lines, and a timeline per session with findings drawn as inline SVG.
///
/// No script, no network (a Content-Security-Policy forbids it), no external font. Every
/// string from a log is escaped; coordinates are masked unless `showCoordinates`.
public enum HTMLReporter {
    /// Evidence lines quoted per finding: a session can show a rule thousands of times, and
    /// a page of thousands of lines is read by no one.
    public static let evidenceShown = 50

    /// The page. Pure: dates come from `report`, evidence text from `evidence` (by event id),
    /// device names and models from `devices` (by device id; a device without is shown by its id).
    public static func generateReport(_ report: AuditReport, timelines: [SessionTimeline], evidence: [Int64: EvidenceText],
                                      devices: [String: DeviceLabel] = [:], options: ReportOptions) -> String {
        let page = Page(report: report, timelines: timelines, evidence: evidence, devices: devices, options: options)
        return page.render()
    }
}

/// Coordinates inside a logged message: hidden, or rounded when the user asked to see them.
enum CoordinateMask {
    // nonisolated(unsafe): Regex is not Sendable, but these two are constants that matching never mutates.
    /// `"latitude":48.858382` (also JSON-escaped, `lat=`, `lng`, `lon`).
    nonisolated(unsafe) static let keyed = #/(?i)(\b(?:latitude|longitude|lat|lng|lon)\\?"?\s*[:=]\s*)([+-]?\d+(?:\.\d+)?)/#
    /// CLLocation's description: `<+48.85838200,+2.29446800>`.
    nonisolated(unsafe) static let described = #/<([+-]?\d+\.\d+),\s*([+-]?\d+\.\d+)>/#

    static func apply(_ message: String, options: ReportOptions) -> String {
        func shown(_ number: Substring) -> String {
            guard options.showCoordinates, let value = Double(number) else { return "(hidden)" }
            return options.coordinate(value)
        }
        var text = message.replacing(keyed) { match in match.output.1 + shown(match.output.2) }
        text = text.replacing(described) { match in "<\(shown(match.output.1)),\(shown(match.output.2))>" }
        return text
    }
}

/// One report page being written.
extension ReportOptions {
    /// A latitude or longitude shown with `coordinateDecimals` decimals.
    func coordinate(_ value: Double) -> String {
        String(format: "%.\(max(0, coordinateDecimals))f", value)
    }
}

private struct Page {
    let report: AuditReport
    let timelines: [SessionTimeline]
    let evidence: [Int64: EvidenceText]
    let devices: [String: DeviceLabel]
    let options: ReportOptions
    /// Device names that more than one device of the page bears: those are told apart by their ids.
    let sharedNames: Set<String>
    /// Finding fingerprint -> its number on the page (1-based, report order), for the timelines.
    let number: [String: Int]
    /// Finding fingerprint -> the number of its session's timeline.
    let timelineOf: [String: Int]

    init(report: AuditReport, timelines: [SessionTimeline], evidence: [Int64: EvidenceText], devices: [String: DeviceLabel],
         options: ReportOptions) {
        self.report = report
        self.timelines = timelines
        self.evidence = evidence
        self.devices = devices
        self.options = options
        let shown = Set(report.findings.map(\.device) + report.resolved.map(\.device) + timelines.map(\.deviceId))
        let named = Dictionary(shown.compactMap { devices[$0]?.name }.map { ($0, 1) }, uniquingKeysWith: +)
        self.sharedNames = Set(named.filter { $0.value > 1 }.keys)
        var number: [String: Int] = [:]
        for (i, f) in report.findings.enumerated() where number[f.fingerprint] == nil { number[f.fingerprint] = i + 1 }
        self.number = number
        var timelineOf: [String: Int] = [:]
        for (i, t) in timelines.enumerated() { for f in t.findings { timelineOf[f.fingerprint] = i + 1 } }
        self.timelineOf = timelineOf
    }

    func render() -> String {
        var html = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="generator" content="locaudit \(HTMLFormat.escape(options.version))">
            <title>\(HTMLFormat.escape("Location permission audit: \(verdictLine)"))</title>
            <style>\(HTMLStyle.css)</style>
            \(filters.css)</head>
            <body>
            <main>

            """
        // The findings first: what the page is opened for. The summary and coverage follow.
        html += header()
        html += verdictSection()
        html += contents()
        html += findingsSection()
        html += summarySection()
        html += coverageSection()
        html += timelinesSection()
        html += evidenceSection()
        html += resolvedSection()
        html += """
            <footer><p>Written by locaudit \(HTMLFormat.escape(options.version)) from audit run \(report.runId). \
            \(options.showCoordinates ? "Coordinates are shown, rounded to \(options.coordinateDecimals) decimal places." : "Coordinates are hidden (pass --show-coordinates to show them, rounded).") \
            Times are UTC.</p></footer>
            </main>
            </body>
            </html>

            """
        return html
    }

    // MARK: Verdict

    var severityCounts: [(Severity, Int)] {
        Severity.allCases.reversed().map { s in (s, report.findings.filter { $0.severity == s }.count) }.filter { $0.1 > 0 }
    }

    /// `PASS`, `FAIL: N findings (x critical, y high)`, or `INSUFFICIENT EVIDENCE`.
    var verdictLine: String {
        switch report.verdict {
        case .pass, .partial, .insufficientEvidence, .findings: return ReportText.verdict(report)
        }
    }

    func header() -> String {
        """
        <header>
        <p class="kicker">locaudit report</p>
        <h1>Location permission audit</h1>
        <p class="meta">Audit run \(report.runId) started \(HTMLFormat.escape(HTMLFormat.readable(report.startedAt))) · \
        \(HTMLFormat.plural(report.events, "event")) · \(HTMLFormat.plural(report.coverage.sessions, "session")) · \
        database <code>\(HTMLFormat.escape(report.database))</code></p>
        </header>

        """
    }

    func verdictSection() -> String {
        let kind: String
        let explanation: String
        switch report.verdict {
        case .pass:
            kind = "pass"
            explanation = "Every applicable rule check was evaluated (\(HTMLFormat.plural(report.coverage.evaluated, "rule check"))): no finding at or above \(report.failOn.rawValue)."
        case .partial:
            kind = "insufficient"
            explanation = "No finding at or above \(report.failOn.rawValue) in what could be evaluated, but \(HTMLFormat.plural(report.coverage.notEvaluableCount, "rule check")) could not be: this is not a full pass."
        case .insufficientEvidence:
            kind = "insufficient"
            explanation = "No rule could be evaluated: the logs do not show enough. This is not a pass."
        case .findings:
            let above = report.findings.filter { $0.severity >= report.failOn }.count
            kind = report.exitCode == 1 ? "fail" : "pass"
            explanation = "\(above) of them at or above the failure threshold (\(report.failOn.rawValue))."
        }
        var html = """
            <section class="verdict \(kind)" aria-labelledby="verdict-title">
            <h2 id="verdict-title">Verdict</h2>
            <p class="verdict-line" id="verdict">\(HTMLFormat.escape(verdictLine))</p>
            <p>\(HTMLFormat.escape(explanation)) Since the previous run: \(report.new.count) new, \(report.persisting.count) persisting, \
            \(report.resolved.count) resolved\(report.hiddenByBaseline > 0 ? "; \(report.hiddenByBaseline) hidden by the baseline" : "").</p>

            """
        if !severityCounts.isEmpty {
            html += "<ul class=\"chips\">"
            for (severity, count) in severityCounts {
                html += "<li class=\"chip sev-\(severity.rawValue)\">\(count) \(severity.rawValue)</li>"
            }
            html += "</ul>\n"
        }
        return html + "</section>\n"
    }

    /// Links to the sections below.
    func contents() -> String {
        var links: [String] = []
        if !report.findings.isEmpty { links.append("<a href=\"#findings-title\">Findings (\(report.findings.count))</a>") }
        links += ["<a href=\"#summary-title\">Summary</a>", "<a href=\"#coverage-title\">Coverage</a>"]
        if !timelines.isEmpty { links.append("<a href=\"#timelines-title\">Session timelines (\(timelines.count))</a>") }
        if !citedBy.isEmpty { links.append("<a href=\"#evidence-title\">Evidence lines</a>") }
        if !report.resolved.isEmpty { links.append("<a href=\"#resolved-title\">Resolved (\(report.resolved.count))</a>") }
        return "<nav aria-label=\"Contents\"><ul class=\"contents\">" + links.map { "<li>\($0)</li>" }.joined() + "</ul></nav>\n"
    }

    // MARK: Summary

    func summarySection() -> String {
        let findings = report.findings
        var html = "<section aria-labelledby=\"summary-title\">\n<h2 id=\"summary-title\">Summary</h2>\n"
        if findings.isEmpty {
            return html + "<p>No findings.</p>\n</section>\n"
        }
        html += "<div class=\"summary\">\n"

        let rules = Dictionary(grouping: findings, by: \.rule).sorted { a, b in
            (a.value[0].severity, b.key) > (b.value[0].severity, a.key)
        }
        html += table("By rule", ["Rule", "Severity", "Findings", "Apps"], rules.map { rule, list in
            let description = RuleRegistry.description(of: rule)?.description
            return ["<code>\(HTMLFormat.escape(rule))</code>" + (description.map { "<br><small>\(HTMLFormat.escape($0))</small>" } ?? ""),
                    badge(list[0].severity), "\(list.count)", "\(Set(list.map(\.bundleId)).count)"]
        }, counts: [2, 3], wide: true)

        let apps = Dictionary(grouping: findings, by: \.bundleId).sorted { $0.key < $1.key }
        html += table("By app", ["App", "Findings", "Most severe", "Devices"], apps.map { app, list in
            ["<code>\(HTMLFormat.escape(app))</code>", "\(list.count)", badge(list.map(\.severity).max()!), "\(Set(list.map(\.device)).count)"]
        }, counts: [1, 3])

        let byVersion = Dictionary(grouping: findings) { $0.osVersion ?? "unknown" }.sorted { a, b in
            versionOrder(a.key, b.key)
        }
        html += table("By iOS version", ["iOS", "Findings", "Devices", "Rules"], byVersion.map { version, list in
            [HTMLFormat.escape(version), "\(list.count)", "\(Set(list.map(\.device)).count)", "\(Set(list.map(\.rule)).count)"]
        }, counts: [1, 2, 3])

        let byDevice = Dictionary(grouping: findings, by: \.device).sorted { (deviceName($0.key), $0.key) < (deviceName($1.key), $1.key) }
        html += table("By device", ["Device", "Model", "iOS", "Findings", "Apps"], byDevice.map { id, list in
            [device(id), HTMLFormat.escape(devices[id]?.model ?? "unknown"), HTMLFormat.escape(versions(list)), "\(list.count)",
             "\(Set(list.map(\.bundleId)).count)"]
        }, counts: [3, 4], wide: true)
        return html + "</div>\n</section>\n"
    }

    func versions(_ findings: [Finding]) -> String {
        let known = Set(findings.compactMap(\.osVersion)).sorted { versionOrder($0, $1) }
        return known.isEmpty ? "unknown" : known.joined(separator: ", ")
    }

    /// `9.3` before `10.3.3`; unknown last.
    func versionOrder(_ a: String, _ b: String) -> Bool {
        func parts(_ v: String) -> [Int] { v.split(separator: ".").map { Int($0) ?? Int.max } }
        return parts(a).lexicographicallyPrecedes(parts(b))
    }

    /// A table whose cells are already HTML; the `counts` columns are numbers.
    func table(_ caption: String, _ headers: [String], _ rows: [[String]], counts: Set<Int> = [], wide: Bool = false) -> String {
        var html = "<table\(wide ? " class=\"wide\"" : "")>\n<caption>\(HTMLFormat.escape(caption))</caption>\n<thead><tr>"
        for (i, h) in headers.enumerated() { html += "<th scope=\"col\"\(counts.contains(i) ? " class=\"count\"" : "")>\(HTMLFormat.escape(h))</th>" }
        html += "</tr></thead>\n<tbody>\n"
        for row in rows {
            html += "<tr>" + row.enumerated().map { "<td\(counts.contains($0.offset) ? " class=\"count\"" : "")>\($0.element)</td>" }.joined() + "</tr>\n"
        }
        return html + "</tbody>\n</table>\n"
    }

    func badge(_ severity: Severity) -> String {
        "<span class=\"badge sev-\(severity.rawValue)\">\(severity.rawValue)</span>"
    }

    // MARK: Devices

    /// A device as people know it: its name (with the end of its id when another device of
    /// the page has that name), its id on hover; its id when no facts named it.
    func deviceName(_ id: String) -> String {
        guard let name = devices[id]?.name, !name.isEmpty else { return id }
        return sharedNames.contains(name) ? "\(name) …\(id.suffix(6))" : name
    }

    /// The device's name as HTML, its UDID in the title (what a hover shows).
    func device(_ id: String) -> String {
        guard devices[id]?.name?.isEmpty == false else { return "<code class=\"device\">\(HTMLFormat.escape(id))</code>" }
        return "<span class=\"device\" title=\"UDID \(HTMLFormat.escape(id))\">\(HTMLFormat.escape(deviceName(id)))</span>"
    }

    /// `(iPhone12,1, iOS 13.7)`: the model and the iOS version, those known.
    func modelAndVersion(_ id: String, _ version: String?) -> String {
        let parts = [devices[id]?.model, version.map { "iOS \($0)" }].compactMap { $0 }
        return parts.isEmpty ? "" : " (\(HTMLFormat.escape(parts.joined(separator: ", "))))"
    }

    // MARK: Coverage

    func coverageSection() -> String {
        let c = report.coverage
        var html = """
            <section aria-labelledby="coverage-title">
            <h2 id="coverage-title">Coverage</h2>
            <p>A clean audit is only as good as what it could judge.</p>
            <ul class="figures">
            <li><strong>\(c.sessions)</strong> sessions</li>
            <li><strong>\(c.evaluated)</strong> rule checks evaluated</li>
            <li\(c.notEvaluableCount > 0 ? " class=\"warn\"" : "")><strong>\(c.notEvaluableCount)</strong> not evaluable</li>
            <li><strong>\(c.notApplicable)</strong> not applicable to the iOS version</li>
            </ul>

            """
        if !c.notEvaluable.isEmpty {
            var rows: [[String]] = []
            for rule in c.notEvaluable.keys.sorted() {
                for (reason, count) in c.notEvaluable[rule]!.sorted(by: { $0.key < $1.key }) {
                    rows.append(["<code>\(HTMLFormat.escape(rule))</code>", HTMLFormat.escape(reason), "\(count)"])
                }
            }
            html += table("Rule checks not evaluable", ["Rule", "Reason", "Checks"], rows, counts: [2])
        }
        if c.sessionsWithUnknownVersion > 0 {
            html += "<p class=\"note\">\(HTMLFormat.plural(c.sessionsWithUnknownVersion, "session")) of unknown iOS version: only the rules valid on every version ran.</p>\n"
        }
        if let zones = c.timeZones {
            html += "<h3>Time zones</h3>\n<ul class=\"zones\">\n"
            for (device, note) in zones.sorted(by: { $0.key < $1.key }) {
                html += "<li><code>\(HTMLFormat.escape(device))</code>: \(HTMLFormat.escape(note))</li>\n"
            }
            html += "</ul>\n"
        }
        if !c.insufficientSessions.isEmpty {
            html += "<h3>Insufficient evidence</h3>\n<p>No rule could be evaluated in these sessions: not a pass.</p>\n<ul class=\"insufficient\">\n"
            for s in c.insufficientSessions { html += "<li>insufficient evidence: \(HTMLFormat.escape(s))</li>\n" }
            html += "</ul>\n"
        }
        return html + "</section>\n"
    }

    // MARK: Findings

    /// The filters of the findings: the severities, apps and rules of the page.
    var filters: FindingFilters { FindingFilters(report.findings) }

    func findingsSection() -> String {
        guard !report.findings.isEmpty else { return "" }
        let filters = self.filters
        var html = "<section class=\"findings\" aria-labelledby=\"findings-title\">\n<h2 id=\"findings-title\">Findings</h2>\n"
        html += filters.controls()
        html += "<div class=\"finding-list\">\n"
        for (i, f) in report.findings.enumerated() {
            let n = i + 1
            let tag = report.new.contains(f.fingerprint) ? "new" : report.persisting.contains(f.fingerprint) ? "persisting" : nil
            html += """
                <article class="finding sev-\(f.severity.rawValue) \(filters.classes(f))" id="finding-\(n)">
                <h3><span class="number">#\(n)</span> \(badge(f.severity)) <code>\(HTMLFormat.escape(f.rule))</code>\
                \(tag.map { " <span class=\"tag\">\($0)</span>" } ?? "")</h3>
                <p class="where"><code>\(HTMLFormat.escape(f.bundleId))</code> on \(device(f.device))\
                \(modelAndVersion(f.device, f.osVersion))\(f.pid.map { ", pid \($0)" } ?? "")\
                \(f.sessionStart.map { ", session from \(HTMLFormat.escape(HTMLFormat.readable($0)))" } ?? ", app configuration")</p>
                <p class="message">\(HTMLFormat.escape(CoordinateMask.apply(f.message, options: options)))</p>
                <p class="when">First seen \(HTMLFormat.escape(HTMLFormat.readable(f.time)))\
                \(timelineOf[f.fingerprint].map { " · <a href=\"#session-\($0)\">see the session timeline</a>" } ?? "")</p>

                """
            // Who owns it and what to do: from the rule's description.
            if let rule = RuleRegistry.description(of: f.rule) {
                let owner = rule.owner.label.hasPrefix("the ") ? "The" + rule.owner.label.dropFirst(3) : rule.owner.label
                html += "<p class=\"guidance\"><strong>\(HTMLFormat.escape(owner))</strong>: "
                    // No address in the page (it loads nothing and names no site): the iOS advice without Feedback Assistant's.
                    + "\(HTMLFormat.escape(rule.owner == .iOS ? rule.remedy + " File a Feedback Assistant report and attach the evidence lines below." : rule.whatToDo))</p>\n"
            }
            if let s = f.suppressed { html += "<p class=\"suppressed\">\(HTMLFormat.escape(s.text.prefix(1).uppercased() + s.text.dropFirst()))</p>\n" }
            html += """
                <p class="evidence-title">Evidence (\(f.evidence.count)):</p>
                <ul class="evidence-links">

                """
            html += evidenceLinks(f)
            html += "</ul>\n"
            if f.evidence.count > HTMLReporter.evidenceShown {
                html += "<p class=\"more\">and \(f.evidence.count - HTMLReporter.evidenceShown) more lines, not shown here "
                    + "(the json report lists them all)</p>\n"
            }
            html += "</article>\n"
        }
        // After the findings (a counter counts those shown), drawn above them.
        html += "<p class=\"shown-count\" data-total=\"\(report.findings.count)\" aria-live=\"polite\"></p>\n"
        return html + "</div>\n</section>\n"
    }

    /// The lines a finding cites (its first `evidenceShown`), in time order, each with its
    /// time: the Info.plist and lines whose text is not at hand first, in the finding's order.
    func evidenceLinks(_ f: Finding) -> String {
        let shown = f.evidence.prefix(HTMLReporter.evidenceShown)
        let timed = shown.compactMap { e in e.event.flatMap { evidence[$0] }.map { (line: e, text: $0) } }
            .sorted { ($0.text.time, $0.text.file, $0.text.line) < ($1.text.time, $1.text.file, $1.text.line) }
        let days = Set(timed.map { $0.text.time.prefix(10) })
        var html = ""
        for e in shown where e.event.flatMap({ evidence[$0] }) == nil {
            html += "<li>\(HTMLFormat.escape(e.text))\(e.line == nil ? " <small>(Info.plist)</small>" : "")</li>\n"
        }
        for (e, text) in timed {
            // The clock when every line is of one day, else the date too.
            let time = days.count > 1 ? String(HTMLFormat.readable(text.time).dropLast(4)) : String(HTMLFormat.readable(text.time).dropFirst(11).dropLast(4))
            html += "<li data-time=\"\(HTMLFormat.escape(text.time))\"><span class=\"time\">\(HTMLFormat.escape(time))</span> "
                + "<a href=\"#ev-\(text.event)\" title=\"\(HTMLFormat.escape(e.text))\">\(HTMLFormat.escape(shortName(e)))</a></li>\n"
        }
        return html
    }

    /// `qa-iphone6-8-2026-11-20.log.gz:69`: the file's name, its folder is in the link's title.
    func shortName(_ e: EvidenceLine) -> String {
        let name = e.file.split(separator: "/").last.map(String.init) ?? e.file
        return e.line.map { "\(name):\($0)" } ?? name
    }

    // MARK: Timelines

    func timelinesSection() -> String {
        guard !timelines.isEmpty else { return "" }
        let quoted = Set(citedBy.keys)
        var html = """
            <section aria-labelledby="timelines-title">
            <h2 id="timelines-title">Session timelines</h2>
            <p>Each session with findings, as the audit replayed it: what the app and iOS held over time, \
            the locations delivered, and where each finding shows. Hover a shape for details; click a finding to read it.</p>
            <ul class="legend">
            <li><svg width="14" height="14" aria-hidden="true"><circle cx="7" cy="7" r="4.5" class="delivery fg"/></svg> delivery in foreground</li>
            <li><svg width="14" height="14" aria-hidden="true"><circle cx="7" cy="7" r="4.5" class="delivery bg"/></svg> delivery in background</li>
            <li><svg width="14" height="14" aria-hidden="true"><circle cx="7" cy="7" r="4.5" class="delivery private"/></svg> location hidden by the log</li>
            <li><svg width="16" height="16" aria-hidden="true"><circle cx="8" cy="8" r="5.5" class="delivery fg cited"/></svg> cited as evidence</li>
            <li><svg width="14" height="14" aria-hidden="true"><path d="M7 1 L13 12 L1 12 Z" class="sev-high"/></svg> finding</li>
            <li><svg width="30" height="14" aria-hidden="true"><g class="interval \(TimelineDrawing.stateClass(.whenInUse)) observed"><rect x="1" y="1" width="28" height="12"/></g></svg> \
            a status a line of this session says</li>
            <li><svg width="30" height="14" aria-hidden="true"><g class="interval \(TimelineDrawing.stateClass(.whenInUse)) modelled"><rect x="1" y="1" width="28" height="12"/></g></svg> \
            a status the replay models: no line of this session says it (carried over, or reset at a relaunch)</li>
            <li><svg width="14" height="14" aria-hidden="true"><path class="contradiction" d="M2 2 L12 2 L7 10 Z"/></svg> a line says another status</li>
            <li><svg width="22" height="14" aria-hidden="true"><defs><pattern id="unknown-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect class="hatch-ground" width="6" height="6"/><line class="hatch-line" x1="0" y1="0" x2="0" y2="6"/></pattern></defs><g class="interval unknown"><rect width="22" height="14"/></g></svg> unknown: no line says it</li>

            """
        if timelines.contains(where: { !$0.prompts.isEmpty }) {
            html += """
                <li><svg width="34" height="14" aria-hidden="true"><g class="prompt"><rect x="6" y="2" width="22" height="10" rx="2"/>\
                <path class="shown" d="M6 0 L12 7 L6 14 L0 7 Z"/><circle class="answer grant" cx="28" cy="7" r="5"/></g></svg> \
                a prompt, from its line to the answer (green a grant, red a refusal)</li>

                """
        }
        html += """
            </ul>

            """
        for (i, timeline) in timelines.enumerated() {
            html += TimelineDrawing(timeline: timeline, index: i + 1, number: number, options: options,
                                    deviceName: deviceName(timeline.deviceId), deviceHTML: device(timeline.deviceId),
                                    model: devices[timeline.deviceId]?.model, quoted: quoted).section()
        }
        return html + "</section>\n"
    }

    // MARK: Evidence

    /// Event id -> the numbers of the findings citing it, for the lines whose text is known.
    var citedBy: [Int64: [Int]] {
        var citedBy: [Int64: [Int]] = [:]
        for (i, f) in report.findings.enumerated() {
            for id in Set(f.evidence.prefix(HTMLReporter.evidenceShown).compactMap(\.event)) where evidence[id] != nil {
                citedBy[id, default: []].append(i + 1)
            }
        }
        return citedBy
    }

    func evidenceSection() -> String {
        let citedBy = self.citedBy
        guard !citedBy.isEmpty else { return "" }
        let lines = citedBy.keys.map { evidence[$0]! }.sorted { ($0.file, $0.line, $0.event) < ($1.file, $1.line, $1.event) }
        var html = """
            <section aria-labelledby="evidence-title">
            <h2 id="evidence-title">Evidence lines</h2>
            <p>The log lines the findings cite, as logged\(options.showCoordinates ? "" : " (coordinates hidden)").</p>
            <ol class="evidence">

            """
        for line in lines {
            let cites = Set(citedBy[line.event]!).sorted().map {
                "<a href=\"#finding-\($0)\">#\($0) \(HTMLFormat.escape(report.findings[$0 - 1].rule))</a>"
            }.joined(separator: ", ")
            html += """
                <li id="ev-\(line.event)"><p class="source"><code>\(HTMLFormat.escape("\(line.file):\(line.line)"))</code> \
                <span class="time">\(HTMLFormat.escape(HTMLFormat.readable(line.time)))</span> <span class="cites">cited by \(cites)</span></p>
                <pre>\(HTMLFormat.escape(CoordinateMask.apply(line.message, options: options)))</pre></li>

                """
        }
        return html + "</ol>\n</section>\n"
    }

    func resolvedSection() -> String {
        guard !report.resolved.isEmpty else { return "" }
        var html = "<section aria-labelledby=\"resolved-title\">\n<h2 id=\"resolved-title\">Resolved since the previous run</h2>\n<ul class=\"resolved\">\n"
        for f in report.resolved {
            html += "<li>\(badge(f.severity)) <code>\(HTMLFormat.escape(f.rule))</code>: <code>\(HTMLFormat.escape(f.bundleId))</code> on "
                + "\(device(f.device)), \(HTMLFormat.escape(HTMLFormat.readable(f.time))): \(HTMLFormat.escape(CoordinateMask.apply(f.message, options: options)))</li>\n"
        }
        return html + "</ul>\n</section>\n"
    }
}

/// Text shared by the page and its timelines.
enum HTMLFormat {
    /// Escapes text for HTML text and attribute values alike: `& < > " '`, line breaks as
    /// character references (kept by `white-space: pre-wrap`), other control characters replaced.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\n": out += "&#10;"
            case "\r": out += "&#13;"
            case "\t": out += "&#9;"
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// `2026-11-20T14:05:12.123456Z` -> `2026-11-20 14:05:12 UTC`; other text unchanged.
    static func readable(_ iso: String) -> String {
        guard iso.count >= 19, iso.dropFirst(10).first == "T" else { return iso }
        return "\(iso.prefix(10)) \(iso.dropFirst(11).prefix(8)) UTC"
    }

    /// `14:05:12` (UTC).
    static func clock(_ timeUS: Int64) -> String {
        String(Timestamps.isoUTC(timeUS).dropFirst(11).prefix(8))
    }

    /// `1 finding`, `3 findings`.
    static func plural(_ n: Int, _ one: String, _ many: String? = nil) -> String {
        "\(n) \(n == 1 ? one : (many ?? one + "s"))"
    }
}
