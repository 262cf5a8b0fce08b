import Foundation
import LocAuditModel
import LocAuditRules
import LocAuditAudit
import LocAuditRead

/// Report formats of `locaudit audit --format` and `--report FORMAT[:PATH]`.
public enum OutputFormat: String, CaseIterable, Sendable {
    /// For people at a terminal.
    case text
    /// For tools: the findings with exactly the documented field names.
    case json
    /// For a ticket.
    case markdown
    /// For CI dashboards.
    case junit
    /// For spreadsheets.
    case csv
    /// For log shippers.
    case jsonl
    /// For GitHub code scanning and other SARIF 2.1.0 viewers.
    case sarif
    /// For people reading a page: summaries and a timeline per session with findings.
    case html
    /// The fleet at a glance: app x iOS version, device x rule, trend over the runs.
    case fleet
    /// The same, as one self-contained HTML page.
    case fleetHTML = "fleet-html"

    /// The fleet summary formats, which also read the store's earlier runs.
    public var isFleetSummary: Bool { self == .fleet || self == .fleetHTML }

    /// What this format shows besides the audit's report, read from the store (`Store.reportInputs`).
    public var needs: ReportInputs.Needs {
        switch self {
        case .html: return .html
        case .fleet: return .fleet
        case .fleetHTML: return [.fleet, .fleetDevices]
        default: return []
        }
    }

    /// The report in this format. `html` also draws what `Store.htmlReportInputs` loads
    /// (timelines, evidence lines, device names; without them the page has no timelines, and
    /// `fleet-html` its devices' names); the fleet
    /// summaries use `fleet` (the store's history), else this run's findings alone. Throws
    /// `OutputError` when a JSON report cannot be encoded (never an empty report instead).
    public func render(_ report: AuditReport, options: ReportOptions = ReportOptions(),
                       html: HTMLReportInputs = HTMLReportInputs(),
                       fleet: FleetSummary? = nil) throws -> String {
        switch self {
        case .text: return TextReporter.generateReport(report, options: options)
        case .json: return try JSONReporter.generateReport(report, options: options)
        case .markdown: return MarkdownReporter.generateReport(report, options: options)
        case .junit: return JUnitReporter.generateReport(report, options: options)
        case .csv: return CSVReporter.generateReport(report, options: options)
        case .jsonl: return try JSONLinesReporter.generateReport(report, options: options)
        case .sarif: return try SARIFReporter.generateReport(report, options: options)
        case .html:
            return HTMLReporter.generateReport(report, timelines: html.timelines, evidence: html.evidence, devices: html.devices, options: options)
        case .fleet: return FleetSummaryReporter.generateReport(fleet ?? FleetSummary(report: report))
        case .fleetHTML: return FleetSummaryReporter.generateHTML(fleet ?? FleetSummary(report: report), devices: html.devices)
        }
    }
}

/// Findings in groups for the text and Markdown reports: by device then app, or by app then
/// device; groups and subgroups sorted by id, findings most severe first.
struct ReportGroups: Sequence {
    struct Group {
        var key: ReportGrouping
        /// The device id or bundle id.
        var outer: String
        var findings: [Finding]
        /// The apps of a device, or the devices of an app: (id, findings).
        var inner: [(id: String, findings: [Finding])]
    }

    var groups: [Group]

    init(_ findings: [Finding], by key: ReportGrouping) {
        let outer: (Finding) -> String = key == .device ? { $0.device } : { $0.bundleId }
        let inner: (Finding) -> String = key == .device ? { $0.bundleId } : { $0.device }
        groups = Dictionary(grouping: findings, by: outer).sorted { $0.key < $1.key }.map { id, findings in
            Group(key: key, outer: id, findings: findings,
                  inner: Dictionary(grouping: findings, by: inner).sorted { $0.key < $1.key }.map { ($0.key, $0.value.sorted(by: Finding.reportOrder)) })
        }
    }

    func makeIterator() -> IndexingIterator<[Group]> { groups.makeIterator() }
}

/// What every reporter shares: verdict wording and counts.
enum ReportText {
    /// `FAIL: 3 findings (1 critical, 2 high)`, `PASS`, or `INSUFFICIENT EVIDENCE`: the last line of a report.
    /// `iOS and zone`, for facts set by hand.
    static func handSet(_ facts: [String]) -> String {
        let words = facts.map { ["ios": "iOS", "timeZone": "zone", "name": "name"][$0] ?? $0 }
        return words.count <= 1 ? words.joined() : words.dropLast().joined(separator: ", ") + " and " + words.last!
    }

    /// The devices of the findings whose facts were set by hand, and which.
    static func devicesSetByHand(_ report: AuditReport) -> [String: [String]] {
        let devices = Set((report.findings + report.resolved).map(\.device))
        return report.devices.filter { devices.contains($0.key) && !$0.value.setByHand.isEmpty }.mapValues(\.setByHand)
    }

    static func verdict(_ report: AuditReport) -> String {
        switch report.verdict {
        case .insufficientEvidence:
            return "INSUFFICIENT EVIDENCE"
        case .pass:
            return "PASS" + below(report)
        case .partial:
            return "PARTIAL: \(share(report.coverage)) of \(plural(report.coverage.evaluated + report.coverage.notEvaluableCount, "check")) evaluated"
                + below(report) + missing(report.coverage)
        case .findings:
            return "FAIL: \(plural(report.findings.count, "finding")) (\(severityCounts(report.findings)))" + suppressed(report)
        }
    }

    /// `, 2 findings below high (2 low)`, or nothing; suppressed findings are named apart.
    static func below(_ report: AuditReport) -> String {
        let below = report.findings.filter { $0.severity < report.failOn }
        return (below.isEmpty ? "" : ", \(plural(below.count, "finding")) below \(report.failOn.rawValue) (\(severityCounts(below)))") + suppressed(report)
    }

    /// `, 1 suppressed (not failing)`, or nothing.
    static func suppressed(_ report: AuditReport) -> String {
        let count = report.findings.filter { $0.suppressed != nil }.count
        return count == 0 ? "" : ", \(count) suppressed (not failing)"
    }

    /// `62%` of the applicable checks evaluated.
    static func share(_ coverage: Coverage) -> String {
        let applicable = coverage.evaluated + coverage.notEvaluableCount
        let percent = applicable == 0 ? 0 : coverage.evaluated * 100 / applicable
        return "\(percent)%"
    }

    /// `; missing: app state (12), indicator lines (4)`: the facts the checks lacked, most needed first (three at most).
    static func missing(_ coverage: Coverage) -> String {
        var c = coverage
        if c.missing == nil { c.summarise() }
        let top = (c.missing ?? []).prefix(3).map { "\($0.fact) (\($0.checks))" }
        return top.isEmpty ? "" : "; missing: " + top.joined(separator: ", ")
    }

    /// `1 critical, 2 high` (severities present, most severe first).
    static func severityCounts(_ findings: [Finding]) -> String {
        Severity.allCases.reversed().compactMap { severity in
            let n = findings.filter { $0.severity == severity }.count
            return n == 0 ? nil : "\(n) \(severity.rawValue)"
        }.joined(separator: ", ")
    }

    /// A reported finding's change since the previous run, as the text, CSV and JSON Lines reports tag it.
    static func change(_ finding: Finding, in report: AuditReport) -> String {
        report.new.contains(finding.fingerprint) ? "new" : "persisting"
    }

    /// The descriptions of the rules these findings break, in registry order.
    static func rules(of findings: [Finding]) -> [RuleDescription] {
        let seen = Set(findings.map(\.rule))
        return RuleRegistry.descriptions.filter { seen.contains($0.identifier) }
    }

    static func plural(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }

    /// A string from a log, made safe for one line of a terminal: no line breaks, no control
    /// characters (a log line must not forge report lines or terminal escapes).
    static func oneLine(_ s: String) -> String { Printable.line(s) }
}
