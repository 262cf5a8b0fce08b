import Foundation
import LocAuditModel
import LocAuditReplay
import LocAuditStore
import PostgresNIO

/// `prune --db postgresql://…`: the central store's history kept bounded. Pruning removes
/// lines, not knowledge: a log goes only when the fleet's audit has settled every line of it
/// (each of its apps' lines lies before that app's checkpoint, still good, `CentralCheckpoints`),
/// so that later audits count its sessions, checks and findings exactly as before. The first
/// and configuration lines of the settled sessions stay (the configuration rules read them),
/// and so do the logs they are in. The checkpoints it relies on are marked `pruned_at`: their
/// lines are gone, so a later line reaching back before one is not replayed (as after a local
/// prune). Audit runs started before the cutoff, but the latest `keepChecks`, lose their checks.
public enum CentralPrune {
    public static func prune(_ url: CentralURL, olderThan age: TimeInterval, keepChecks: Int = Maintenance.defaultKeepChecks,
                             environment: [String: String] = ProcessInfo.processInfo.environment) throws -> PruneReport {
        let cutoffUS = Int64((Date().timeIntervalSince1970 - min(max(age, 0), Maintenance.maxAge)) * 1_000_000)
        let central = try Central.blocking { try await Central.connect(url, environment: environment) }
        defer { try? Central.blocking { await central.close() } }
        return try Central.blocking {
            // Takes turns with the fleet's audit, whose checkpoints it relies on.
            let locked = try await central.rows("SELECT pg_try_advisory_lock(\(CentralAudit.lockKey))", as: Bool.self)
            guard locked.first == true else {
                throw CentralError(.busy("\(url.display): a central audit or prune is running: prune again when it has finished"))
            }
            _ = try await CentralSchema.migrate(central)
            return try await prune(central, cutoffUS: cutoffUS, keepChecks: keepChecks)
        }
    }

    static func prune(_ central: Central, cutoffUS: Int64, keepChecks: Int) async throws -> PruneReport {
        let cutoff = Timestamps.isoUTC(cutoffUS)
        // The database's size, as `stats` measures it.
        let size: PostgresQuery = "SELECT pg_database_size(current_database())"
        let before: [Int64] = try await central.rows(size, as: Int64.self)
        let start = PruneReport(cutoff: cutoff, sources: 0, events: 0, bytesBefore: before.first ?? 0, bytesAfter: 0)
        var report = try await central.transaction { central in
            var report = start
            var thin = PostgresBindings()
            thin.append(Clock.nowISO())
            thin.append(cutoff)
            thin.append(max(0, keepChecks))
            report.runsThinned = try await central.execute(PostgresQuery(unsafeSQL: """
                UPDATE locaudit.audit_runs SET checks = NULL, checks_pruned_at = $1
                WHERE checks IS NOT NULL AND started_at < $2 AND id NOT IN (SELECT id FROM locaudit.audit_runs ORDER BY id DESC LIMIT $3)
                """, binds: thin))
            var binds = PostgresBindings()
            binds.append(cutoff)
            let old: [Int64] = try await central.rows(PostgresQuery(unsafeSQL: """
                SELECT id FROM locaudit.sources WHERE last_time IS NOT NULL AND last_time < $1 ORDER BY id
                """, binds: binds), as: Int64.self)
            guard !old.isEmpty else { return report }
            // The checkpoints still good: what the audit settled stands (whatever build judged it).
            var plists: [String: [AppVersion]] = [:]
            for (bundle, path, sha, firstSeen) in try await central.rows("SELECT bundle_id, plist_path, plist_sha256, first_seen_us FROM locaudit.app_versions",
                                                                      as: (String, String, String, Int64).self) {
                plists[bundle, default: []].append(AppVersion(facts: AppFacts(bundleId: bundle, usageKeys: [], backgroundModes: []),
                                                              path: path, sha256: sha, firstSeenUS: firstSeen))
            }
            let checkpoints = try await CentralCheckpoints.read(central, rules: nil, plists: plists.mapValues(AppVersions.init))
            let settled = checkpoints.good.values.sorted { ($0.deviceId, $0.bundleId) < ($1.deviceId, $1.bundleId) }
            var scan = PostgresBindings()
            scan.append(old)
            scan.append(settled.map(\.deviceId))
            scan.append(settled.map(\.bundleId))
            scan.append(settled.map { $0.asOf?.timeUS ?? .min })
            scan.append(checkpoints.stored.values.map(\.deviceId))
            // A log keeps a line the audit has not settled: an app's line at or after its
            // checkpoint's second (or of an app without one), or a device-wide line of a device
            // no checkpoint speaks for.
            let unsettled: [Int64] = try await central.rows(PostgresQuery(unsafeSQL: """
                SELECT DISTINCT e.source_id FROM locaudit.event_rows e
                    LEFT JOIN unnest($2::text[], $3::text[], $4::bigint[]) AS g(device_id, bundle_id, until_us)
                        ON g.device_id = e.device_id AND g.bundle_id = e.bundle_id
                WHERE e.source_id = ANY($1::bigint[])
                    AND (CASE WHEN e.bundle_id IS NULL THEN NOT e.device_id = ANY($5::text[])
                         ELSE g.until_us IS NULL OR e.time_us >= g.until_us END)
                """, binds: scan), as: Int64.self)
            let removable = old.filter { !Set(unsettled).contains($0) }
            report.unsettledKept = old.count - removable.count
            guard !removable.isEmpty else { return report }
            var remove = PostgresBindings()
            remove.append(removable)
            remove.append(checkpoints.settledLines)
            let removed: [(String, String?, Int64)] = try await central.rows(PostgresQuery(unsafeSQL: """
                WITH removed AS (DELETE FROM locaudit.event_rows WHERE source_id = ANY($1::bigint[]) AND NOT id = ANY($2::bigint[])
                                 RETURNING device_id, bundle_id)
                SELECT device_id, bundle_id, count(*) FROM removed GROUP BY 1, 2
                """, binds: remove), as: (String, String?, Int64).self)
            report.events = Int(removed.reduce(0) { $0 + $1.2 })
            report.sources = try await central.execute(PostgresQuery(unsafeSQL: """
                DELETE FROM locaudit.sources WHERE id = ANY($1::bigint[])
                    AND id NOT IN (SELECT source_id FROM locaudit.event_rows WHERE id = ANY($2::bigint[]))
                """, binds: remove))
            // The checkpoints of the apps that lost lines now stand for them.
            let touched = removed.compactMap { row in row.1.map { (row.0, $0) } }
            var mark = PostgresBindings()
            mark.append(Clock.nowISO())
            mark.append(touched.map(\.0))
            mark.append(touched.map(\.1))
            report.checkpoints = try await central.execute(PostgresQuery(unsafeSQL: """
                UPDATE locaudit.replay_checkpoints c SET pruned_at = $1
                FROM unnest($2::text[], $3::text[]) AS t(device_id, bundle_id)
                WHERE c.pruned_at IS NULL AND t.device_id = c.device_id AND t.bundle_id = c.bundle_id
                """, binds: mark))
            return report
        }
        // The space the removed rows took is reused by later pushes.
        try await central.execute("VACUUM (ANALYZE) locaudit.event_rows")
        let after: [Int64] = try await central.rows(size, as: Int64.self)
        report.bytesAfter = after.first ?? 0
        return report
    }
}
