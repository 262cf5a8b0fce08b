import Foundation
import LocAuditModel
import LocAuditRules
import LocAuditRead

/// The JSON report: `findings` with rule, severity, device, bundleId, pid, sessionStart,
/// time, message, evidence [{file, line}] and (added) fingerprint, deviceName, appVersion,
/// appBuild; then what changed, coverage (with a stable code for each not-evaluable reason),
/// the verdict, the run's metadata, and who owns each rule found and what to do.
public enum JSONReporter {

    struct Document: Encodable {
        var run: Run
        var findings: [Finding]
        /// Indices into `findings`.
        var new: [Int]
        var persisting: [Int]
        var resolved: [Finding]
        var hiddenByBaseline: Int
        var coverage: CoverageDocument
        var failOn: Severity
        var verdict: Verdict
        var exitCode: Int32
        /// The rules of the findings: owner, what to do, Apple's pages.
        var rules: [RuleHelp]
        /// Device id -> the facts `locaudit devices set` gave it (`ios`, `timeZone`, `name`),
        /// for the devices of the findings that have any.
        var devicesSetByHand: [String: [String]]
    }

    /// The coverage as stored, and beside its reason sentences their codes.
    struct CoverageDocument: Encodable {
        var coverage: Coverage

        struct Reason: Encodable {
            var rule: String
            var code: String
            var reason: String
            var checks: Int
        }

        enum Keys: String, CodingKey { case notEvaluableReasons }

        func encode(to encoder: Encoder) throws {
            try coverage.encode(to: encoder)
            var c = encoder.container(keyedBy: Keys.self)
            let reasons = coverage.notEvaluable.sorted { $0.key < $1.key }.flatMap { rule, reasons in
                reasons.sorted { $0.key < $1.key }.map { Reason(rule: rule, code: Coverage.code(ofReason: $0.key), reason: $0.key, checks: $0.value) }
            }
            try c.encode(reasons, forKey: .notEvaluableReasons)
        }
    }

    /// A rule as the JSON report explains it.
    struct RuleHelp: Encodable {
        var id: String
        var severity: Severity
        var owner: String
        var whatToDo: String
        var sources: [String]

        init(_ r: RuleDescription) {
            id = r.identifier
            severity = r.severity
            owner = r.owner.rawValue
            whatToDo = r.whatToDo
            sources = r.sources
        }
    }

    struct Run: Encodable {
        var id: Int64
        var startedAt: String
        var database: String
        var events: Int
        var sessions: Int
        var locauditVersion: String
    }

    public static func generateReport(_ report: AuditReport, options: ReportOptions = ReportOptions()) throws -> String {
        let indices = Array(report.findings.indices)
        let doc = Document(run: Run(id: report.runId, startedAt: report.startedAt, database: report.database, events: report.events,
                                    sessions: report.coverage.sessions, locauditVersion: options.version),
                           findings: report.findings,
                           new: indices.filter { report.new.contains(report.findings[$0].fingerprint) },
                           persisting: indices.filter { report.persisting.contains(report.findings[$0].fingerprint) },
                           resolved: report.resolved, hiddenByBaseline: report.hiddenByBaseline,
                           coverage: CoverageDocument(coverage: report.coverage),
                           failOn: report.failOn, verdict: report.verdict, exitCode: report.exitCode,
                           rules: ReportText.rules(of: report.findings + report.resolved).map(RuleHelp.init),
                           devicesSetByHand: ReportText.devicesSetByHand(report))
        return try Output.json(doc, what: "the JSON report") + "\n"
    }
}

/// One finding per line (JSON Lines), with the run and the change tag, for log shippers.
public enum JSONLinesReporter {

    struct Line: Encodable {
        var run: Int64
        var change: String
        var finding: Finding

        func encode(to encoder: Encoder) throws {
            try finding.encode(to: encoder)
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(run, forKey: .run)
            try c.encode(change, forKey: .change)
        }

        enum Keys: String, CodingKey { case run, change }
    }

    public static func generateReport(_ report: AuditReport, options: ReportOptions = ReportOptions()) throws -> String {
        try report.findings.map { f in
            let line = Line(run: report.runId, change: ReportText.change(f, in: report), finding: f)
            return try Output.json(line, pretty: false, what: "the JSON Lines report") + "\n"
        }.joined()
    }
}
