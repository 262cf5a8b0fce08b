import GRDB
import LocAuditModel
import LocAuditNormalise

/// Links app-process events to bundle ids. App lines name the executable and the pid,
/// never the bundle, so the link comes from elsewhere, in this order:
/// 1. `pid`: a system line naming both the bundle and that pid (RunningBoard/locationd
///    `bundleId` + `pid`, or `clientKey` + `pid`); with pid reuse, the link whose time
///    span holds the event, else the nearest;
/// 2. `executable`: an ingested Info.plist whose `CFBundleExecutable` is the process name;
/// 3. `name`: exactly one bundle seen on the device (or with an Info.plist) whose last component equals the
///    process name, ignoring case (`com.example.runner` for `Runner`).
/// A log without pids (a Console copy) has app lines with neither pid nor `app_pid`: they
/// take steps 2 and 3, by their process name.
package enum BundleLinker {
    /// The unlinked lines an app logged itself: with the app's pid, or in a log without pids.
    static let appLine = """
        bundle_ref IS NULL AND (app_pid IS NOT NULL OR (pid IS NULL AND kind_ref IN (SELECT id FROM names WHERE name IN (\(EventKind.loggedByApp.map { "'\($0.rawValue)'" }.sorted().joined(separator: ", "))))))
        """

    static func link(deviceId: String, in db: Database) throws {
        guard let device = try EventNames.existing(deviceId, in: db) else { return }
        let names = try EventNames(db)
        let via = (pid: try names.id(BundleVia.pid.rawValue), executable: try names.id(BundleVia.executable.rawValue),
                   name: try names.id(BundleVia.name.rawValue))
        try db.execute(sql: "INSERT OR IGNORE INTO names (name) SELECT bundle_id FROM process_links WHERE device_id = ? UNION SELECT bundle_id FROM apps",
                       arguments: [deviceId])
        try db.execute(sql: """
            WITH ranked AS (
                SELECT e.id AS event_id, l.bundle_id, row_number() OVER (
                    PARTITION BY e.id
                    ORDER BY (e.time_us BETWEEN l.first_time_us AND l.last_time_us) DESC,
                             min(abs(l.first_time_us - e.time_us), abs(l.last_time_us - e.time_us))) AS rank
                FROM event_rows e JOIN process_links l ON l.device_id = ?1 AND l.pid = e.app_pid
                WHERE e.device_ref = ?2 AND e.bundle_ref IS NULL AND e.app_pid IS NOT NULL)
            UPDATE event_rows SET bundle_ref = (SELECT id FROM names WHERE name = ranked.bundle_id), via_ref = ?3
            FROM ranked WHERE ranked.rank = 1 AND event_rows.id = ranked.event_id
            """, arguments: [deviceId, device, via.pid])
        try db.execute(sql: """
            UPDATE event_rows SET via_ref = ?2, bundle_ref = (
                SELECT n.id FROM apps a JOIN names n ON n.name = a.bundle_id
                WHERE a.executable = (SELECT name FROM names WHERE id = event_rows.process_ref) ORDER BY a.bundle_id LIMIT 1)
            WHERE device_ref = ?1 AND \(appLine) AND process_ref IN (SELECT n.id FROM names n JOIN apps a ON a.executable = n.name)
            """, arguments: [device, via.executable])
        let unlinked = try String.fetchAll(db, sql: """
            SELECT DISTINCT n.name FROM event_rows JOIN names n ON n.id = process_ref
            WHERE device_ref = ? AND \(appLine)
            """, arguments: [device])
        guard !unlinked.isEmpty else { return }
        let bundles = try String.fetchAll(db, sql: """
            SELECT bundle_id FROM process_links WHERE device_id = ? UNION SELECT bundle_id FROM apps
            UNION SELECT n.name FROM names n WHERE n.id IN (SELECT DISTINCT bundle_ref FROM event_rows WHERE device_ref = ?)
            """, arguments: [deviceId, device])
        func key(_ s: Substring) -> String { s.lowercased().filter { $0.isLetter || $0.isNumber } }
        for process in unlinked {
            let matches = bundles.filter { key($0.split(separator: ".").last ?? "") == key(Substring(process)) }
            guard matches.count == 1 else { continue }
            try db.execute(sql: """
                UPDATE event_rows SET bundle_ref = ?, via_ref = ?
                WHERE device_ref = ? AND \(appLine) AND process_ref = ?
                """, arguments: [try names.id(matches[0]), via.name, device, try names.id(process)])
        }
    }

    /// Links again on every device (after an Info.plist arrives).
    package static func linkAll(in db: Database) throws {
        for device in try String.fetchAll(db, sql: """
            SELECT name FROM names WHERE id IN (SELECT DISTINCT device_ref FROM event_rows WHERE bundle_ref IS NULL)
            """) {
            try link(deviceId: device, in: db)
        }
    }
}
