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
            // One point a night: the last nightly or full run of each UTC day (exploratory
            // audits are not nights); new and resolved since the night before. Latest first.
            let runs = try RunPoint.fetchAll(db, sql: """
                WITH nights AS (
                    SELECT max(id) AS id FROM audit_runs WHERE id <= ?1 AND scope != 'exploratory' GROUP BY substr(started_at, 1, 10)
                ), points AS (
                    SELECT run.id, run.started_at, coalesce(lag(run.id) OVER (ORDER BY run.id), 0) AS before
                    FROM audit_runs run JOIN nights USING (id)
                )
                SELECT id AS runId, started_at AS startedAt,
                    (SELECT count(*) FROM findings WHERE \(isOpen(after: "points.id"))) AS open,
                    (SELECT count(*) FROM findings WHERE first_run > points.before AND first_run <= points.id) AS "new",
                    (SELECT count(*) FROM findings WHERE resolved_run > points.before AND resolved_run <= points.id) AS resolved
                FROM points ORDER BY id DESC LIMIT ?2
                """, arguments: [runId, trendRuns])
            let startedAt = try String.fetchOne(db, sql: "SELECT started_at FROM audit_runs WHERE id = ?", arguments: [runId])
            var summary = FleetSummary(runId: runId, startedAt: startedAt ?? "", open: open, trend: runs.reversed())
            for row in try Row.fetchAll(db, sql: "SELECT id, name FROM devices WHERE name IS NOT NULL AND name != '' AND name != id") {
                summary.deviceNames[row["id"]] = row["name"]
            }
            return summary
        }
    }
}

extension FleetSummary.Cell: FetchableRecord {}
extension FleetSummary.RunPoint: FetchableRecord {}
