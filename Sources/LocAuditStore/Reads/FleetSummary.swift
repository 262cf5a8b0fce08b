import Foundation
import GRDB
import LocAuditModel

/// The fleet's open findings as of an audit run, and how they moved over the runs before it:
/// what the fleet summary report shows.
public struct FleetSummary: Sendable, Equatable {
    /// One open finding, as the matrices count it.
    public struct Cell: Sendable, Equatable {
        public var rule: String
        public var severity: Severity
        public var device: String
        public var bundleId: String
        /// Major iOS version (`17`), nil when unknown.
        public var iosMajor: Int?
    }

    /// One audit run: findings open after it, first seen by it, resolved by it.
    public struct RunPoint: Sendable, Equatable {
        public var runId: Int64
        public var startedAt: String
        public var open: Int
        public var new: Int
        public var resolved: Int
    }

    public var runId: Int64
    public var startedAt: String
    public var open: [Cell]
    /// The latest runs up to this one, oldest first (at most `trendRuns`).
    public var trend: [RunPoint]

    public static let trendRuns = 7

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

    /// From one run's findings alone (no history).
    public init(report: AuditReport) {
        runId = report.runId
        startedAt = report.startedAt
        open = report.findings.map {
            Cell(rule: $0.rule, severity: $0.severity, device: $0.device, bundleId: $0.bundleId, iosMajor: IOSVersion($0.osVersion)?.major)
        }
        trend = []
    }

    public init(runId: Int64, startedAt: String, open: [Cell], trend: [RunPoint]) {
        self.runId = runId
        self.startedAt = startedAt
        self.open = open
        self.trend = trend
    }
}
