import Foundation
import GRDB
import LocAuditModel
import LocAuditReplay

/// What `locaudit prune` freed.
public struct PruneReport: Sendable, Codable {
    public var cutoff: String
    public var sources: Int
    public var events: Int
    /// Apps on devices whose replay now starts from a checkpoint (`replay_checkpoints`).
    public var checkpoints = 0
    /// Sessions and findings newly marked `evidence_pruned_at`: kept as they were, never resolved.
    public var sessionsMarked = 0
    public var findingsMarked = 0
    /// Audit runs whose per-check detail went (`audit_runs.checks_pruned_at`).
    public var runsThinned = 0
    /// Sources old enough to go that a running `locaudit watch` still writes into (`LiveSourceLock`): kept.
    public var liveKept = 0
    /// The central store's: logs old enough to go with lines the fleet's audit has not settled
    /// (an app's latest session, or lines pushed since the last audit): kept.
    public var unsettledKept = 0
    /// Database file plus its WAL, checkpointed, before and after `VACUUM`.
    public var bytesBefore: Int64
    public var bytesAfter: Int64

    package init(cutoff: String, sources: Int, events: Int, bytesBefore: Int64, bytesAfter: Int64) {
        (self.cutoff, self.sources, self.events, self.bytesBefore, self.bytesAfter) = (cutoff, sources, events, bytesBefore, bytesAfter)
    }

    public var text: String {
        "pruned \(sources) sources and \(events) events last seen before \(cutoff); "
            + "\(bytesBefore) -> \(bytesAfter) bytes (\(bytesBefore - bytesAfter) freed). Findings, sessions and audit runs kept: "
            + "\(findingsMarked) findings and \(sessionsMarked) sessions marked as pruned (never resolved), "
            + "what the replay knew kept for \(checkpoints) apps on their devices; "
            + "\(runsThinned) older audit runs thinned to their counts.\n"
            + (liveKept > 0 ? "kept \(liveKept) live sources a running locaudit watch still writes into; a prune after the watch ends removes them.\n" : "")
            + (unsettledKept > 0 ? "kept \(unsettledKept) logs with lines the fleet's audit has not settled (an app's latest session, or pushed since the last audit); a prune after the next audit may remove them.\n" : "")
    }
}

/// What `locaudit stats` prints.
public struct StoreStats: Sendable, Codable {
    public var database: String
    public var bytes: Int64
    public var tables: [String: Int]
    public var devices: [String]
    public var apps: [String]
    /// iOS version (or "unknown") -> logs.
    public var iosVersions: [String: Int]
    public var firstTime: String?
    public var lastTime: String?

    /// Also what the central store's statistics print (`CentralStats`).
    public init(database: String, bytes: Int64, tables: [String: Int], devices: [String], apps: [String],
                iosVersions: [String: Int], firstTime: String?, lastTime: String?) {
        (self.database, self.bytes, self.tables, self.devices, self.apps) = (database, bytes, tables, devices, apps)
        (self.iosVersions, self.firstTime, self.lastTime) = (iosVersions, firstTime, lastTime)
    }

    public var text: String {
        var out = "\(database): \(bytes) bytes\n"
        out += "tables: " + tables.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + "\n"
        out += "devices (\(devices.count)): \(devices.joined(separator: ", "))\n"
        out += "apps (\(apps.count)): \(apps.joined(separator: ", "))\n"
        out += "iOS versions (logs): " + iosVersions.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + "\n"
        out += "time span: \(firstTime ?? "-") … \(lastTime ?? "-")\n"
        return out
    }
}

/// An `--older-than` that is not an age, or too large.
public enum AgeError: Error, CustomStringConvertible, Sendable {
    case notAnAge(String)
    case tooLarge(String)

    public var description: String {
        switch self {
        case .notAnAge(let text): return "'\(text)' is not an age; use 30d, 12h or 2w (a number and h, d or w)."
        case .tooLarge(let text): return "'\(text)' is too large; the largest accepted age is 36500d (876000h, 5214w: 100 years)."
        }
    }
}

/// Keeping the store healthy: retention and statistics.
public enum Maintenance {
    /// Audit runs whose rule checks `prune` keeps whatever their age (`--keep-checks`).
    public static let defaultKeepChecks = 7

    /// The largest age `prune` accepts: 100 years (36500d), so that the cutoff is a time
    /// every clock and column can hold.
    public static let maxAge: TimeInterval = 36_500 * 86_400

    /// `30d`, `12h`, `2w`, `1.5d` (digits, an optional fraction, a unit) -> seconds, at most `maxAge`.
    public static func parseAge(_ text: String) throws -> TimeInterval {
        guard text.range(of: #"^[0-9]+(\.[0-9]+)?[hdw]$"#, options: .regularExpression) != nil,
              let unit = text.last, let n = Double(text.dropLast()) else { throw AgeError.notAnAge(text) }
        let seconds = n * (unit == "h" ? 3600 : unit == "d" ? 86_400 : 7 * 86_400)
        guard seconds <= maxAge else { throw AgeError.tooLarge(text) }
        return seconds
    }

    /// Removes the events and sources of logs whose last line is older than `age` seconds (at most `maxAge`).
    public static func prune(database: String, olderThan age: TimeInterval, keepChecks: Int = defaultKeepChecks) throws -> PruneReport {
        let cutoff = Date().timeIntervalSince1970 - min(max(age, 0), maxAge)
        return try prune(database: database, cutoffUS: Int64(cutoff * 1_000_000), keepChecks: keepChecks)
    }

    /// Removes the events and sources of logs whose last line is before `cutoffUS`; findings
    /// (with their evidence as file and line), sessions and audit runs stay. Audit runs that
    /// started before it, other than the latest `keepChecks`, lose their per-check detail
    /// (`checks`), not their counts. Then `VACUUM`.
    public static func prune(database: String, cutoffUS: Int64, keepChecks: Int = Maintenance.defaultKeepChecks) throws -> PruneReport {
        let store = try Store(path: database, access: .write)
        let queue = try store.connect()
        let cutoff = Timestamps.isoUTC(cutoffUS)
        func bytes() throws -> Int64 {
            try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
            return fileSize(database) + fileSize(database + "-wal")
        }
        let before = try bytes()
        var report = try queue.write { db -> PruneReport in
            var report = PruneReport(cutoff: cutoff, sources: 0, events: 0, bytesBefore: before, bytesAfter: 0)
            let thinned = jsonText(try Int64.fetchAll(db, sql: """
                SELECT id FROM audit_runs
                WHERE (checks IS NOT NULL OR id IN (SELECT run_id FROM audit_checks)) AND started_at < ?
                    AND id NOT IN (SELECT id FROM audit_runs ORDER BY id DESC LIMIT ?)
                """, arguments: [cutoff, max(0, keepChecks)]))
            try db.execute(sql: "DELETE FROM audit_checks WHERE run_id IN (SELECT value FROM json_each(?))", arguments: [thinned])
            try db.execute(sql: """
                UPDATE audit_runs SET checks = NULL, checks_pruned_at = ? WHERE id IN (SELECT value FROM json_each(?))
                """, arguments: [Clock.nowISO(), thinned])
            report.runsThinned = db.changesCount
            var ids = try Int64.fetchAll(db, sql: "SELECT id FROM sources WHERE last_time IS NOT NULL AND last_time < ?", arguments: [cutoff])
            // A watch's source stays while the watch runs: its end audit reads it (under the
            // write lock: a watch takes its lock inside the transaction that creates the row).
            let live = try Int64.fetchAll(db, sql: "SELECT id FROM sources WHERE content_sha256 LIKE 'live:%' AND id IN (SELECT value FROM json_each(?))",
                                          arguments: [jsonText(ids)])
            let held = LiveSourceLock.held(live, database: database)
            ids.removeAll(where: held.contains)
            report.liveKept = held.count
            guard !ids.isEmpty else { return report }
            try keepKnowledge(removing: Set(ids), report: &report, in: db)
            // `event_rows` has no index on source_id: one scan for every source at once. A
            // trigger deletes their messages; the formats no message uses go after them.
            try db.execute(sql: "DELETE FROM event_rows WHERE source_id IN (SELECT value FROM json_each(?))", arguments: [jsonText(ids)])
            report.events = db.changesCount
            try db.execute(sql: "DELETE FROM message_formats WHERE id NOT IN (SELECT format FROM event_messages)")
            try db.execute(sql: "DELETE FROM sources WHERE id IN (SELECT value FROM json_each(?))", arguments: [jsonText(ids)])
            report.sources = ids.count
            return report
        }
        try queue.writeWithoutTransaction { try $0.execute(sql: "VACUUM") }
        report.bytesAfter = try bytes()
        return report
    }

    /// Pruning removes lines, not knowledge. For each app on each device that loses lines,
    /// replays its events as an audit does (from an earlier checkpoint, if any) and keeps the
    /// state after the last session that loses lines as its checkpoint; that session and the
    /// ones before it are no longer replayed, and stay in `sessions` as they were, marked.
    /// Findings of those sessions, and any finding citing one of their lines, are marked too:
    /// kept, never resolved.
    static func keepKnowledge(removing sources: Set<Int64>, report: inout PruneReport, in db: Database) throws {
        let now = Clock.nowISO()
        let touched = try Row.fetchAll(db, sql: """
            SELECT DISTINCT device_id, bundle_id FROM events
            WHERE source_id IN (SELECT value FROM json_each(?)) AND bundle_id IS NOT NULL
            """, arguments: [jsonText(sources.sorted())])
        guard !touched.isEmpty else { return }
        var input = try AuditInput.load(db, scope: EventScope(devices: Set(touched.map { $0["device_id"] as String }),
                                                              bundleIds: Set(touched.map { $0["bundle_id"] as String })))
        var frozen = Set<Int64>()
        // One app on one device at a time, as the audit reads them.
        try input.replay { timeline in
            guard let last = timeline.lastIndex(where: { $0.session.events.contains { sources.contains($0.sourceId) } }) else { return }
            let session = timeline[last].session
            let events = timeline[...last].flatMap(\.session.events)
            frozen.formUnion(events.map(\.id))
            let asOf = events.map(ReplayCheckpoint.EventKey.init).max()!
            try ReplayCheckpoint(deviceId: session.deviceId, bundleId: session.bundleId, asOf: asOf, state: timeline[last].final).save(in: db)
            report.checkpoints += 1
            try db.execute(sql: """
                UPDATE sessions SET evidence_pruned_at = ?
                WHERE device_id = ? AND bundle_id = ? AND start_us <= ? AND evidence_pruned_at IS NULL
                """, arguments: [now, session.deviceId, session.bundleId, session.startUS])
            report.sessionsMarked += db.changesCount
            try db.execute(sql: """
                UPDATE findings SET evidence_pruned_at = ?
                WHERE device_id = ? AND bundle_id = ? AND session_start IS NOT NULL AND session_start <= ? AND evidence_pruned_at IS NULL
                """, arguments: [now, session.deviceId, session.bundleId, Timestamps.isoUTC(session.startUS)])
            report.findingsMarked += db.changesCount
        }
        // Configuration findings (and any other) citing a line no longer replayed.
        for row in try Row.fetchAll(db, sql: "SELECT id, evidence FROM findings WHERE evidence_pruned_at IS NULL") {
            let cited = (row["evidence"] as AuditRecorder.StoredEvidence?)?.value ?? []
            guard cited.contains(where: { $0.event.map(frozen.contains) == true }) else { continue }
            try db.execute(sql: "UPDATE findings SET evidence_pruned_at = ? WHERE id = ?", arguments: [now, row["id"] as Int64])
            report.findingsMarked += 1
        }
    }

    public static func stats(database: String) throws -> StoreStats {
        try Store(path: database, access: .read).connect(readOnly: true).read { db in
            var tables: [String: Int] = [:]
            for table in try String.fetchAll(db, sql: """
                SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'grdb_%'
                    AND name NOT IN ('event_rows', 'event_messages')
                """) {
                tables[table] = try Int.fetchOne(db, sql: "SELECT count(*) FROM \"\(table)\"")
            }
            var versions: [String: Int] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT coalesce(os_version, 'unknown') AS version, count(*) AS logs FROM sources
                WHERE container NOT IN ('info-plist', 'ideviceinfo') GROUP BY 1
                """) {
                versions[row["version"]] = row["logs"]
            }
            let span = try Row.fetchOne(db, sql: "SELECT min(first_time) AS first, max(last_time) AS last FROM sources")
            return StoreStats(database: database,
                              bytes: fileSize(database) + fileSize(database + "-wal"),
                              tables: tables,
                              devices: try String.fetchAll(db, sql: "SELECT id FROM devices ORDER BY id"),
                              apps: try String.fetchAll(db, sql: """
                                  SELECT name FROM names WHERE id IN (SELECT bundle_ref FROM event_rows) UNION SELECT bundle_id FROM apps ORDER BY 1
                                  """),
                              iosVersions: versions, firstTime: span?["first"], lastTime: span?["last"])
        }
    }

    static func fileSize(_ path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int64) ?? 0
    }
}
