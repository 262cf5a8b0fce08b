import LocAuditModel
import LocAuditRules

/// The report for a ticket: a summary line, a table per device, coverage and the verdict.
public enum MarkdownReporter {
    public static func generateReport(_ report: AuditReport, options: ReportOptions = ReportOptions()) -> String {
        var out = "## locaudit audit, run \(report.runId)\n\n"
        out += "**\(escape(ReportText.verdict(report)))** · \(report.events) events · \(report.coverage.sessions) sessions · "
            + "\(report.new.count) new, \(report.persisting.count) persisting, \(report.resolved.count) resolved since the previous run\n"
        let byDevice = Dictionary(grouping: report.findings, by: \.device)
        for device in byDevice.keys.sorted() {
            out += "\n### Device `\(code(device))`\n\n"
            out += "| severity | rule | app | where | time | message | evidence |\n|---|---|---|---|---|---|---|\n"
            for f in byDevice[device]!.sorted(by: { $0.bundleId != $1.bundleId ? $0.bundleId < $1.bundleId : Finding.reportOrder($0, $1) }) {
                let place = f.sessionStart.map { "pid \(f.pid.map(String.init) ?? "-") from \($0)" } ?? "configuration"
                let os = f.osVersion.map { ", iOS \($0)" } ?? ""
                let evidence = f.evidence.prefix(4).map { "`\(code($0.text))`" }.joined(separator: " ")
                    + (f.evidence.count > 4 ? " +\(f.evidence.count - 4)" : "")
                out += "| \(f.severity.rawValue) | `\(f.rule)` | `\(code(f.bundleId))` | \(escape(place + os)) | \(f.time) | \(escape(f.message)) | \(evidence) |\n"
            }
        }
        if !report.resolved.isEmpty {
            out += "\n### Resolved since the previous run\n\n"
            for f in report.resolved { out += "- `\(f.rule)` `\(code(f.bundleId))` on `\(code(f.device))`: \(escape(f.message))\n" }
        }
        let c = report.coverage
        out += "\n**Coverage:** \(c.evaluated) rule checks evaluated, \(c.notEvaluableCount) not evaluable, \(c.notApplicable) not applicable"
        if c.sessionsWithUnknownVersion > 0 { out += ", \(c.sessionsWithUnknownVersion) sessions of unknown iOS version" }
        out += ".\n"
        if let zones = c.timeZones {
            out += "\n**Time zones:**\n\n"
            for (device, note) in zones.sorted(by: { $0.key < $1.key }) { out += "- `\(code(device))`: \(escape(note))\n" }
        }
        return out
    }

    /// Text in a table cell: Markdown and HTML specials escaped, one line.
    static func escape(_ s: String) -> String {
        var out = ""
        for ch in ReportText.oneLine(s) {
            switch ch {
            case "\\", "`", "*", "_", "[", "]", "|", "#", "~", "!": out += "\\\(ch)"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "&": out += "&amp;"
            default: out.append(ch)
            }
        }
        return out
    }

    /// Text inside a code span: no backtick can close it, no pipe can end the cell.
    static func code(_ s: String) -> String {
        ReportText.oneLine(s).replacingOccurrences(of: "`", with: "'").replacingOccurrences(of: "|", with: "¦")
    }
}
