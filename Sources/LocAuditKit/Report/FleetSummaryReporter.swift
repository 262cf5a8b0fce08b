import Foundation

/// The fleet at a glance, for the morning: open findings as a matrix of app x iOS version
/// and of device x rule, and the trend over the latest runs. Pure functions of a `FleetSummary`.
public enum FleetSummaryReporter {
    public static let identifier = "fleet"

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
                         rows: s.trend.map { ["\($0.runId)", $0.startedAt, "\($0.open)", "+\($0.new)", "-\($0.resolved)"] })
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

    public static func generateHTML(_ s: FleetSummary) -> String {
        func esc(_ t: String) -> String {
            t.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
        }
        func matrix(_ m: Matrix, corner: String) -> String {
            let peak = max(1, m.rows.flatMap { r in m.columns.map { m.count(r, $0) } }.max() ?? 1)
            var h = "<table><thead><tr><th>\(esc(corner))</th>" + m.columns.map { "<th>\(esc($0))</th>" }.joined() + "<th>total</th></tr></thead><tbody>\n"
            for r in m.rows {
                h += "<tr><th>\(esc(r))</th>"
                for c in m.columns {
                    let n = m.count(r, c)
                    h += n == 0 ? "<td></td>" : "<td style=\"background:rgba(200,30,30,\(String(format: "%.2f", 0.15 + 0.6 * Double(n) / Double(peak))))\">\(n)</td>"
                }
                h += "<td>\(m.rowTotal(r))</td></tr>\n"
            }
            return h + "</tbody></table>\n"
        }
        var h = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>locaudit fleet summary, run \(s.runId)</title>
            <style>body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse;margin:1em 0}
            th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}th{background:#f4f4f4}tbody th{text-align:left}</style>
            </head><body>
            <h1>Fleet summary</h1>
            <p>Run \(s.runId) at \(esc(s.startedAt)): \(ReportText.plural(s.open.count, "open finding"))\(change(s.trend).map { " (\($0) since the run before)" } ?? "").</p>

            """
        if !s.open.isEmpty {
            h += "<h2>Open findings by app and iOS version</h2>\n" + matrix(appByIOS(s), corner: "app")
            h += "<h2>Open findings by device and rule</h2>\n" + matrix(deviceByRule(s), corner: "device")
        }
        if !s.trend.isEmpty {
            h += "<h2>Trend</h2>\n<table><thead><tr><th>run</th><th>started</th><th>open</th><th>new</th><th>resolved</th></tr></thead><tbody>\n"
            for p in s.trend { h += "<tr><td>\(p.runId)</td><td>\(esc(p.startedAt))</td><td>\(p.open)</td><td>+\(p.new)</td><td>-\(p.resolved)</td></tr>\n" }
            h += "</tbody></table>\n"
        }
        return h + "</body></html>\n"
    }
}
