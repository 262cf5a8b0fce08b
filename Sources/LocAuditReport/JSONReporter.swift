import Foundation
import LocAuditModel
import LocAuditRules
import LocAuditRead

/// The JSON report: `findings` with exactly rule, severity, device, bundleId, pid,
/// sessionStart, time, message, evidence [{file, line}]; then what changed, coverage,
/// the verdict and the run's metadata.
public enum JSONReporter {

    struct Document: Encodable {
        var run: Run
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
                           resolved: report.resolved, hiddenByBaseline: report.hiddenByBaseline, coverage: report.coverage,
                           failOn: report.failOn, verdict: report.verdict, exitCode: report.exitCode)
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
