import Foundation
#if canImport(Glibc)
import Glibc
#endif
import GRDB
import LocAuditModel
import LocAuditReplay
import LocAuditNormalise
import LocAuditRead

/// Everything an audit reads from the store: what it needs of the whole store at once, and
/// the events, streamed one app on one device at a time (`replay`).
package struct AuditInput {
    let db: Database
    let scope: EventScope
    /// The events replayed so far.
    package private(set) var events = 0
    /// source id -> (path, iOS version)
    package var sources: [Int64: (path: String, version: IOSVersion?)]
    /// bundle id -> every Info.plist of the app
    var apps: [String: AppVersions]
    /// device and app -> what a prune kept of their replay (or a watch, of the sessions it
    /// has replayed already): the replay starts after it
    package var checkpoints: [String: ReplayCheckpoint] = [:]
    /// device id -> the line families its logs carry at all
    package var deviceLogs: [String: DeviceLogs] = [:]
    /// device id -> logs whose times were read as UTC for want of a zone
    var zoneAssumed: [String: Int] = [:]
    /// device id -> "OFFSET, the offset of PATH" -> zone-less logs that took the offset of that zoned export
    var zoneTaken: [String: [String: Int]] = [:]
    /// event id -> (source id, line), for the events findings cite (filled by `locate`)
    package var locations: [Int64: (source: Int64, line: Int)] = [:]

    package static func load(_ db: Database, scope: EventScope) throws -> AuditInput {
        var sources: [Int64: (String, IOSVersion?)] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT id, path, os_version FROM sources") {
            sources[row["id"]] = (row["path"], IOSVersion(row["os_version"] as String?))
        }
        var input = AuditInput(db: db, scope: scope, sources: sources, apps: try AppVersions.load(db))
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

    /// The stored findings with these fingerprints (those of the sessions an earlier run settled).
    package func storedFindings(_ fingerprints: [String]) throws -> [Finding] {
        guard !fingerprints.isEmpty else { return [] }
        return try Row.fetchAll(db, sql: """
            SELECT fingerprint, rule, severity, device_id, bundle_id, pid, session_start, time, message, evidence, time_us, os_version
            FROM findings WHERE fingerprint IN (SELECT value FROM json_each(?))
            """, arguments: [jsonText(fingerprints)]).map(Finding.init(row:))
    }

    /// The file and line of every event the findings cite.
    package mutating func locate(_ ids: Set<Int64>) throws {
        for row in try Row.fetchAll(db, sql: "SELECT id, source_id, line FROM event_rows WHERE id IN (SELECT value FROM json_each(?))",
                                    arguments: [jsonText(ids.sorted())]) {
            locations[row["id"]] = (row["source_id"], row["line"])
        }
    }

    /// Replays the sessions of each app on each device in scope, in device and app order,
    /// handing each app's to `body` (in time order): only one app's events are read at a time.
    /// Where a prune left a checkpoint, the replay starts from it with the lines after it.
    /// `progress` counts the apps (on devices) audited of those in scope, known ahead so that
    /// its share is a true share of the audit, with the sessions checked so far (`sessions`
    /// says how many `body` has checked).
    package mutating func replay(graceUS: Int64 = 10_000_000, progress: ProgressBar? = nil, sessions: (() -> Int)? = nil,
                                 _ body: ([ReplayedSession]) throws -> Void) throws {
        try replayApps(graceUS: graceUS, progress: progress, sessions: sessions) { app in
            var replayer = app.replayer
            let timeline = app.sessions.map { replayer.next($0) }
            if !timeline.isEmpty { try body(timeline) }
        }
    }

    /// One app on one device as `replayApps` hands it over.
    package struct AppReplay {
        package var deviceId: String
        package var bundleId: String
        /// Where the replay started (nil: at the app's first line).
        package var checkpoint: ReplayCheckpoint?
        /// The events read, in time order: from the checkpoint's second on, the lines at or
        /// before it (dropped by the replay) among them.
        package var events: [AppEvent]
        /// Its sessions after the checkpoint (none when it has no line after it), not replayed yet.
        package var sessions: [Session]
        /// What replays them, in order (`Replayer.next`): one at a time, so that the audit holds
        /// one session's steps and states at once, not every session's of the app.
        package var replayer: Replayer
        /// Its Info.plists.
        package var plists: AppVersions
        /// The lines `replayApps`' `lines` asked for, by id.
        package var lines: [Int64: AppEvent]
    }

    /// `replay`, with every app in scope handed over, each with where its replay started and
    /// the events read, even when it has no line after its checkpoint, and the lines of it
    /// `lines` asks for by id (device, app -> ids).
    package mutating func replayApps(graceUS: Int64 = 10_000_000, progress: ProgressBar? = nil, sessions: (() -> Int)? = nil,
                                     lines wanted: ((String, String) -> [Int64])? = nil,
                                     _ body: (AppReplay) throws -> Void) throws {
        let versions = sources.compactMapValues(\.version)
        var strings = StringTable()
        var read = 0
        let kinds = try EventScope.kinds(db)
        let groups = try scope.groups(db)
        progress?.start("auditing", total: groups.count, unit: "apps")
        for (done, group) in groups.enumerated() {
            defer { progress?.advance(to: done + 1, detail: "\(ProgressBar.grouped(Int64(sessions?() ?? 0))) sessions") }
            let appEvents = try replayApp(group, graceUS: graceUS, versions: versions, kinds: kinds, strings: &strings, read: &read,
                                          wanted: wanted, body)
            // The app's events, sessions and steps are free now, but the heap keeps its
            // high-water mark: after a large app, that memory goes back to the system, so that
            // what the run keeps of every app does not come on top of it.
            if appEvents >= FreedMemory.worthGivingBack { FreedMemory.giveBack() }
        }
    }

    /// One app on one device of `replayApps`; returns the events it read.
    private mutating func replayApp(_ group: EventGroup, graceUS: Int64, versions: [Int64: IOSVersion], kinds: [EventKind?],
                                    strings: inout StringTable, read: inout Int, wanted: ((String, String) -> [Int64])?,
                                    _ body: (AppReplay) throws -> Void) throws -> Int {
        let (deviceId, bundleId) = (group.deviceId, group.bundleId)
        let checkpoint = checkpoints[ReplayCheckpoint.key(deviceId, bundleId)]
        let events = try EventScope.load(db, group: group, from: checkpoint?.asOf.timeUS, kinds: kinds, strings: &strings,
                                         read: &read)
        self.events += events.count
        var lines = events[...]
        var known = ReplayState()
        if let checkpoint {
            lines = lines.drop { ReplayCheckpoint.EventKey($0) <= checkpoint.asOf }
            known = checkpoint.state
        }
        let sessions = lines.isEmpty ? [] : SessionBuilder.sessions(of: lines, versions: versions)
        let replayer = Replayer(plists: apps[bundleId] ?? AppVersions(), from: known,
                                deviceLogs: deviceLogs[deviceId] ?? DeviceLogs(), graceUS: graceUS)
        let ids = wanted?(deviceId, bundleId) ?? []
        let asked = ids.isEmpty ? [:] : try EventScope.load(db, ids: ids, group: group, kinds: kinds, strings: &strings)
        try body(AppReplay(deviceId: deviceId, bundleId: bundleId, checkpoint: checkpoint, events: events, sessions: sessions,
                           replayer: replayer, plists: apps[bundleId] ?? AppVersions(), lines: asked))
        return events.count
    }

    /// Every app's sessions on every device, replayed (`replay`, all held at once).
    package mutating func timelines() throws -> [[ReplayedSession]] {
        var timelines: [[ReplayedSession]] = []
        try replay { timelines.append($0) }
        return timelines
    }
}

extension Store {
    /// Everything an audit of `scope` reads, handed to `body` in one read transaction.
    package func readAudit<T>(scope: EventScope, _ body: (inout AuditInput) throws -> T) throws -> T {
        try connect().read { db in
            // Every page is read once, in order of the index: SQLite's own cache (sized for an
            // ingest's writes) would only hold pages read already, the system's holds them too.
            try db.execute(sql: "PRAGMA cache_size = -2048")
            var input = try AuditInput.load(db, scope: scope)
            return try body(&input)
        }
    }
}

/// Memory `malloc` holds free, given back to the system.
package enum FreedMemory {
    /// An app's events from which its replay's memory is worth giving back (7 MB of event
    /// objects alone): a call walks the heap, so not after every small app of a fleet.
    static let worthGivingBack = 1 << 16

    /// glibc's `malloc_trim(0)` (looked up: Swift's Glibc module does not declare it);
    /// nothing where there is none.
    package static func giveBack() {
        #if os(Linux)
        guard let trim = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        _ = unsafeBitCast(trim, to: (@convention(c) (Int) -> Int32).self)(0)
        #endif
    }
}
