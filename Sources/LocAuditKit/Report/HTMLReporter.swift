import Foundation

/// The HTML report: one self-contained page for people who do not read logs. Verdict,
/// summaries by rule, app, device and iOS version, coverage, every finding linked to its
/// evidence lines, and a timeline per session with findings drawn as inline SVG.
///
/// No script, no network (a Content-Security-Policy forbids it), no external font. Every
/// string from a log is escaped; coordinates are masked unless `showCoordinates`.
public enum HTMLReporter {
    public static let identifier = "html"
    /// Evidence lines quoted per finding: a session can show a rule thousands of times, and
    /// a page of thousands of lines is read by no one.
    public static let evidenceShown = 50

    /// The page. Pure: dates come from `report`, evidence text from `evidence` (by event id).
    public static func generateReport(_ report: AuditReport, timelines: [SessionTimeline], evidence: [Int64: EvidenceText],
                                      options: ReportOptions) -> String {
        let page = Page(report: report, timelines: timelines, evidence: evidence, options: options)
        return page.render()
    }
}

/// Coordinates inside a logged message: hidden, or rounded when the user asked to see them.
enum CoordinateMask {
    /// `"latitude":48.858382` (also JSON-escaped, `lat=`, `lng`, `lon`).
    nonisolated(unsafe) static let keyed = #/(?i)(\b(?:latitude|longitude|lat|lng|lon)\\?"?\s*[:=]\s*)([+-]?\d+(?:\.\d+)?)/#
    /// CLLocation's description: `<+48.85838200,+2.29446800>`.
    nonisolated(unsafe) static let described = #/<([+-]?\d+\.\d+),\s*([+-]?\d+\.\d+)>/#

    static func apply(_ message: String, options: ReportOptions) -> String {
        func shown(_ number: Substring) -> String {
            guard options.showCoordinates, let value = Double(number) else { return "(hidden)" }
            return String(format: "%.\(max(0, options.coordinateDecimals))f", value)
        }
        var text = message.replacing(keyed) { match in match.output.1 + shown(match.output.2) }
        text = text.replacing(described) { match in "<\(shown(match.output.1)),\(shown(match.output.2))>" }
        return text
    }
}

/// One report page being written.
private struct Page {
    let report: AuditReport
    let timelines: [SessionTimeline]
    let evidence: [Int64: EvidenceText]
    let options: ReportOptions
    /// Finding fingerprint -> its number on the page (1-based, report order), for the timelines.
    let number: [String: Int]
    /// Finding fingerprint -> the number of its session's timeline.
    let timelineOf: [String: Int]

    init(report: AuditReport, timelines: [SessionTimeline], evidence: [Int64: EvidenceText], options: ReportOptions) {
        self.report = report
        self.timelines = timelines
        self.evidence = evidence
        self.options = options
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
            <style>\(Page.css)</style>
            </head>
            <body>
            <main>

            """
        html += header()
        html += verdictSection()
        html += contents()
        html += summarySection()
        html += coverageSection()
        html += findingsSection()
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
        case .pass: return "PASS"
        case .insufficientEvidence: return "INSUFFICIENT EVIDENCE"
        case .findings:
            let counts = severityCounts.map { "\($0.1) \($0.0.rawValue)" }.joined(separator: ", ")
            let findings = HTMLFormat.plural(report.findings.count, "finding")
            return report.exitCode == 1 ? "FAIL: \(findings) (\(counts))" : "PASS: \(findings) below \(report.failOn.rawValue) (\(counts))"
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
            explanation = "No finding in what could be evaluated (\(HTMLFormat.plural(report.coverage.evaluated, "rule check")))."
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
        var links = ["<a href=\"#summary-title\">Summary</a>", "<a href=\"#coverage-title\">Coverage</a>"]
        if !report.findings.isEmpty { links.append("<a href=\"#findings-title\">Findings (\(report.findings.count))</a>") }
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

        let devices = Dictionary(grouping: findings, by: \.device).sorted { $0.key < $1.key }
        html += table("By device", ["Device", "iOS", "Findings", "Apps"], devices.map { device, list in
            ["<code>\(HTMLFormat.escape(device))</code>", HTMLFormat.escape(versions(list)), "\(list.count)", "\(Set(list.map(\.bundleId)).count)"]
        }, counts: [2, 3], wide: true)
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

    func findingsSection() -> String {
        guard !report.findings.isEmpty else { return "" }
        var html = "<section aria-labelledby=\"findings-title\">\n<h2 id=\"findings-title\">Findings</h2>\n"
        for (i, f) in report.findings.enumerated() {
            let n = i + 1
            let tag = report.new.contains(f.fingerprint) ? "new" : report.persisting.contains(f.fingerprint) ? "persisting" : nil
            html += """
                <article class="finding sev-\(f.severity.rawValue)" id="finding-\(n)">
                <h3><span class="number">#\(n)</span> \(badge(f.severity)) <code>\(HTMLFormat.escape(f.rule))</code>\
                \(tag.map { " <span class=\"tag\">\($0)</span>" } ?? "")</h3>
                <p class="where"><code>\(HTMLFormat.escape(f.bundleId))</code> on <code>\(HTMLFormat.escape(f.device))</code>\
                \(f.osVersion.map { " (iOS \(HTMLFormat.escape($0)))" } ?? "")\(f.pid.map { ", pid \($0)" } ?? "")\
                \(f.sessionStart.map { ", session from \(HTMLFormat.escape(HTMLFormat.readable($0)))" } ?? ", app configuration")</p>
                <p class="message">\(HTMLFormat.escape(CoordinateMask.apply(f.message, options: options)))</p>
                <p class="when">First seen \(HTMLFormat.escape(HTMLFormat.readable(f.time)))\
                \(timelineOf[f.fingerprint].map { " · <a href=\"#session-\($0)\">see the session timeline</a>" } ?? "")</p>
                <p class="evidence-title">Evidence (\(f.evidence.count)):</p>
                <ul class="evidence-links">

                """
            for e in f.evidence.prefix(HTMLReporter.evidenceShown) {
                if let id = e.event, evidence[id] != nil {
                    html += "<li><a href=\"#ev-\(id)\" title=\"\(HTMLFormat.escape(e.text))\">\(HTMLFormat.escape(shortName(e)))</a></li>\n"
                } else {
                    html += "<li>\(HTMLFormat.escape(e.text))\(e.line == nil ? " <small>(Info.plist)</small>" : "")</li>\n"
                }
            }
            html += "</ul>\n"
            if f.evidence.count > HTMLReporter.evidenceShown {
                html += "<p class=\"more\">and \(f.evidence.count - HTMLReporter.evidenceShown) more lines, not shown here "
                    + "(the json report lists them all)</p>\n"
            }
            html += "</article>\n"
        }
        return html + "</section>\n"
    }

    /// `qa-iphone6-8-2026-11-20.log.gz:69`: the file's name, its folder is in the link's title.
    func shortName(_ e: EvidenceLine) -> String {
        let name = e.file.split(separator: "/").last.map(String.init) ?? e.file
        return e.line.map { "\(name):\($0)" } ?? name
    }

    // MARK: Timelines

    func timelinesSection() -> String {
        guard !timelines.isEmpty else { return "" }
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
            <li><svg width="22" height="14" aria-hidden="true"><defs><pattern id="unknown-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#f8f9fa"/><line x1="0" y1="0" x2="0" y2="6" stroke="#adb5bd" stroke-width="2"/></pattern></defs><rect class="unknown" width="22" height="14" fill="url(#unknown-hatch)"/></svg> unknown: no line says it</li>
            </ul>

            """
        for (i, timeline) in timelines.enumerated() {
            html += TimelineDrawing(timeline: timeline, index: i + 1, number: number, options: options).section()
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
                + "<code>\(HTMLFormat.escape(f.device))</code>, \(HTMLFormat.escape(HTMLFormat.readable(f.time))): \(HTMLFormat.escape(CoordinateMask.apply(f.message, options: options)))</li>\n"
        }
        return html + "</ul>\n</section>\n"
    }

    static let css = """

        :root { --ink: #1d2433; --muted: #5b6478; --line: #e3e7ee; --bg: #f6f7fb; --card: #fff;
          --critical: #b3261e; --high: #e8590c; --medium: #d9a400; --low: #1c7ed6; --info: #6c757d; }
        * { box-sizing: border-box; }
        body { margin: 0; background: var(--bg); color: var(--ink);
          font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Liberation Sans", sans-serif; }
        main { max-width: 1180px; margin: 0 auto; padding: 24px 28px 48px; }
        h1 { font-size: 28px; margin: 0 0 4px; }
        h2 { font-size: 20px; margin: 36px 0 12px; padding-bottom: 6px; border-bottom: 1px solid var(--line); }
        h3 { font-size: 16px; margin: 0 0 6px; }
        code, pre { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 13px; }
        a { color: #1864ab; }
        .kicker { text-transform: uppercase; letter-spacing: .08em; color: var(--muted); font-size: 12px; margin: 0; }
        .meta { color: var(--muted); margin: 0; overflow-wrap: anywhere; }
        .verdict { margin-top: 20px; padding: 16px 20px; border-radius: 10px; border-left: 8px solid; background: var(--card);
          box-shadow: 0 1px 3px rgba(0,0,0,.08); }
        .verdict h2 { border: 0; margin: 0; padding: 0; font-size: 13px; text-transform: uppercase; letter-spacing: .08em; color: var(--muted); }
        .verdict-line { font-size: 26px; font-weight: 700; margin: 2px 0 6px; }
        .verdict.fail { border-color: var(--critical); } .verdict.fail .verdict-line { color: var(--critical); }
        .verdict.pass { border-color: #2b8a3e; } .verdict.pass .verdict-line { color: #2b8a3e; }
        .verdict.insufficient { border-color: #868e96; background: #fff8e1; } .verdict.insufficient .verdict-line { color: #7a5a00; }
        .verdict p { margin: 4px 0; }
        .contents { list-style: none; padding: 0; margin: 14px 0 0; display: flex; flex-wrap: wrap; gap: 4px 18px; font-size: 14px; }
        .chips, .legend, .figures { list-style: none; padding: 0; margin: 10px 0 0; display: flex; flex-wrap: wrap; gap: 8px 16px; }
        .chip { padding: 2px 10px; border-radius: 999px; color: #fff; font-weight: 600; font-size: 13px; }
        .badge { display: inline-block; white-space: nowrap; padding: 0 8px; border-radius: 4px; color: #fff; font-size: 12px; font-weight: 600;
          text-transform: uppercase; letter-spacing: .03em; vertical-align: 1px; }
        .chip.sev-critical, .badge.sev-critical { background: var(--critical); }
        .chip.sev-high, .badge.sev-high { background: var(--high); }
        .chip.sev-medium, .badge.sev-medium { background: var(--medium); color: #1d2433; }
        .chip.sev-low, .badge.sev-low { background: var(--low); }
        .chip.sev-info, .badge.sev-info { background: var(--info); }
        .summary { display: grid; grid-template-columns: repeat(2, 1fr); gap: 18px; align-items: start; }
        .summary table.wide { grid-column: 1 / -1; }
        table { border-collapse: collapse; width: 100%; background: var(--card); border-radius: 8px; overflow: hidden;
          box-shadow: 0 1px 2px rgba(0,0,0,.06); }
        caption { text-align: left; font-weight: 600; padding: 0 0 6px; }
        th, td { text-align: left; padding: 6px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
        td code { overflow-wrap: anywhere; }
        th { background: #eef1f6; font-size: 13px; color: var(--muted); white-space: nowrap; }
        td.count { text-align: right; width: 1%; white-space: nowrap; } th.count { text-align: right; }
        td small { color: var(--muted); }
        .figures { margin-bottom: 16px; }
        .figures li { background: var(--card); padding: 8px 14px; border-radius: 8px; box-shadow: 0 1px 2px rgba(0,0,0,.06); }
        .figures li.warn { background: #fff4e6; }
        .figures strong { font-size: 20px; margin-right: 4px; }
        .note { color: #7a5a00; background: #fff8e1; padding: 8px 12px; border-radius: 6px; }
        .insufficient li { color: #7a5a00; }
        .finding { background: var(--card); border-radius: 8px; padding: 12px 16px; margin: 0 0 12px; border-left: 5px solid;
          box-shadow: 0 1px 2px rgba(0,0,0,.06); }
        .finding:target, .evidence li:target { outline: 3px solid #ffd43b; }
        .finding.sev-critical { border-color: var(--critical); } .finding.sev-high { border-color: var(--high); }
        .finding.sev-medium { border-color: var(--medium); } .finding.sev-low { border-color: var(--low); }
        .finding.sev-info { border-color: var(--info); }
        .finding p { margin: 4px 0; }
        .number { color: var(--muted); font-weight: 400; }
        .tag { font-size: 12px; color: var(--muted); border: 1px solid var(--line); border-radius: 4px; padding: 0 6px; font-weight: 400; }
        .where, .when { color: var(--muted); font-size: 14px; overflow-wrap: anywhere; }
        .message { font-size: 15px; white-space: pre-wrap; overflow-wrap: anywhere; }
        .more { font-size: 13px; color: var(--muted); }
        .evidence-title { font-size: 13px; color: var(--muted); margin-bottom: 0; }
        .evidence-links { margin: 2px 0 0; padding-left: 18px; font-size: 13px; columns: 2; overflow-wrap: anywhere; }
        .session { background: var(--card); border-radius: 8px; padding: 12px 16px; margin: 0 0 16px; box-shadow: 0 1px 2px rgba(0,0,0,.06); }
        .session p { margin: 2px 0 8px; color: var(--muted); font-size: 14px; }
        .session ul { margin: 6px 0 0; padding-left: 18px; font-size: 14px; }
        svg.timeline { width: 100%; height: auto; display: block; font-family: inherit; }
        svg text { font-size: 11px; fill: var(--ink); }
        svg .axis text { fill: var(--muted); } svg .axis line { stroke: #d0d5dd; }
        svg .lane-name { fill: var(--muted); font-size: 12px; }
        svg .value { font-size: 10.5px; pointer-events: none; }
        svg .value.light { fill: #fff; }
        svg .lane-bg { fill: #f1f3f7; }
        .delivery { stroke: #fff; stroke-width: 1; }
        .delivery.fg { fill: #1971c2; } .delivery.bg { fill: #e8590c; } .delivery.private { fill: #fff; stroke: #495057; stroke-width: 1.5; }
        .delivery.cited { stroke: #c92a2a; stroke-width: 2.5; }
        svg .finding-line { stroke-width: 1.5; stroke-dasharray: 4 3; opacity: .8; }
        svg .finding-span { stroke-width: 3; opacity: .35; }
        svg .evidence-tick { stroke-width: 2; }
        svg .finding-label { font-size: 12px; font-weight: 600; }
        svg a:hover .finding-label { text-decoration: underline; }
        svg .sev-critical { fill: var(--critical); stroke: var(--critical); } svg .sev-high { fill: var(--high); stroke: var(--high); }
        svg .sev-medium { fill: var(--medium); stroke: var(--medium); } svg .sev-low { fill: var(--low); stroke: var(--low); }
        svg .sev-info { fill: var(--info); stroke: var(--info); }
        svg text.finding-label { stroke: #fff; stroke-width: 4px; stroke-linejoin: round; paint-order: stroke; }
        svg .value.missing { fill: #868e96; font-style: italic; }
        svg rect.unknown { fill: url(#unknown-hatch); stroke: #ced4da; stroke-width: .5; }
        .legend li { font-size: 13px; color: var(--muted); display: flex; align-items: center; gap: 6px; }
        .evidence { padding-left: 0; list-style: none; }
        .evidence li { background: var(--card); border-radius: 6px; padding: 6px 12px; margin: 0 0 8px; box-shadow: 0 1px 2px rgba(0,0,0,.05); }
        .evidence .source { margin: 0; font-size: 13px; overflow-wrap: anywhere; }
        .evidence .time, .evidence .cites { color: var(--muted); margin-left: 8px; }
        .evidence pre { margin: 4px 0 0; white-space: pre-wrap; overflow-wrap: anywhere; color: #343a40; }
        .resolved li { margin: 4px 0; }
        footer { margin-top: 40px; color: var(--muted); font-size: 13px; }

        """
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
