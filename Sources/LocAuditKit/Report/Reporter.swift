import Foundation

/// How a report is rendered, beyond the findings themselves.
public struct ReportOptions: Sendable {
    /// Show delivered coordinates (never by default: the logs hold people's locations).
    public var showCoordinates = false
    /// Decimal places of shown coordinates (3 is about 100 m).
    public var coordinateDecimals = 3
    /// ANSI colours (text on a terminal only).
    public var color = false
    /// locaudit's version, stamped into reports that carry run metadata.
    public var version = LocAuditVersion.current

    public init() {}
}

/// The version printed by `locaudit --version` and stamped into reports.
public enum LocAuditVersion {
    public static let current = "0.2.0"
}

/// Report formats of `locaudit audit --format` and `--report FORMAT[:PATH]`.
public enum OutputFormat: String, CaseIterable, Sendable {
    /// For people at a terminal.
    case text
    /// For tools: the findings with exactly the documented field names.
    case json

    /// The report in this format.
    public func render(_ report: AuditReport, options: ReportOptions = ReportOptions()) -> String {
        switch self {
        case .text: return TextReporter.generateReport(report)
        case .json: return JSONReporter.generateReport(report)
        }
    }
}

/// The text report: findings most severe first, then what changed, coverage and the verdict.
public enum TextReporter {
    public static func generateReport(_ report: AuditReport) -> String {
        var out = "locaudit audit: run \(report.runId) on \(report.database), \(report.events) events, \(report.coverage.sessions) sessions\n\n"
        for f in report.findings {
            let tag = report.new.contains(f.fingerprint) ? "new" : "persisting"
            out += "\(f.severity.rawValue.uppercased()) \(f.rule) [\(tag)]\n"
            out += "  \(f.bundleId) on \(f.device)" + (f.osVersion.map { " (iOS \($0))" } ?? "")
            if let pid = f.pid { out += ", pid \(pid)" }
            if let start = f.sessionStart { out += ", session from \(start)" }
            out += "\n  \(f.time): \(f.message)\n"
            out += "  evidence: \(f.evidence.prefix(6).map(\.text).joined(separator: ", "))"
            if f.evidence.count > 6 { out += " and \(f.evidence.count - 6) more" }
            out += "\n\n"
        }
        for f in report.resolved {
            out += "RESOLVED \(f.rule): \(f.bundleId) on \(f.device), \(f.time): \(f.message)\n"
        }
        if !report.resolved.isEmpty { out += "\n" }
        out += "Since the previous run: \(report.new.count) new, \(report.persisting.count) persisting, \(report.resolved.count) resolved."
        if report.hiddenByBaseline > 0 { out += " \(report.hiddenByBaseline) hidden by the baseline." }
        out += "\n"
        out += coverage(report.coverage)
        let above = report.findings.filter { $0.severity >= report.failOn }.count
        switch report.verdict {
        case .findings:
            out += "Verdict: \(report.findings.count) finding\(report.findings.count == 1 ? "" : "s"), \(above) at or above \(report.failOn.rawValue).\n"
        case .pass:
            out += "Verdict: pass (no finding in what could be evaluated).\n"
        case .insufficientEvidence:
            out += "Verdict: insufficient evidence: no rule could be evaluated, this is not a pass.\n"
        }
        return out
    }

    static func coverage(_ c: Coverage) -> String {
        var out = "Coverage: \(c.evaluated) rule checks evaluated, \(c.notEvaluableCount) not evaluable, \(c.notApplicable) not applicable to the iOS version.\n"
        for rule in c.notEvaluable.keys.sorted() {
            let reasons = c.notEvaluable[rule]!.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: "; ")
            out += "  not evaluable: \(rule): \(reasons)\n"
        }
        if c.sessionsWithUnknownVersion > 0 {
            out += "  \(c.sessionsWithUnknownVersion) session\(c.sessionsWithUnknownVersion == 1 ? "" : "s") of unknown iOS version: only the rules valid on every version ran (pass --os to ingest, or a sidecar .ideviceinfo.txt).\n"
        }
        for s in c.insufficientSessions { out += "  insufficient evidence: \(s)\n" }
        return out
    }
}

/// The JSON report: `findings` with exactly rule, severity, device, bundleId, pid,
/// sessionStart, time, message, evidence [{file, line}]; then changes, coverage, verdict.
public enum JSONReporter {
    struct Document: Encodable {
        var run: Int64
        var findings: [Finding]
        /// Indices into `findings`.
        var new: [Int]
        var persisting: [Int]
        var resolved: [Finding]
        var hiddenByBaseline: Int
        var coverage: Coverage
        var failOn: Severity
        var verdict: Verdict
        var exitCode: Int32
    }

    public static func generateReport(_ report: AuditReport) -> String {
        let indices = Array(report.findings.indices)
        let doc = Document(run: report.runId, findings: report.findings,
                           new: indices.filter { report.new.contains(report.findings[$0].fingerprint) },
                           persisting: indices.filter { report.persisting.contains(report.findings[$0].fingerprint) },
                           resolved: report.resolved, hiddenByBaseline: report.hiddenByBaseline, coverage: report.coverage,
                           failOn: report.failOn, verdict: report.verdict, exitCode: report.exitCode)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(doc)) ?? Data("{}".utf8), as: UTF8.self) + "\n"
    }
}
