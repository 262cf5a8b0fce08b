import Foundation
import GRDB
import LocAuditModel
import LocAuditNormalise
import LocAuditRead

/// Everything an audit reads from the store.
package struct AuditInput {
    package var events: [AppEvent]
    /// source id -> (path, iOS version)
    package var sources: [Int64: (path: String, version: IOSVersion?)]
    /// bundle id -> every Info.plist of the app
    var apps: [String: AppVersions]
    /// device and app -> what a prune kept of their replay
    var checkpoints: [String: ReplayCheckpoint] = [:]
    /// device id -> the line families its logs carry at all
    var deviceLogs: [String: DeviceLogs] = [:]
    /// device id -> logs whose times were read as UTC for want of a zone
    var zoneAssumed: [String: Int] = [:]
    /// device id -> "OFFSET, the offset of PATH" -> zone-less logs that took the offset of that zoned export
    var zoneTaken: [String: [String: Int]] = [:]
    /// event id -> (source id, line), for the events findings cite (filled by `locate`)
    package var locations: [Int64: (source: Int64, line: Int)] = [:]

    package static func load(_ db: Database, scope: EventScope, progress: ProgressBar? = nil) throws -> AuditInput {
        var sources: [Int64: (String, IOSVersion?)] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT id, path, os_version FROM sources") {
            sources[row["id"]] = (row["path"], IOSVersion(row["os_version"] as String?))
        }
        var input = AuditInput(events: try scope.load(db, progress: progress), sources: sources, apps: try AppVersions.load(db))
        input.checkpoints = try ReplayCheckpoint.load(db, scope: scope)
        input.deviceLogs = try DeviceLogs.load(db, scope: scope)
        for row in try Row.fetchAll(db, sql: """
            SELECT device_id, zone_assumed, zone_offset, zone_from FROM sources
            WHERE device_id IS NOT NULL AND (zone_assumed = 1 OR zone_from IS NOT NULL) ORDER BY id
            """) {
            if row["zone_assumed"] as Bool {
                input.zoneAssumed[row["device_id"], default: 0] += 1
            } else if let offset = row["zone_offset"] as Int32?, let from = row["zone_from"] as String? {
                input.zoneTaken[row["device_id"], default: [:]]["\(ZoneReconciler.text(offset: offset)), the offset of \(from)", default: 0] += 1
            }
        }
        return input
    }

    /// What the reports say of the devices whose times were not read in their own zone.
    package func timeZoneNotes(of devices: Set<String>) -> [String: String]? {
        var notes: [String: String] = [:]
        for device in devices {
            var parts: [String] = []
            if let logs = zoneAssumed[device] {
                parts.append("times assumed UTC: \(logs == 1 ? "1 log has" : "\(logs) logs have") no time zone "
                    + "(ingest with --tz, or add TimeZone to the device's ideviceinfo)")
            }
            for (taken, logs) in (zoneTaken[device] ?? [:]).sorted(by: { $0.key < $1.key }) {
                parts.append("times of \(logs == 1 ? "1 log" : "\(logs) logs") without a zone read at \(taken) "
                    + "(an export of the same device and period)")
            }
            if !parts.isEmpty { notes[device] = parts.joined(separator: "; ") }
        }
        return notes.isEmpty ? nil : notes
    }

    /// The file and line of every event the findings cite, from the events in memory (a
    /// finding cites only events of the sessions replayed from them).
    package mutating func locate(_ ids: Set<Int64>) {
        for event in events where ids.contains(event.id) { locations[event.id] = (event.sourceId, event.line) }
    }

    /// Sessions of each app on each device, replayed (events are sorted by device, app, time).
    /// Where a prune left a checkpoint, the replay starts from it with the lines after it.
    package func timelines() -> [[ReplayedSession]] {
        let versions = sources.compactMapValues(\.version)
        var timelines: [[ReplayedSession]] = []
        var start = events.startIndex
        while start < events.endIndex {
            var end = start
            while end < events.endIndex, events[end].deviceId == events[start].deviceId,
                  events[end].bundleId == events[start].bundleId { end += 1 }
            var lines = events[start..<end]
            var known = ReplayState()
            if let checkpoint = checkpoints[ReplayCheckpoint.key(events[start].deviceId, events[start].bundleId)] {
                lines = lines.drop { ReplayCheckpoint.EventKey($0) <= checkpoint.asOf }
                known = checkpoint.state
            }
            if !lines.isEmpty {
                let sessions = SessionBuilder.sessions(of: lines, versions: versions)
                timelines.append(Replayer.replay(sessions, plists: apps[events[start].bundleId] ?? AppVersions(), from: known,
                                                 deviceLogs: deviceLogs[events[start].deviceId] ?? DeviceLogs()))
            }
            start = end
        }
        return timelines
    }
}

extension Store {
    /// Everything an audit of `scope` reads, in one read transaction.
    package func auditInput(scope: EventScope, progress: ProgressBar? = nil) throws -> AuditInput {
        try connect().read { try AuditInput.load($0, scope: scope, progress: progress) }
    }
}
