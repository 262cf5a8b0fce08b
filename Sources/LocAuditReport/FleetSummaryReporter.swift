import Foundation
import LocAuditModel
import LocAuditRules

/// The fleet at a glance, for the morning: open findings as a matrix of app x iOS version
/// and of device x rule, and the trend over the latest runs. Pure functions of a `FleetSummary`.
public enum FleetSummaryReporter {
    /// The plain-text summary's width: every line fits a terminal of 100 columns.
    public static let textWidth = 100

    /// A matrix: row labels, column labels, the open findings of each cell.
    struct Matrix {
        var rows: [String]
        var columns: [String]
        var cells: [String: [String: [FleetSummary.Cell]]]

        init(_ cells: [FleetSummary.Cell], row: (FleetSummary.Cell) -> String, column: (FleetSummary.Cell) -> String,
             columnOrder: ([String]) -> [String] = { $0.sorted() }) {
            var grouped: [String: [String: [FleetSummary.Cell]]] = [:]
            for c in cells { grouped[row(c), default: [:]][column(c), default: []].append(c) }
            self.cells = grouped
            rows = grouped.keys.sorted()
            columns = columnOrder(Array(Set(cells.map(column))))
        }

        func findings(_ r: String, _ c: String) -> [FleetSummary.Cell] { cells[r]?[c] ?? [] }
        func count(_ r: String, _ c: String) -> Int { findings(r, c).count }
        func rowTotal(_ r: String) -> Int { cells[r]?.values.reduce(0) { $0 + $1.count } ?? 0 }
        func columnTotal(_ c: String) -> Int { rows.reduce(0) { $0 + count($1, c) } }
        /// The most severe finding's severity in a cell; nil for an empty one.
        func worst(_ r: String, _ c: String) -> Severity? { findings(r, c).map(\.severity).max() }
        /// The apps of a cell, in name order, with their findings' counts.
        func apps(_ r: String, _ c: String) -> [(bundleId: String, count: Int)] {
            Dictionary(grouping: findings(r, c), by: \.bundleId).map { ($0.key, $0.value.count) }.sorted { $0.bundleId < $1.bundleId }
        }
    }

    static func appByIOS(_ s: FleetSummary) -> Matrix {
        Matrix(s.open, row: \.bundleId, column: { $0.iosMajor.map { "iOS \($0)" } ?? "iOS ?" }) { labels in
            labels.sorted { (Int($0.dropFirst(4)) ?? Int.max, $0) < (Int($1.dropFirst(4)) ?? Int.max, $1) }
        }
    }

    static func deviceByRule(_ s: FleetSummary) -> Matrix { Matrix(s.open, row: \.device, column: \.rule) }

    /// `+3` / `-2` / `=`: open findings against the run before.
    static func change(_ trend: [FleetSummary.RunPoint]) -> String? {
        guard trend.count >= 2 else { return nil }
        let d = trend[trend.count - 1].open - trend[trend.count - 2].open
        return d == 0 ? "unchanged" : (d > 0 ? "+\(d)" : "\(d)")
    }

    /// The summary as plain text, every line at most `textWidth` characters: the app x iOS
    /// matrix (its columns split into several tables when too many to fit, a label too long
    /// for its column on a line of its own), the device x rule matrix as a list by device
    /// (the rules' names are too long for columns), the trend.
    public static func generateReport(_ s: FleetSummary) -> String {
        var head = "locaudit fleet summary: run \(s.runId) at \(s.startedAt), \(ReportText.plural(s.open.count, "open finding"))"
        if let change = change(s.trend) { head += " (\(change) since run \(s.trend[s.trend.count - 2].runId))" }
        var out = wrap(head, indent: "  ")
        if !s.open.isEmpty {
            out += "\nOpen findings by app and iOS version:\n" + table(appByIOS(s), corner: "app")
            out += "\nOpen findings by device and rule (severity, rule, apps):\n" + deviceList(deviceByRule(s), names: s.deviceNames)
        }
        if !s.trend.isEmpty {
            out += "\nTrend (open after each run, new, resolved):\n"
            out += table(header: ["run", "started", "open", "new", "resolved"],
                         rows: s.trend.map { ["\($0.runId)", $0.startedAt, "\($0.open)", "\($0.new)", "\($0.resolved)"] })
        }
        return out
    }

    static func table(_ m: Matrix, corner: String) -> String {
        table(header: [corner] + m.columns + ["total"],
              rows: m.rows.map { r in [ReportText.oneLine(r)] + m.columns.map { m.count(r, $0) == 0 ? "." : "\(m.count(r, $0))" } + ["\(m.rowTotal(r))"] })
    }

    /// Left-aligned columns, two spaces apart, indented by two, within `textWidth`: when the
    /// columns after the first do not fit beside a label of `minimumLabel` characters, they
    /// are split into several tables, each with the first column; a label longer than its
    /// column takes a line of its own (wrapped when longer than a line), its cells the next.
    static func table(header: [String], rows: [[String]], minimumLabel: Int = 20) -> String {
        let all = [header] + rows
        let widths = header.indices.map { i in all.map { $0[i].count }.max() ?? 0 }
        let room = textWidth - 2
        // The columns after the first, in groups that fit beside the label: as few groups as
        // fit, of even sizes where they fit too (no total left alone in a table of its own).
        let columns = Array(header.indices.dropFirst())
        let label0 = min(widths[0], minimumLabel)
        func fits(_ group: ArraySlice<Int>) -> Bool { label0 + group.reduce(0) { $0 + 2 + widths[$1] } <= room }
        var groups: [[Int]] = [[]]
        for i in columns {
            if !groups[groups.count - 1].isEmpty, !fits(ArraySlice(groups[groups.count - 1] + [i])) { groups.append([]) }
            groups[groups.count - 1].append(i)
        }
        let size = (columns.count + groups.count - 1) / max(1, groups.count)
        let even = stride(from: 0, to: columns.count, by: max(1, size)).map { Array(columns[$0..<min($0 + size, columns.count)]) }
        if even.count == groups.count, even.allSatisfy({ fits(ArraySlice($0)) }) { groups = even }
        var out: [String] = []
        for (g, columns) in groups.enumerated() {
            if g > 0 { out.append("") }
            // As wide as the longest label that fits beside the columns; a longer one takes a line of its own.
            let available = max(1, room - columns.reduce(0) { $0 + 2 + widths[$1] })
            let label = all.map(\.[0].count).filter { $0 <= available }.max() ?? min(widths[0], available)
            for row in all {
                let cells = columns.enumerated().map { n, i in n == columns.count - 1 ? row[i] : row[i].padding(toLength: widths[i], withPad: " ", startingAt: 0) }
                if row[0].count > label {
                    out += hardWrap(row[0], width: room).map { "  " + $0 }
                    out.append(("  " + String(repeating: " ", count: label) + "  " + cells.joined(separator: "  ")))
                } else {
                    out.append("  " + ([row[0].padding(toLength: label, withPad: " ", startingAt: 0)] + cells).joined(separator: "  "))
                }
            }
        }
        return out.map { $0 + "\n" }.joined()
    }

    /// The device x rule matrix as a list: each device and its count, then a line per rule
    /// (the most severe first): the cell's worst severity, the rule, its apps (with their
    /// counts when more than one). Apps that do not fit go on the next lines, under the first.
    static func deviceList(_ m: Matrix, names: [String: String] = [:]) -> String {
        let severityWidth = Severity.allCases.map(\.rawValue.count).max() ?? 8
        let ruleWidth = min(m.columns.map(\.count).max() ?? 0, 44)
        let appsAt = 4 + severityWidth + 2 + ruleWidth + 2
        var out: [String] = []
        for r in m.rows {
            let device = names[r].map { "\($0) (\(r))" } ?? r
            out += hardWrap("\(ReportText.oneLine(device)): \(m.rowTotal(r)) open", width: textWidth - 2).map { "  " + $0 }
            let rules = m.columns.filter { m.count(r, $0) > 0 }.sorted { (m.worst(r, $0)!, $1) > (m.worst(r, $1)!, $0) }
            for rule in rules {
                let apps = m.apps(r, rule).map { ReportText.oneLine($0.bundleId) + ($0.count > 1 ? " (\($0.count))" : "") }
                let lead = "    " + m.worst(r, rule)!.rawValue.padding(toLength: severityWidth, withPad: " ", startingAt: 0) + "  "
                var lines: [String]
                if rule.count > ruleWidth {
                    // The rule on a line of its own, its apps on the next ones, under it.
                    let under = String(repeating: " ", count: lead.count)
                    lines = hardWrap(ReportText.oneLine(rule), width: textWidth - lead.count).enumerated().map { ($0.offset == 0 ? lead : under) + $0.element }
                    lines += wrapList(apps, width: textWidth - lead.count).map { under + $0 }
                } else {
                    let wrapped = wrapList(apps, width: textWidth - appsAt)
                    lines = [lead + ReportText.oneLine(rule).padding(toLength: ruleWidth, withPad: " ", startingAt: 0) + "  " + (wrapped.first ?? "")]
                    lines += wrapped.dropFirst().map { String(repeating: " ", count: appsAt) + $0 }
                }
                out += lines
            }
        }
        return out.map { $0 + "\n" }.joined()
    }

    /// Items joined by `, ` in lines of at most `width` characters; an item longer than a line is cut.
    static func wrapList(_ items: [String], width: Int) -> [String] {
        let pieces = items.enumerated().flatMap { i, item in hardWrap(item + (i < items.count - 1 ? "," : ""), width: width) }
        return fill(pieces, first: width, rest: width)
    }

    /// A line of prose within `textWidth`, broken at spaces, the lines after the first
    /// indented by `indent`; a word longer than a line is cut.
    static func wrap(_ text: String, indent: String) -> String {
        let words = text.split(separator: " ").flatMap { hardWrap(String($0), width: textWidth - indent.count) }
        let lines = fill(words, first: textWidth, rest: textWidth - indent.count)
        return (lines.isEmpty ? [""] : lines).enumerated().map { ($0.offset == 0 ? "" : indent) + $0.element + "\n" }.joined()
    }

    /// Words (none longer than a line) put on lines greedily, a space apart: the first line
    /// holds `first` characters, the others `rest`.
    static func fill(_ words: [String], first: Int, rest: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in words {
            if line.isEmpty {
                line = word
            } else if line.count + 1 + word.count <= (lines.isEmpty ? first : rest) {
                line += " " + word
            } else {
                lines.append(line)
                line = word
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    /// A string cut into pieces of at most `width` characters (at least one piece).
    static func hardWrap(_ text: String, width: Int) -> [String] {
        let width = max(1, width)
        var pieces: [String] = []
        var rest = Substring(text)
        repeat {
            pieces.append(String(rest.prefix(width)))
            rest = rest.dropFirst(width)
        } while !rest.isEmpty
        return pieces
    }

    // MARK: HTML

    /// The fleet summary as one self-contained page with the audit report's look: the trend as
    /// a chart (inline SVG) and a table, then the matrices, each scrolling inside its own box
    /// with its headers held in view, so that the page fits a laptop's screen, then the open
    /// findings of each cell. A cell is coloured by its most severe finding, names its apps
    /// (device x rule) and links to its findings. Devices by name (the UDID on hover) when
    /// `devices` names them.
    public static func generateHTML(_ s: FleetSummary, devices: [String: DeviceLabel] = [:]) -> String {
        let esc = HTMLFormat.escape
        let change = self.change(s.trend)
        var h = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>locaudit fleet summary, run \(s.runId)</title>
            <style>\(HTMLStyle.css)</style>
            </head>
            <body>
            <main class="fleet">
            <header>
            <p class="kicker">locaudit fleet summary</p>
            <h1>Fleet summary</h1>
            <p class="meta">Audit run \(s.runId) started \(esc(HTMLFormat.readable(s.startedAt)))</p>
            </header>
            <section class="verdict \(s.open.isEmpty ? "pass" : "fail")" aria-labelledby="open-title">
            <h2 id="open-title">Open findings</h2>
            <p class="verdict-line" id="open">\(esc(ReportText.plural(s.open.count, "open finding")))\
            \(change.map { " (\($0) since run \(s.trend[s.trend.count - 2].runId))" } ?? "")</p>

            """
        let severities = Severity.allCases.reversed().map { severity in (severity, s.open.filter { $0.severity == severity }.count) }.filter { $0.1 > 0 }
        if !severities.isEmpty {
            h += "<ul class=\"chips\">" + severities.map { "<li class=\"chip sev-\($0.0.rawValue)\">\($0.1) \($0.0.rawValue)</li>" }.joined() + "</ul>\n"
        }
        h += "</section>\n"
        if !s.trend.isEmpty {
            h += """
                <section aria-labelledby="trend-title">
                <h2 id="trend-title">Findings per night</h2>
                <div class="trend-row">
                <figure>\(trendChart(s.trend))</figure>
                <table class="trend-table">
                <caption>Each run: findings open after it, first seen by it, resolved by it</caption>
                <thead><tr><th scope="col">Run</th><th scope="col">Started</th><th scope="col" class="count">Open</th>\
                <th scope="col" class="count">New</th><th scope="col" class="count">Resolved</th></tr></thead>
                <tbody>

                """
            for p in s.trend {
                h += "<tr><td>\(p.runId)</td><td>\(esc(HTMLFormat.readable(p.startedAt)))</td><td class=\"count\">\(p.open)</td>"
                    + "<td class=\"count\">\(p.new)</td><td class=\"count\">\(p.resolved)</td></tr>\n"
            }
            h += "</tbody>\n</table>\n</div>\n</section>\n"
        }
        if !s.open.isEmpty {
            func device(_ id: String) -> String {
                guard let name = devices[id]?.name, !name.isEmpty else { return "<code>\(esc(id))</code>" }
                let model = devices[id]?.model.map { " <small>\(esc($0))</small>" } ?? ""
                return "<span class=\"device\" title=\"UDID \(esc(id))\">\(esc(name))</span>\(model)"
            }
            let byApp = appByIOS(s), byDevice = deviceByRule(s)
            h += "<section aria-labelledby=\"by-app-title\">\n<h2 id=\"by-app-title\">Open findings by app and iOS version</h2>\n"
            h += severityLegend()
            h += matrixHTML(byApp, corner: "App", anchor: "a", label: { "<code>\(esc($0))</code>" }, namesApps: false)
            h += "</section>\n<section aria-labelledby=\"by-device-title\">\n<h2 id=\"by-device-title\">Open findings by device and rule</h2>\n"
            h += "<p class=\"note-plain\">Each cell names the apps with the rule's findings on the device; click it for them.</p>\n"
            h += matrixHTML(byDevice, corner: "Device", anchor: "d", label: device, namesApps: true)
            h += "</section>\n"
            h += cellFindings(byApp, byDevice, device: device)
        }
        return h + "<footer><p>Written by locaudit from audit run \(s.runId) and the runs before it. Times are UTC.</p></footer>\n</main>\n</body>\n</html>\n"
    }

    /// What the cells' colours mean.
    static func severityLegend() -> String {
        "<ul class=\"legend cell-legend\"><li>Cells coloured by their most severe finding:</li>"
            + Severity.allCases.reversed().map { "<li><span class=\"swatch sev-\($0.rawValue)\"></span>\($0.rawValue)</li>" }.joined()
            + "</ul>\n"
    }

    /// The anchor of a cell's findings: `d3-c5` (row 3, column 5, from 1).
    static func anchor(_ prefix: String, _ m: Matrix, _ r: String, _ c: String) -> String {
        "\(prefix)\((m.rows.firstIndex(of: r) ?? -1) + 1)-c\((m.columns.firstIndex(of: c) ?? -1) + 1)"
    }

    /// A matrix in a box that scrolls both ways, its header row and first column held in view;
    /// each cell coloured by its most severe finding, a link to its findings, naming its apps
    /// when `namesApps`; a total per row and per column. Column names wrap, never rotated or cut.
    static func matrixHTML(_ m: Matrix, corner: String, anchor prefix: String, label: (String) -> String, namesApps: Bool) -> String {
        let esc = HTMLFormat.escape
        var h = "<div class=\"matrix-scroll\" role=\"region\" aria-label=\"\(esc(corner)) matrix\" tabindex=\"0\">\n"
        h += "<table class=\"matrix\(namesApps ? " named" : "")\">\n<thead><tr><th scope=\"col\" class=\"corner\">\(esc(corner))</th>"
        h += m.columns.map { "<th scope=\"col\"><span>\(esc($0))</span></th>" }.joined()
        h += "<th scope=\"col\" class=\"total\"><span>total</span></th></tr></thead>\n<tbody>\n"
        for r in m.rows {
            h += "<tr><th scope=\"row\">\(label(r))</th>"
            for c in m.columns {
                guard let worst = m.worst(r, c) else { h += "<td></td>"; continue }
                let n = m.count(r, c)
                let apps = m.apps(r, c)
                var tip = "\(r), \(c): \(ReportText.plural(n, "open finding")), the most severe \(worst.rawValue)"
                if namesApps { tip += "; " + apps.map { "\($0.bundleId)\($0.count > 1 ? " (\($0.count))" : "")" }.joined(separator: ", ") }
                var text: String
                if namesApps {
                    let shown = apps.prefix(2).map { "<span class=\"app\">\(esc($0.bundleId))</span>" }.joined()
                    text = shown + (apps.count > 2 ? "<span class=\"more-apps\">and \(apps.count - 2) more</span>" : "")
                    if n > apps.count { text += "<span class=\"n\">\(n) findings</span>" }
                } else {
                    text = "\(n)"
                }
                h += "<td class=\"cell sev-\(worst.rawValue)\"><a href=\"#\(anchor(prefix, m, r, c))\" title=\"\(esc(tip))\">\(text)</a></td>"
            }
            h += "<td class=\"total\">\(m.rowTotal(r))</td></tr>\n"
        }
        h += "</tbody>\n<tfoot><tr><th scope=\"row\">total</th>"
        h += m.columns.map { c in "<td class=\"total\">\(m.columnTotal(c))</td>" }.joined()
        h += "<td class=\"total\">\(m.rows.reduce(0) { $0 + m.rowTotal($1) })</td></tr></tfoot>\n</table>\n</div>\n"
        return h
    }

    /// The open findings of each cell, where the cells link: by app and iOS version, then by
    /// device and rule. Each cell's findings are a group of rows with the cell's anchor.
    static func cellFindings(_ byApp: Matrix, _ byDevice: Matrix, device: (String) -> String) -> String {
        let esc = HTMLFormat.escape
        func badge(_ s: Severity) -> String { "<span class=\"badge sev-\(s.rawValue)\">\(s.rawValue)</span>" }
        func order(_ a: FleetSummary.Cell, _ b: FleetSummary.Cell) -> Bool {
            (a.severity, b.rule, b.bundleId, b.device) > (b.severity, a.rule, a.bundleId, a.device)
        }
        // One table: a group of rows per cell, its head spanning them, then each finding's cells.
        func table(_ m: Matrix, caption: String, columns: [String], prefix: String,
                   head: (String, String) -> String, cells: (FleetSummary.Cell) -> String) -> String {
            var t = "<table class=\"cell-findings\">\n<caption>\(caption)</caption>\n<thead><tr>"
                + columns.map { "<th scope=\"col\">\($0)</th>" }.joined() + "</tr></thead>\n"
            for r in m.rows {
                for c in m.columns where m.count(r, c) > 0 {
                    let list = m.findings(r, c).sorted(by: order)
                    t += "<tbody id=\"\(anchor(prefix, m, r, c))\">\n"
                    for (i, f) in list.enumerated() {
                        let rowHead = i == 0 ? "<th scope=\"rowgroup\" rowspan=\"\(list.count)\">\(head(r, c))</th>" : ""
                        t += "<tr>\(rowHead)<td>\(badge(f.severity))</td>\(cells(f))</tr>\n"
                    }
                    t += "</tbody>\n"
                }
            }
            return t + "</table>\n"
        }
        var h = "<section aria-labelledby=\"cells-title\">\n<h2 id=\"cells-title\">Open findings of each cell</h2>\n"
        h += table(byApp, caption: "By app and iOS version", columns: ["App, iOS", "Severity", "Rule", "Device"], prefix: "a",
                   head: { "<code>\(esc($0))</code>, \(esc($1))" },
                   cells: { "<td><code>\(esc($0.rule))</code></td><td>\(device($0.device))</td>" })
        h += table(byDevice, caption: "By device and rule", columns: ["Device, rule", "Severity", "App", "iOS"], prefix: "d",
                   head: { "\(device($0)), <code>\(esc($1))</code>" },
                   cells: { "<td><code>\(esc($0.bundleId))</code></td><td>\($0.iosMajor.map { "iOS \($0)" } ?? "unknown")</td>" })
        return h + "</section>\n"
    }

    /// Open findings after each run as bars, dated: an inline SVG, no script.
    static func trendChart(_ trend: [FleetSummary.RunPoint]) -> String {
        let esc = HTMLFormat.escape
        let width = 720.0, height = 200.0, left = 44.0, right = 12.0, top = 22.0, bottom = 44.0
        let peak = max(1, trend.map(\.open).max() ?? 1)
        let step = (width - left - right) / Double(max(trend.count, 1))
        let barWidth = min(56, step * 0.6)
        func y(_ n: Int) -> Double { top + (height - top - bottom) * (1 - Double(n) / Double(peak)) }
        func f(_ v: Double) -> String { String(format: "%.1f", v) }
        var svg = "<svg class=\"trend\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" aria-labelledby=\"trend-svg-title\">\n"
        svg += "<title id=\"trend-svg-title\">Open findings after each of the latest \(trend.count) runs</title>\n"
        svg += "<line class=\"baseline\" x1=\"\(f(left))\" y1=\"\(f(y(0)))\" x2=\"\(f(width - right))\" y2=\"\(f(y(0)))\"/>\n"
        svg += "<text class=\"tick\" x=\"\(f(left - 6))\" y=\"\(f(y(peak) + 4))\" text-anchor=\"end\">\(peak)</text>\n"
        svg += "<text class=\"tick\" x=\"\(f(left - 6))\" y=\"\(f(y(0) + 4))\" text-anchor=\"end\">0</text>\n"
        for (i, p) in trend.enumerated() {
            let cx = left + step * (Double(i) + 0.5)
            let tip = "run \(p.runId), \(HTMLFormat.readable(p.startedAt)): \(p.open) open, \(p.new) new, \(p.resolved) resolved"
            svg += "<g class=\"night\"><title>\(esc(tip))</title>\n"
            svg += "<rect class=\"bar\" x=\"\(f(cx - barWidth / 2))\" y=\"\(f(y(p.open)))\" width=\"\(f(barWidth))\" height=\"\(f(y(0) - y(p.open)))\" rx=\"2\"/>\n"
            svg += "<text class=\"count\" x=\"\(f(cx))\" y=\"\(f(y(p.open) - 6))\" text-anchor=\"middle\">\(p.open)</text>\n"
            svg += "<text class=\"date\" x=\"\(f(cx))\" y=\"\(f(y(0) + 16))\" text-anchor=\"middle\">\(esc(String(p.startedAt.prefix(10).dropFirst(5))))</text>\n"
            svg += "<text class=\"run\" x=\"\(f(cx))\" y=\"\(f(y(0) + 32))\" text-anchor=\"middle\">run \(p.runId)</text>\n"
            svg += "</g>\n"
        }
        return svg + "</svg>\n<figcaption>Findings open after each run, under it its date (month-day); the table gives the new and resolved ones.</figcaption>"
    }
}
