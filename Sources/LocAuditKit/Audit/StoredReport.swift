import Foundation
import GRDB

extension AuditReport {
    /// The report of a recorded audit run (default: the latest), rebuilt from the store
    /// without replaying anything: the run's row, its coverage and checks, and the findings
    /// it saw. The findings a run reported are exactly those whose `last_run` is that run
    /// or later and that it had not resolved (before any baseline: a baseline hides findings
    /// from a report, not from the store).
    public static func stored(in store: Store, run: Int64? = nil) throws -> AuditReport {
        let queue = try store.connect(readOnly: true)
        return try queue.read { db in
            let id: Int64
            if let run {
                id = run
            } else if let latest = try Int64.fetchOne(db, sql: "SELECT max(id) FROM audit_runs") {
                id = latest
            } else {
                throw AuditError.noRun(nil)
            }
            guard let row = try Row.fetchOne(db, sql: """
                SELECT started_at, events, fail_on, coverage, checks FROM audit_runs WHERE id = ?
                """, arguments: [id]) else { throw AuditError.noRun(id) }
            func decode<T: Decodable>(_ type: T.Type, _ text: String?) -> T? {
                text.flatMap { try? JSONDecoder().decode(T.self, from: Data($0.utf8)) }
            }
            let columns = "fingerprint, rule, severity, device_id, bundle_id, pid, session_start, time, message, evidence, time_us, os_version"
            let seen = try Row.fetchAll(db, sql: """
                SELECT \(columns), first_run FROM findings
                WHERE first_run <= ?1 AND last_run >= ?1 AND (resolved_run IS NULL OR resolved_run > ?1)
                """, arguments: [id])
            let findings = seen.map(Finding.init(row:)).sorted(by: Finding.reportOrder)
            let resolved = try Row.fetchAll(db, sql: "SELECT \(columns) FROM findings WHERE resolved_run = ?", arguments: [id])
                .map(Finding.init(row:)).sorted(by: Finding.reportOrder)
            var report = AuditReport(runId: id, startedAt: row["started_at"], database: store.path, events: row["events"],
                                     findings: findings,
                                     new: Set(seen.filter { ($0["first_run"] as Int64) == id }.map { $0["fingerprint"] as String }),
                                     persisting: Set(seen.filter { ($0["first_run"] as Int64) < id }.map { $0["fingerprint"] as String }),
                                     resolved: resolved, hiddenByBaseline: 0,
                                     coverage: decode(Coverage.self, row["coverage"]) ?? Coverage(),
                                     failOn: Severity(rawValue: row["fail_on"]) ?? .high)
            report.checks = decode([RuleCheckRecord].self, row["checks"]) ?? []
            return report
        }
    }
}
