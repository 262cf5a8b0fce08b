import Foundation
import GRDB
import LocAuditModel
import LocAuditReplay

extension DeviceLogs {
    /// The families each device in `scope` carries, from its events (through the partial
    /// index `events_by_family`, whose condition the query repeats word for word) and from what
    /// prune kept of its apps' replays.
    static func load(_ db: Database, scope: EventScope) throws -> [String: DeviceLogs] {
        var logs: [String: DeviceLogs] = [:]
        let devices = "(?1 IS NULL OR device_id IN (SELECT value FROM json_each(?1)))"
        for row in try Row.fetchAll(db, sql: """
            SELECT device.name AS device_id, kind.name AS kind
            FROM (SELECT DISTINCT device_ref, kind_ref FROM event_rows INDEXED BY events_by_family WHERE \(try EventNames.familyCondition(db)))
                JOIN names device ON device.id = device_ref JOIN names kind ON kind.id = kind_ref
            WHERE ?1 IS NULL OR device.name IN (SELECT value FROM json_each(?1))
            """, arguments: [scope.devices.map { jsonText($0.sorted()) }]) {
            if let kind = EventKind(rawValue: row["kind"] as String), let family = family(of: kind) {
                logs[row["device_id"], default: DeviceLogs()][keyPath: family] = true
            }
        }
        for row in try Row.fetchAll(db, sql: "SELECT device_id, state FROM replay_checkpoints WHERE \(devices)",
                                    arguments: [scope.devices.map { jsonText($0.sorted()) }]) {
            guard let kept = (row["state"] as String?).flatMap(DeviceLogs.kept(inState:)) else { continue }
            logs[row["device_id"]] = (logs[row["device_id"]] ?? DeviceLogs()).union(kept)
        }
        return logs
    }

    /// The families a stored replay state (`replay_checkpoints.state`, JSON) knew of.
    package static func kept(inState text: String) -> DeviceLogs? {
        struct Kept: Decodable { var deviceLogs: DeviceLogs? }
        return (try? JSONDecoder().decode(Kept.self, from: Data(text.utf8)))?.deviceLogs
    }
}
