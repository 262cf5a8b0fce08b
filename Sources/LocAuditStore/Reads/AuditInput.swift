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
            var timeline: [ReplayedSession] = []
            while let session = try app.sessions.next() { timeline.append(replayer.next(session)) }
            if !timeline.isEmpty { try body(timeline) }
        }
    }

    /// One app on one device as `replayApps` hands it over.
    package struct AppReplay {
        package var deviceId: String
        package var bundleId: String
        /// Where the replay started (nil: at the app's first line).
        package var checkpoint: ReplayCheckpoint?
        /// Its sessions after the checkpoint (none when it has no line after it), not replayed
        /// yet, each as soon as it is over: read as they are taken (`AppSessions.next`), so that
        /// the app's events are not all held at once.
        package var sessions: AppSessions
        /// What replays them, in order (`Replayer.next`): one at a time, so that the audit holds
        /// one session's steps and states at once, not every session's of the app.
        package var replayer: Replayer
        /// Its Info.plists.
        package var plists: AppVersions
        /// The lines `replayApps`' `lines` asked for, by id.
        package var lines: [Int64: AppEvent]
    }

    /// `replay`, with every app in scope handed over, each with where its replay started and
    /// its sessions, even when it has no line after its checkpoint, and the lines of it
    /// `lines` asks for by id (device, app -> ids). `eventTimes`: each app's `sessions` keeps
    /// the time of every event it reads (`AppSessions.events(before:)`).
    package mutating func replayApps(graceUS: Int64 = 10_000_000, progress: ProgressBar? = nil, sessions: (() -> Int)? = nil,
                                     lines wanted: ((String, String) -> [Int64])? = nil, eventTimes: Bool = false,
                                     _ body: (AppReplay) throws -> Void) throws {
        let versions = sources.compactMapValues(\.version)
        var strings = StringTable()
        let kinds = try EventScope.kinds(db)
        let groups = try scope.groups(db)
        // Every pid's last line: of every app in one scan for the whole store, else app by app.
        var lastLines = scope.devices == nil && scope.bundleIds == nil ? try EventScope.lastLines(db) : nil
        progress?.start("auditing", total: groups.count, unit: "apps")
        for (done, group) in groups.enumerated() {
            defer { progress?.advance(to: done + 1, detail: "\(ProgressBar.grouped(Int64(sessions?() ?? 0))) sessions") }
            var last: [Int64: Int64]?
            if lastLines != nil { last = lastLines?.removeValue(forKey: group.key) ?? [:] }
            let appEvents = try replayApp(group, graceUS: graceUS, versions: versions, kinds: kinds, strings: &strings,
                                          lastLines: last, wanted: wanted, eventTimes: eventTimes, body)
            // The app's events, sessions and steps are free now, but the heap keeps its
            // high-water mark: after a large app, that memory goes back to the system, so that
            // what the run keeps of every app does not come on top of it.
            if appEvents >= FreedMemory.worthGivingBack { FreedMemory.giveBack() }
        }
    }

    /// One app on one device of `replayApps`; returns the events it read.
    private mutating func replayApp(_ group: EventGroup, graceUS: Int64, versions: [Int64: IOSVersion], kinds: [EventKind?],
                                    strings: inout StringTable, lastLines: [Int64: Int64]?, wanted: ((String, String) -> [Int64])?,
                                    eventTimes: Bool, _ body: (AppReplay) throws -> Void) throws -> Int {
        let (deviceId, bundleId) = (group.deviceId, group.bundleId)
        let checkpoint = checkpoints[ReplayCheckpoint.key(deviceId, bundleId)]
        let ids = wanted?(deviceId, bundleId) ?? []
        let asked = ids.isEmpty ? [:] : try EventScope.load(db, ids: ids, group: group, kinds: kinds, strings: &strings)
        let from = checkpoint?.asOf.timeUS
        let builder = SessionBuilder(versions: versions, lastLines: try lastLines ?? EventScope.lastLines(db, group: group, from: from))
        let sessions = AppSessions(try EventScope.cursor(db, group: group, from: from, kinds: kinds), builder: builder,
                                   after: checkpoint?.asOf, strings: strings, eventTimes: eventTimes)
        strings = StringTable()
        defer {
            sessions.close()
            strings = sessions.strings
        }
        let replayer = Replayer(plists: apps[bundleId] ?? AppVersions(), from: checkpoint?.state ?? ReplayState(),
                                deviceLogs: deviceLogs[deviceId] ?? DeviceLogs(), graceUS: graceUS)
        try body(AppReplay(deviceId: deviceId, bundleId: bundleId, checkpoint: checkpoint, sessions: sessions,
                           replayer: replayer, plists: apps[bundleId] ?? AppVersions(), lines: asked))
        // What `body` left unread is read all the same: counted as read.
        while try sessions.next() != nil {}
        self.events += sessions.events
        return sessions.events
    }

    /// Every app's sessions on every device, replayed (`replay`, all held at once).
    package mutating func timelines() throws -> [[ReplayedSession]] {
        var timelines: [[ReplayedSession]] = []
        try replay { timelines.append($0) }
        return timelines
    }
}

/// One app's sessions on one device, cut as its events are read (`next`): an event is held
/// only until its session is over (`SessionBuilder`), not until the app's last line.
///
/// The events are read on a thread of their own (SQLite's steps and the event objects, about
/// half of an audit's work) a batch at a time, while the caller's thread cuts and replays the
/// sessions: an audit uses two cores (docs/performance.md, "Audit on two cores"). The store's
/// connection is the reader's until the last event is taken or `close` returns.
package final class AppSessions {
    /// The reader's cursor and names, the reader's alone until it is done.
    private final class Reading: @unchecked Sendable {
        var cursor: EventCursor
        var strings: StringTable
        init(_ cursor: EventCursor, _ strings: StringTable) { (self.cursor, self.strings) = (cursor, strings) }
    }
    /// Events read, in order, handed over together.
    private struct Batch: Sendable {
        var events: [AppEvent]
    }
    /// Events a batch: few enough that the first session starts at once, enough that handing over costs nothing.
    private static let batchSize = 1024
    private let reading: Reading
    private let handoff: Handoff<Batch>
    private var batch: [AppEvent] = []
    private var taken = 0
    private var builder: SessionBuilder
    /// The names the reader interned, once it is done.
    fileprivate var strings: StringTable { reading.strings }
    /// The lines at or before a checkpoint's are read (and counted) but not replayed.
    private var after: ReplayCheckpoint.EventKey?
    /// Events of one time, read but not added yet: the index gives them in time order, the
    /// builder takes equal times in file order.
    private var sameTime: [AppEvent] = []
    /// Sessions over, not taken yet, the next one last.
    private var over: [Session] = []
    private var read = false
    /// The events read (of known kinds), those before the checkpoint's among them.
    package private(set) var events = 0
    /// The time of each event read, when asked (`events(before:)`).
    private var times: [Int64]?

    init(_ cursor: EventCursor, builder: SessionBuilder, after: ReplayCheckpoint.EventKey?, strings: StringTable, eventTimes: Bool) {
        (self.builder, self.after) = (builder, after)
        times = eventTimes ? [] : nil
        let reading = Reading(cursor, strings)
        self.reading = reading
        handoff = Handoff.producing("locaudit-audit-read", capacity: 4) { handoff in
            var events: [AppEvent] = []
            events.reserveCapacity(AppSessions.batchSize)
            while let event = try reading.cursor.next(strings: &reading.strings) {
                events.append(event)
                guard events.count == AppSessions.batchSize else { continue }
                try handoff.put(Batch(events: events))
                events.removeAll(keepingCapacity: true)
            }
            if !events.isEmpty { try handoff.put(Batch(events: events)) }
        }
    }

    /// The next session, in time order; nil after the last.
    package func next() throws -> Session? {
        while over.isEmpty {
            if read { return nil }
            try step()
            over.reverse()
        }
        return over.popLast()
    }

    /// The events read with a time before `timeUS` (with `eventTimes`).
    package func events(before timeUS: Int64) -> Int {
        times?.lazy.filter { $0 < timeUS }.count ?? 0
    }

    /// Reads one event (or the end), adding those of the time before it to the sessions.
    private func step() throws {
        guard let event = try nextEvent() else {
            add(sameTime)
            sameTime = []
            over += builder.finish()
            read = true
            return
        }
        events += 1
        times?.append(event.timeUS)
        if let first = sameTime.first, first.timeUS != event.timeUS {
            add(sameTime)
            sameTime.removeAll(keepingCapacity: true)
            while let session = builder.take(nowUS: event.timeUS) { over.append(session) }
        }
        sameTime.append(event)
    }

    /// Adds the events of one time (in file order) to the sessions.
    private func add(_ events: [AppEvent]) {
        func inOrder(_ a: AppEvent, _ b: AppEvent) -> Bool { (a.sourceId, a.line) < (b.sourceId, b.line) }
        let sorted = zip(events, events.dropFirst()).allSatisfy { !inOrder($1, $0) }
        for event in sorted ? events : events.sorted(by: inOrder) {
            if let key = after {
                if ReplayCheckpoint.EventKey(event) <= key { continue }
                after = nil
            }
            builder.add(event)
        }
    }

    /// The next event the reader read; nil after the last.
    private func nextEvent() throws -> AppEvent? {
        if taken == batch.count {
            guard let next = try handoff.take() else { return nil }
            (batch, taken) = (next.events, 0)
        }
        taken += 1
        return batch[taken - 1]
    }

    /// Stops the reader and lets the statements go (read to their end or not).
    func close() {
        handoff.cancelAndWait()
        reading.cursor.close()
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
