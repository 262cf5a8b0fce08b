import LocAuditModel
import LocAuditRules

/// The report for a ticket: a summary line, a table per app (`--group-by device`: per
/// device) with what to do about each rule in it, coverage and the verdict.
public enum MarkdownReporter {
    public static func generateReport(_ report: AuditReport, options: ReportOptions = ReportOptions()) -> String {
        var out = "## locaudit audit, run \(report.runId)\n\n"
        out += "**\(escape(ReportText.verdict(report)))** · \(report.events) events · \(report.coverage.sessions) sessions · "
            + "\(report.new.count) new, \(report.persisting.count) persisting, \(report.resolved.count) resolved since the previous run\n"
        let key = options.groupBy ?? .app
        for group in ReportGroups(report.findings, by: key) {
            if key == .app {
                out += "\n### App `\(code(group.outer))`\n\n"
                out += "| severity | rule | device | where | time | message | evidence |\n|---|---|---|---|---|---|---|\n"
            } else {
                out += "\n### Device \(device(group.outer, report))\n\n"
                out += "| severity | rule | app | where | time | message | evidence |\n|---|---|---|---|---|---|---|\n"
            }
            for inner in group.inner {
                for f in inner.findings {
                    let place = f.sessionStart.map { "pid \(f.pid.map(String.init) ?? "-") from \($0)" } ?? "configuration"
                    let os = f.osVersion.map { ", iOS \($0)" } ?? ""
                    let app = f.appVersionText.map { ", app \($0)" } ?? ""
                    let evidence = f.evidence.prefix(4).map { "`\(code($0.text))`" }.joined(separator: " ")
                        + (f.evidence.count > 4 ? " +\(f.evidence.count - 4)" : "")
                    let column = key == .app ? device(f.device, report) : "`\(code(f.bundleId))`"
                    out += "| \(f.severity.rawValue) | `\(f.rule)` | \(column) | \(escape(place + os + app)) | \(f.time) | \(escape(f.message + (f.suppressed.map { " (" + $0.text + ")" } ?? ""))) | \(evidence) |\n"
                }
            }
            out += "\n**What to do:**\n\n"
            for rule in ReportText.rules(of: group.findings) {
                out += "- `\(rule.identifier)`, owner \(escape(rule.owner.label)): \(escape(rule.whatToDo))"
                if let url = rule.helpURL { out += " ([Apple](\(url)))" }
                out += "\n"
            }
        }
        if !report.resolved.isEmpty {
            out += "\n### Resolved since the previous run\n\n"
            for f in report.resolved { out += "- `\(f.rule)` `\(code(f.bundleId))` on \(device(f.device, report)): \(escape(f.message))\n" }
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

    /// A device: its name and its id in code, or its id alone.
    static func device(_ id: String, _ report: AuditReport) -> String {
        guard let name = report.devices[id]?.name, !name.isEmpty, name != id else { return "`\(code(id))`" }
        return "\(escape(name)) (`\(code(id))`)"
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
