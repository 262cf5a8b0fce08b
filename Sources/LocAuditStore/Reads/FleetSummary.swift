import GRDB
import LocAuditModel

extension FleetSummary {
    /// From the store: findings open after run `runId` (first seen by it or before, not
    /// resolved by then), fleet-wide, whatever scope each run had.
    public static func load(database: String, upToRun runId: Int64) throws -> FleetSummary {
        try Store(path: database, access: .read).connect(readOnly: true).read { db in
            let openSQL = "first_run <= ?1 AND (resolved_run IS NULL OR resolved_run > ?1)"
            let open = try Row.fetchAll(db, sql: "SELECT rule, severity, device_id, bundle_id, os_version FROM findings WHERE \(openSQL)",
                                        arguments: [runId]).map { row in
                Cell(rule: row["rule"], severity: Severity(rawValue: row["severity"]) ?? .info, device: row["device_id"],
                     bundleId: row["bundle_id"], iosMajor: IOSVersion(row["os_version"] as String?)?.major)
            }
            let runs = try Row.fetchAll(db, sql: "SELECT id, started_at FROM audit_runs WHERE id <= ? ORDER BY id DESC LIMIT ?",
                                        arguments: [runId, trendRuns])
            let trend = try runs.reversed().map { row -> RunPoint in
                let id: Int64 = row["id"]
                func count(_ sql: String) throws -> Int { try Int.fetchOne(db, sql: "SELECT count(*) FROM findings WHERE \(sql)", arguments: [id]) ?? 0 }
                return RunPoint(runId: id, startedAt: row["started_at"], open: try count(openSQL), new: try count("first_run = ?1"),
                                resolved: try count("resolved_run = ?1"))
            }
            return FleetSummary(runId: runId, startedAt: runs.first?["started_at"] ?? "", open: open, trend: trend)
        }
    }
}
