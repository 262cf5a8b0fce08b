import LocAuditModel
import LocAuditRules

/// The report for a terminal: findings grouped by device and app (`--group-by app`: by app
/// and device), most severe first, then what to do about each rule seen, what changed,
/// coverage, and one verdict line. Colours only when asked (on a terminal).
public enum TextReporter {
    public static func generateReport(_ report: AuditReport, options: ReportOptions = ReportOptions()) -> String {
        let paint = Paint(enabled: options.color)
        var out = "locaudit audit: \(report.runId == 0 ? "not recorded (--no-record)" : "run \(report.runId)") at \(report.startedAt) on \(ReportText.oneLine(report.database)), "
            + "\(report.events) events, \(report.coverage.sessions) sessions\n"
        for group in ReportGroups(report.findings, by: options.groupBy ?? .device) {
            if group.key == .device {
                // `Device qa-iphone12 (00008101-…, iOS 14.8)`, `Device 00008101-… (iOS 14.8)`.
                let versions = Set(group.findings.compactMap(\.osVersion)).sorted()
                var title = group.outer, details: [String] = []
                if let name = report.devices[group.outer]?.name ?? group.findings.lazy.compactMap(\.deviceName).first,
                   !name.isEmpty, name != group.outer {
                    title = name
                    details.append(group.outer)
                }
                if !versions.isEmpty { details.append("iOS " + versions.joined(separator: ", ")) }
                if let hand = report.devices[group.outer]?.setByHand, !hand.isEmpty {
                    details.append(ReportText.handSet(hand) + " set by hand")
                }
                out += "\n" + paint.bold("Device \(ReportText.oneLine(title))")
                    + (details.isEmpty ? "" : " (\(ReportText.oneLine(details.joined(separator: ", "))))") + "\n"
            } else {
                out += "\n" + paint.bold("App \(ReportText.oneLine(group.outer))") + "\n"
            }
            for inner in group.inner {
                out += "  \(paint.bold(ReportText.oneLine(group.key == .device ? inner.id : report.deviceText(inner.id))))\n"
                for f in inner.findings { out += finding(f, tag: ReportText.change(f, in: report), paint: paint) }
            }
        }
        out += whatToDo(report.findings)
        return out + closing(report, paint: paint)
    }

    /// Each rule with findings: who owns them and what to do, once.
    static func whatToDo(_ findings: [Finding]) -> String {
        let rules = ReportText.rules(of: findings)
        guard !rules.isEmpty else { return "" }
        var out = "\nWhat to do:\n"
        for rule in rules {
            out += "  \(rule.identifier) (owner: \(rule.owner.label)): \(rule.whatToDo)\n"
        }
        return out
    }

    /// One finding: severity, rule, tag and place; its time and message; its evidence.
    /// `locaudit watch` prints each as it is decided.
    public static func finding(_ f: Finding, tag: String, color: Bool) -> String {
        finding(f, tag: tag, paint: Paint(enabled: color))
    }

    static func finding(_ f: Finding, tag: String, paint: Paint) -> String {
        var place = f.sessionStart.map { "session pid \(f.pid.map(String.init) ?? "-") from \($0)" } ?? "configuration"
        if let os = f.osVersion { place += ", iOS \(os)" }
        if let app = f.appVersionText { place += ", app \(ReportText.oneLine(app))" }
        var out = "    \(paint.severity(f.severity)) \(f.rule) [\(tag)] \(place)\n"
        out += "      \(f.time): \(ReportText.oneLine(f.message))\n"
        out += "      evidence: \(f.evidence.prefix(6).map { ReportText.oneLine($0.text) }.joined(separator: ", "))"
        if f.evidence.count > 6 { out += " and \(f.evidence.count - 6) more" }
        if let s = f.suppressed { out += "\n      " + ReportText.oneLine(s.text) }
        return out + "\n"
    }

    /// What follows the findings: resolved ones, what changed, coverage, the verdict.
    public static func closing(_ report: AuditReport, color: Bool) -> String {
        closing(report, paint: Paint(enabled: color))
    }

    static func closing(_ report: AuditReport, paint: Paint) -> String {
        var out = ""
        if !report.resolved.isEmpty {
            out += "\nResolved since the previous run:\n"
            for f in report.resolved {
                out += "  \(f.rule): \(ReportText.oneLine(f.bundleId)) on \(ReportText.oneLine(report.deviceText(f))), \(f.time): \(ReportText.oneLine(f.message))\n"
            }
        }
        out += "\nSince the previous run: \(report.new.count) new, \(report.persisting.count) persisting, \(report.resolved.count) resolved."
        if report.hiddenByBaseline > 0 { out += " \(report.hiddenByBaseline) hidden by the baseline." }
        let suppressed = report.findings.filter { $0.suppressed != nil }.count
        if suppressed > 0 { out += " \(suppressed) suppressed by the project's config (reported, not failing the run)." }
        out += "\n" + coverage(report.coverage)
        let verdict = ReportText.verdict(report)
        out += (report.exitCode == 0 && report.verdict != .insufficientEvidence ? paint.green(verdict) : paint.red(verdict)) + "\n"
        return out
    }

    static func coverage(_ c: Coverage) -> String {
        var out = "Coverage: \(c.evaluated) rule checks evaluated, \(c.notEvaluableCount) not evaluable, \(c.notApplicable) not applicable to the iOS version.\n"
        for rule in c.notEvaluable.keys.sorted() {
            let reasons = c.notEvaluable[rule]!.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: "; ")
            out += "  not evaluable: \(rule): \(reasons)\n"
        }
        if c.sessionsWithUnknownVersion > 0 {
            out += "  \(c.sessionsWithUnknownVersion) session\(c.sessionsWithUnknownVersion == 1 ? "" : "s") of unknown iOS version: only the rules valid on every version ran (`locaudit devices set DEVICE --os VERSION`, --os to ingest, or a sidecar .ideviceinfo.txt).\n"
        }
        for s in c.insufficientSessions { out += "  insufficient evidence: \(ReportText.oneLine(s))\n" }
        for (device, note) in (c.timeZones ?? [:]).sorted(by: { $0.key < $1.key }) {
            out += "  \(ReportText.oneLine(device)): \(note)\n"
        }
        return out
    }

    /// ANSI colours, or nothing.
    struct Paint {
        var enabled: Bool
        private func wrap(_ code: String, _ s: String) -> String { enabled ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s }
        func bold(_ s: String) -> String { wrap("1", s) }
        func red(_ s: String) -> String { wrap("31;1", s) }
        func green(_ s: String) -> String { wrap("32;1", s) }
        func severity(_ s: Severity) -> String {
            let label = s.rawValue.uppercased()
            switch s {
            case .critical, .high: return wrap("31;1", label)
            case .medium: return wrap("33", label)
            case .low, .info: return wrap("36", label)
            }
        }
    }
}
