import Foundation
import GRDB
import LocAuditAudit
import LocAuditModel
import LocAuditReplay
import LocAuditStore
import PostgresNIO

/// The fleet's audit's checkpoints (`locaudit.replay_checkpoints`): for each app on each
/// device, the replay's state after its last settled session (one the app's next session
/// followed) and what the audit made of the sessions before it (`SettledApp`). The next full
/// audit copies only the lines after a checkpoint that is still good, and counts the settled
/// sessions as they were judged.
///
/// A checkpoint is still good when the same build of locaudit judges (`BuildIdentity`), no line
/// of its app on its device pushed since reaches back to it or before, no line of its device
/// pushed since belongs to a family the device's logs did not carry (`DeviceLogs`: that would
/// change what earlier sessions can show), and every settled session still has the same
/// Info.plist in force. One a prune has taken lines from is always good (its lines are gone:
/// as after a local prune, a later line reaching back before it is not replayed).
package struct CentralCheckpoints: Sendable {
    package struct Stored: Sendable {
        var deviceId: String
        var bundleId: String
        var asOf: ReplayCheckpoint.EventKey?
        var state: String?
        var settled: SettledApp
        /// `settled` as stored (JSON): a new checkpoint that only adds sessions keeps the text of these.
        var settledJSON = ""
        var lastEventID: Int64
        var rules: String
        var prunedAt: String?
    }

    /// Every stored checkpoint, by device and app (`ReplayCheckpoint.key`).
    var stored: [String: Stored] = [:]
    /// Those the audit starts from.
    var good: [String: Stored] = [:]
    /// The largest event id in the snapshot: every line the audit can see.
    var lastEventID: Int64 = 0
    /// Per device, the line families of its logs as the checkpoints knew them.
    var deviceLogs: [String: DeviceLogs] = [:]
    /// Per device and app, where the copy of its lines starts (UTC microseconds; `Int64.min`: all).
    var copyFrom: [String: (deviceId: String, bundleId: String, fromUS: Int64)] = [:]

    static let columns = "device_id, bundle_id, as_of_us, as_of_source, as_of_line, state, settled, last_event_id, rules, pruned_at"

    /// Reads the checkpoints in the snapshot and judges which are still good for an audit
    /// judging with `rules` (`CentralAudit.rulesKey`; nil: whatever judged them, as a prune
    /// asks), `plists` being every app's Info.plists.
    static func read(_ central: Central, rules: String?, plists: [String: AppVersions]) async throws -> CentralCheckpoints {
        var checkpoints = CentralCheckpoints()
        let last: [Int64] = try await central.rows("SELECT coalesce(max(id), 0) FROM locaudit.event_rows", as: Int64.self)
        checkpoints.lastEventID = last.first ?? 0
        let rows: [(String, String, Int64?, Int64?, Int64?, String?, String, Int64, String, String?)] = try await central.rows(
            PostgresQuery(unsafeSQL: "SELECT \(columns) FROM locaudit.replay_checkpoints"),
            as: (String, String, Int64?, Int64?, Int64?, String?, String, Int64, String, String?).self)
        guard !rows.isEmpty else { return checkpoints }
        for (device, bundle, asOfUS, asOfSource, asOfLine, state, settledText, lastEventID, rules, prunedAt) in rows {
            guard let settled = try? JSONDecoder().decode(SettledApp.self, from: Data(settledText.utf8)) else {
                // Written by another version: the app is read from its first line.
                checkpoints.copyFrom[ReplayCheckpoint.key(device, bundle)] = (device, bundle, .min)
                continue
            }
            var asOf: ReplayCheckpoint.EventKey?
            if let asOfUS, let asOfSource, let asOfLine {
                asOf = ReplayCheckpoint.EventKey(timeUS: asOfUS, source: asOfSource, line: Int(truncatingIfNeeded: asOfLine))
            }
            let stored = Stored(deviceId: device, bundleId: bundle, asOf: asOf, state: state, settled: settled, settledJSON: settledText,
                                lastEventID: lastEventID, rules: rules, prunedAt: prunedAt)
            checkpoints.stored[ReplayCheckpoint.key(device, bundle)] = stored
            if let logs = state.flatMap(DeviceLogs.kept(inState:)) { checkpoints.deviceLogs[device] = (checkpoints.deviceLogs[device] ?? DeviceLogs()).union(logs) }
        }
        // What was pushed since the oldest checkpoint: each app's earliest line, each device's families.
        let since = checkpoints.stored.values.map(\.lastEventID).min() ?? 0
        var earliest: [String: Int64] = [:]
        var families: [String: DeviceLogs] = [:]
        let pushed: [(String, String?, String, Int64)] = try await central.rows(PostgresQuery(unsafeSQL: """
            SELECT device_id, bundle_id, kind, min(time_us) FROM locaudit.event_rows WHERE id > \(since) GROUP BY 1, 2, 3
            """), as: (String, String?, String, Int64).self)
        for (device, bundle, kind, first) in pushed {
            if let bundle {
                let key = ReplayCheckpoint.key(device, bundle)
                earliest[key] = min(earliest[key] ?? .max, first)
                if checkpoints.stored[key] == nil { checkpoints.copyFrom[key] = (device, bundle, .min) }
            }
            if let kind = EventKind(rawValue: kind), let family = DeviceLogs.family(of: kind) {
                families[device, default: DeviceLogs()][keyPath: family] = true
            }
        }
        for (key, stored) in checkpoints.stored {
            let known = checkpoints.deviceLogs[stored.deviceId] ?? DeviceLogs()
            let good = stored.prunedAt != nil || (
                (rules == nil || stored.rules == rules)
                    && (stored.asOf.map { asOf in (earliest[key] ?? .max) > asOf.timeUS } ?? true)
                    && known.union(families[stored.deviceId] ?? DeviceLogs()) == known
                    && stored.settled.sessions.allSatisfy { $0.plist == plists[stored.bundleId]?.inForce(at: $0.startUS)?.sha256 })
            if good, stored.asOf != nil {
                checkpoints.good[key] = stored
                checkpoints.copyFrom[key] = (stored.deviceId, stored.bundleId, stored.asOf!.timeUS)
            } else {
                checkpoints.copyFrom[key] = (stored.deviceId, stored.bundleId, .min)
            }
        }
        return checkpoints
    }

    /// The lines the good checkpoints keep: their settled sessions' first and configuration
    /// lines, and those their states name.
    var settledLines: [Int64] { good.values.flatMap(\.settled.lines) }

    /// The carried part of the audit: what the good checkpoints settled.
    var carried: [String: SettledApp] { good.mapValues(\.settled) }
}
