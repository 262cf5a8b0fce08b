import GRDB
import LocAuditModel
import LocAuditRules

extension FleetSummary {
    /// From the store: findings open after run `runId` (first seen by it or before, not
    /// resolved by then), fleet-wide, whatever scope each run had.
    public static func load(database: String, upToRun runId: Int64) throws -> FleetSummary {
        try Store(path: database, access: .read).connect(readOnly: true).read { db in
            func isOpen(after run: String) -> String { "first_run <= \(run) AND (resolved_run IS NULL OR resolved_run > \(run))" }
            let open = try Cell.fetchAll(db, sql: """
                SELECT rule, severity, device_id AS device, bundle_id AS bundleId, os_version AS osVersion FROM findings
                WHERE \(isOpen(after: "?1"))
                """, arguments: [runId])
            // Latest first.
            let runs = try RunPoint.fetchAll(db, sql: """
                SELECT id AS runId, started_at AS startedAt,
                    (SELECT count(*) FROM findings WHERE \(isOpen(after: "run.id"))) AS open,
                    (SELECT count(*) FROM findings WHERE first_run = run.id) AS "new",
                    (SELECT count(*) FROM findings WHERE resolved_run = run.id) AS resolved
                FROM audit_runs run WHERE id <= ? ORDER BY id DESC LIMIT ?
                """, arguments: [runId, trendRuns])
            return FleetSummary(runId: runId, startedAt: runs.first?.startedAt ?? "", open: open, trend: runs.reversed())
        }
    }
}

extension FleetSummary.Cell: FetchableRecord {}
extension FleetSummary.RunPoint: FetchableRecord {}
