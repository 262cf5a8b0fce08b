import Foundation
import GRDB

/// What `locaudit prune` freed.
public struct PruneReport: Sendable, Codable {
    public var cutoff: String
    public var sources: Int
    public var events: Int
    /// Database file plus its WAL, checkpointed, before and after `VACUUM`.
    public var bytesBefore: Int64
    public var bytesAfter: Int64

    public var text: String {
        "pruned \(sources) sources and \(events) events last seen before \(cutoff); "
            + "\(bytesBefore) -> \(bytesAfter) bytes (\(bytesBefore - bytesAfter) freed). Findings, sessions and audit runs kept.\n"
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

/// Keeping the store healthy: retention and statistics.
public enum Maintenance {
    /// `30d`, `12h`, `2w` -> seconds.
    public static func parseAge(_ text: String) -> TimeInterval? {
        guard let unit = text.last, let n = Double(text.dropLast()), n >= 0 else { return nil }
        switch unit {
        case "h": return n * 3600
        case "d": return n * 86_400
        case "w": return n * 7 * 86_400
        default: return nil
        }
    }

    /// Removes the events and sources of logs whose last line is before `cutoffUS`; findings
    /// (with their evidence as file and line), sessions and audit runs stay. Then `VACUUM`.
    public static func prune(database: String, cutoffUS: Int64) throws -> PruneReport {
        let store = try Store(path: database)
        let queue = try store.connect()
        let cutoff = Timestamps.isoUTC(cutoffUS)
        func bytes() throws -> Int64 {
            try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
            return fileSize(database) + fileSize(database + "-wal")
        }
        let before = try bytes()
        let (sources, events) = try queue.write { db -> (Int, Int) in
            let ids = try Int64.fetchAll(db, sql: "SELECT id FROM sources WHERE last_time IS NOT NULL AND last_time < ?", arguments: [cutoff])
            guard !ids.isEmpty else { return (0, 0) }
            // `events` has no index on source_id: one scan for every source at once.
            try db.execute(sql: "DELETE FROM events WHERE source_id IN (SELECT value FROM json_each(?))", arguments: [jsonText(ids)])
            let events = db.changesCount
            try db.execute(sql: "DELETE FROM sources WHERE id IN (SELECT value FROM json_each(?))", arguments: [jsonText(ids)])
            return (ids.count, events)
        }
        try queue.writeWithoutTransaction { try $0.execute(sql: "VACUUM") }
        return PruneReport(cutoff: cutoff, sources: sources, events: events, bytesBefore: before, bytesAfter: try bytes())
    }

    public static func stats(database: String) throws -> StoreStats {
        try Store(path: database, migrate: false).connect(readOnly: true).read { db in
            var tables: [String: Int] = [:]
            for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'grdb_%'") {
                tables[table] = try Int.fetchOne(db, sql: "SELECT count(*) FROM \"\(table)\"")
            }
            var versions: [String: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT coalesce(os_version, 'unknown'), count(*) FROM sources WHERE container NOT IN ('info-plist', 'ideviceinfo') GROUP BY 1") {
                versions[row[0]] = row[1]
            }
            let span = try Row.fetchOne(db, sql: "SELECT min(first_time), max(last_time) FROM sources")
            return StoreStats(database: database,
                              bytes: fileSize(database) + fileSize(database + "-wal"),
                              tables: tables,
                              devices: try String.fetchAll(db, sql: "SELECT id FROM devices ORDER BY id"),
                              apps: try String.fetchAll(db, sql: "SELECT DISTINCT bundle_id FROM events WHERE bundle_id IS NOT NULL UNION SELECT bundle_id FROM apps ORDER BY 1"),
                              iosVersions: versions, firstTime: span?[0], lastTime: span?[1])
        }
    }

    static func fileSize(_ path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int64) ?? 0
    }
}
