import Foundation
import LocAuditModel
import LocAuditRules

/// The fleet at a glance, for the morning: open findings as a matrix of app x iOS version
/// and of device x rule, and the trend over the latest runs. Pure functions of a `FleetSummary`.
public enum FleetSummaryReporter {

    /// A matrix: row labels, column labels, counts (missing: 0).
    struct Matrix {
        var rows: [String]
        var columns: [String]
        var counts: [String: [String: Int]]

        init(_ cells: [FleetSummary.Cell], row: (FleetSummary.Cell) -> String, column: (FleetSummary.Cell) -> String,
             columnOrder: ([String]) -> [String] = { $0.sorted() }) {
            var counts: [String: [String: Int]] = [:]
            for c in cells { counts[row(c), default: [:]][column(c), default: 0] += 1 }
            self.counts = counts
            rows = counts.keys.sorted()
            columns = columnOrder(Array(Set(cells.map(column))))
        }

        func count(_ r: String, _ c: String) -> Int { counts[r]?[c] ?? 0 }
        func rowTotal(_ r: String) -> Int { counts[r]?.values.reduce(0, +) ?? 0 }
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

    public static func generateReport(_ s: FleetSummary) -> String {
        var out = "locaudit fleet summary: run \(s.runId) at \(s.startedAt), \(ReportText.plural(s.open.count, "open finding"))"
        if let change = change(s.trend) { out += " (\(change) since run \(s.trend[s.trend.count - 2].runId))" }
        out += "\n"
        if !s.open.isEmpty {
            out += "\nOpen findings by app and iOS version:\n" + table(appByIOS(s), corner: "app")
            out += "\nOpen findings by device and rule:\n" + table(deviceByRule(s), corner: "device")
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

    /// Left-aligned columns, two spaces apart.
    static func table(header: [String], rows: [[String]]) -> String {
        let all = [header] + rows
        let widths = header.indices.map { i in all.map { $0[i].count }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { i, cell in i == row.count - 1 ? cell : cell.padding(toLength: widths[i], withPad: " ", startingAt: 0) }
                .joined(separator: "  ")
        }.map { "  " + $0 + "\n" }.joined()
    }

    // MARK: HTML

    /// The fleet summary as one self-contained page with the audit report's look: the trend as
    /// a chart (inline SVG) and a table, then the matrices, each scrolling inside its own box
    /// with its headers held in view, so that the page fits a laptop's screen. Devices by name
    /// (the UDID on hover) when `devices` names them.
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
            h += "<section aria-labelledby=\"by-app-title\">\n<h2 id=\"by-app-title\">Open findings by app and iOS version</h2>\n"
            h += matrixHTML(appByIOS(s), corner: "App", label: { "<code>\(esc($0))</code>" }, rotated: false)
            h += "</section>\n<section aria-labelledby=\"by-device-title\">\n<h2 id=\"by-device-title\">Open findings by device and rule</h2>\n"
            h += matrixHTML(deviceByRule(s), corner: "Device", label: device, rotated: true)
            h += "</section>\n"
        }
        return h + "<footer><p>Written by locaudit from audit run \(s.runId) and the runs before it. Times are UTC.</p></footer>\n</main>\n</body>\n</html>\n"
    }

    /// A matrix in a box that scrolls both ways, its header row and first column held in view;
    /// cells shaded by their count, a total per row and per column.
    static func matrixHTML(_ m: Matrix, corner: String, label: (String) -> String, rotated: Bool) -> String {
        let esc = HTMLFormat.escape
        let peak = max(1, m.rows.flatMap { r in m.columns.map { m.count(r, $0) } }.max() ?? 1)
        var h = "<div class=\"matrix-scroll\" role=\"region\" aria-label=\"\(esc(corner)) matrix\" tabindex=\"0\">\n"
        h += "<table class=\"matrix\(rotated ? " rotated" : "")\">\n<thead><tr><th scope=\"col\" class=\"corner\">\(esc(corner))</th>"
        h += m.columns.map { "<th scope=\"col\" title=\"\(esc($0))\"><span>\(esc($0))</span></th>" }.joined()
        h += "<th scope=\"col\" class=\"total\"><span>total</span></th></tr></thead>\n<tbody>\n"
        for r in m.rows {
            h += "<tr><th scope=\"row\">\(label(r))</th>"
            for c in m.columns {
                let n = m.count(r, c)
                h += n == 0 ? "<td></td>"
                    : "<td style=\"background:rgba(200,30,30,\(String(format: "%.2f", 0.12 + 0.6 * Double(n) / Double(peak))))\">\(n)</td>"
            }
            h += "<td class=\"total\">\(m.rowTotal(r))</td></tr>\n"
        }
        h += "</tbody>\n<tfoot><tr><th scope=\"row\">total</th>"
        h += m.columns.map { c in "<td class=\"total\">\(m.rows.reduce(0) { $0 + m.count($1, c) })</td>" }.joined()
        h += "<td class=\"total\">\(m.rows.reduce(0) { $0 + m.rowTotal($1) })</td></tr></tfoot>\n</table>\n</div>\n"
        return h
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
