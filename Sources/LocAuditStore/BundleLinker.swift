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
        bundle_id IS NULL AND (app_pid IS NOT NULL OR (pid IS NULL AND kind IN (\(EventKind.loggedByApp.map { "'\($0.rawValue)'" }.sorted().joined(separator: ", ")))))
        """

    static func link(deviceId: String, in db: Database) throws {
        try db.execute(sql: """
            WITH ranked AS (
                SELECT e.id AS event_id, l.bundle_id, row_number() OVER (
                    PARTITION BY e.id
                    ORDER BY (e.time_us BETWEEN l.first_time_us AND l.last_time_us) DESC,
                             min(abs(l.first_time_us - e.time_us), abs(l.last_time_us - e.time_us))) AS rank
                FROM events e JOIN process_links l ON l.device_id = e.device_id AND l.pid = e.app_pid
                WHERE e.device_id = ? AND e.bundle_id IS NULL AND e.app_pid IS NOT NULL)
            UPDATE events SET bundle_id = ranked.bundle_id, bundle_via = '\(BundleVia.pid.rawValue)'
            FROM ranked WHERE ranked.rank = 1 AND events.id = ranked.event_id
            """, arguments: [deviceId])
        try db.execute(sql: """
            UPDATE events SET bundle_via = '\(BundleVia.executable.rawValue)',
                bundle_id = (SELECT a.bundle_id FROM apps a WHERE a.executable = events.process ORDER BY a.bundle_id LIMIT 1)
            WHERE device_id = ? AND \(appLine) AND process IN (SELECT executable FROM apps)
            """, arguments: [deviceId])
        let unlinked = try String.fetchAll(db, sql: """
            SELECT DISTINCT process FROM events
            WHERE device_id = ? AND \(appLine) AND process IS NOT NULL
            """, arguments: [deviceId])
        guard !unlinked.isEmpty else { return }
        let bundles = try String.fetchAll(db, sql: """
            SELECT bundle_id FROM process_links WHERE device_id = ? UNION SELECT bundle_id FROM apps
            UNION SELECT DISTINCT bundle_id FROM events WHERE device_id = ? AND bundle_id IS NOT NULL
            """, arguments: [deviceId, deviceId])
        func key(_ s: Substring) -> String { s.lowercased().filter { $0.isLetter || $0.isNumber } }
        for process in unlinked {
            let matches = bundles.filter { key($0.split(separator: ".").last ?? "") == key(Substring(process)) }
            guard matches.count == 1 else { continue }
            try db.execute(sql: """
                UPDATE events SET bundle_id = ?, bundle_via = '\(BundleVia.name.rawValue)'
                WHERE device_id = ? AND \(appLine) AND process = ?
                """, arguments: [matches[0], deviceId, process])
        }
    }

    /// Links again on every device (after an Info.plist arrives).
    package static func linkAll(in db: Database) throws {
        for device in try String.fetchAll(db, sql: "SELECT DISTINCT device_id FROM events WHERE bundle_id IS NULL") {
            try link(deviceId: device, in: db)
        }
    }
}
