import Foundation
import GRDB

/// What the replay of one app on one device knew where `prune` cut its lines: the state
/// after the last session that lost lines, and that session's last line. The replay of the
/// data after it starts from this state, so findings on later data are the same before and
/// after a prune; the lines at or before it (and their sessions and findings) are not
/// replayed again.
struct ReplayCheckpoint {
    var deviceId: String
    var bundleId: String
    /// The last line replayed into the state, in the replay's order (time, source, line).
    var asOf: EventKey
    var state: ReplayState

    /// Events in the replay's order: time, then file, then line.
    struct EventKey: Comparable {
        var timeUS: Int64
        var source: Int64
        var line: Int
        init(_ e: AppEvent) { (timeUS, source, line) = (e.timeUS, e.sourceId, e.line) }
        init(timeUS: Int64, source: Int64, line: Int) { (self.timeUS, self.source, self.line) = (timeUS, source, line) }
        static func < (a: EventKey, b: EventKey) -> Bool { (a.timeUS, a.source, a.line) < (b.timeUS, b.source, b.line) }
    }

    /// The checkpoints of the devices and apps in scope, by device and app.
    static func load(_ db: Database, scope: EventScope) throws -> [String: ReplayCheckpoint] {
        var checkpoints: [String: ReplayCheckpoint] = [:]
        for row in try Row.fetchAll(db, sql: """
            SELECT device_id, bundle_id, as_of_us, as_of_source, as_of_line, state FROM replay_checkpoints WHERE \(EventScope.condition)
            """, arguments: scope.arguments) {
            var state = try decode(row[5], device: row[0], bundle: row[1])
            // Lines of the app were replayed into it: an install after it is no first install.
            state.appSeen = true
            let checkpoint = ReplayCheckpoint(deviceId: row[0], bundleId: row[1],
                                              asOf: EventKey(timeUS: row[2], source: row[3], line: row[4]), state: state)
            checkpoints[key(checkpoint.deviceId, checkpoint.bundleId)] = checkpoint
        }
        return checkpoints
    }

    static func key(_ device: String, _ bundle: String) -> String { device + "\u{0}" + bundle }

    func save(in db: Database) throws {
        try db.execute(sql: """
            INSERT OR REPLACE INTO replay_checkpoints (device_id, bundle_id, as_of_us, as_of_source, as_of_line, state, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """, arguments: [deviceId, bundleId, asOf.timeUS, asOf.source, asOf.line, jsonText(state), Clock.nowISO()])
    }

    /// The state as stored, through `Codable` as a whole. A field the stored state lacks (a
    /// checkpoint written before the field existed, or an optional one that was nil) takes its
    /// value in a new `ReplayState`: nil for every optional field, so unknown stays unknown.
    static func decode(_ text: String, device: String, bundle: String) throws -> ReplayState {
        do {
            let defaults = try JSONSerialization.jsonObject(with: JSONEncoder().encode(ReplayState())) as? [String: Any] ?? [:]
            let stored = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] ?? [:]
            let merged = try JSONSerialization.data(withJSONObject: defaults.merging(stored) { $1 })
            return try JSONDecoder().decode(ReplayState.self, from: merged)
        } catch {
            throw AuditError.unreadableCheckpoint(device: device, bundle: bundle)
        }
    }
}
