import Foundation
import GRDB
import LocAuditModel
import LocAuditReplay
import LocAuditRules

// A prune's checkpoints (`replay_checkpoints`): read for the replay, written by prune.

extension ReplayCheckpoint {
    /// The checkpoints of the devices and apps in scope, by device and app.
    static func load(_ db: Database, scope: EventScope) throws -> [String: ReplayCheckpoint] {
        var checkpoints: [String: ReplayCheckpoint] = [:]
        for stored in try StoredCheckpoint.fetchAll(db, sql: """
            SELECT device_id, bundle_id, as_of_us, as_of_source, as_of_line, state FROM replay_checkpoints WHERE \(EventScope.condition)
            """, arguments: scope.arguments) {
            var state = try decode(stored.state, device: stored.deviceId, bundle: stored.bundleId)
            // Lines of the app were replayed into it: an install after it is no first install.
            state.appSeen = true
            let checkpoint = ReplayCheckpoint(deviceId: stored.deviceId, bundleId: stored.bundleId,
                                              asOf: EventKey(timeUS: stored.asOfUS, source: stored.asOfSource, line: stored.asOfLine), state: state)
            checkpoints[key(checkpoint.deviceId, checkpoint.bundleId)] = checkpoint
        }
        return checkpoints
    }

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

/// A row of `replay_checkpoints`, its state still JSON text.
struct StoredCheckpoint: Decodable, FetchableRecord {
    var deviceId, bundleId: String
    /// The last line replayed into the state: its time, file and line.
    var asOfUS, asOfSource: Int64
    var asOfLine: Int
    var state: String

    enum CodingKeys: String, CodingKey {
        case deviceId = "device_id", bundleId = "bundle_id", asOfUS = "as_of_us", asOfSource = "as_of_source", asOfLine = "as_of_line", state
    }
}
