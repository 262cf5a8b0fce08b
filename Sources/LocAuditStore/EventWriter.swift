import Foundation
import GRDB
import GRDBSQLite
import LocAuditModel
import LocAuditNormalise

/// Writes one file's events into the store, wholly or not at all.
///
/// With a budget, events are held in memory while the file is read, so that parallel jobs
/// keep using the store; a file with more than `budgetBytes` of events takes the write lock
/// when the budget is reached and writes the rest straight through (without a budget, at
/// once: writing then overlaps reading). Either way everything lands in one transaction
/// with the source row, or nothing does.
///
/// App lines name a pid and an executable, not a bundle: the writer links them as it goes
/// (the latest system line of this file naming that pid with a bundle, else an Info.plist
/// executable); what is still unlinked at the end is left to `BundleLinker`.
package final class EventWriter: ParseSink {
    private let db: Database
    /// What is known of the device; the log's own lines may add its name.
    package var device: DeviceFacts
    /// The device's id, fixed when the writer first writes.
    private(set) lazy var deviceId: String = device.id ?? "unknown"
    private let budgetBytes: Int
    private var buffer: [ParsedEvent] = []
    private var bufferedBytes = 0
    private var insert: Statement?
    private var sourceId: Int64?
    private(set) var stored = 0
    private(set) var duplicates = 0

    /// pid -> bundle, from this file's latest system line (by time) naming the pid so far;
    /// app states reach the writer up to a second late (`Transitions`), after later links.
    private var currentBundle: [Int64: (bundle: String, timeUS: Int64)] = [:]
    /// Every (pid, bundle) seen in this file with its time span, for `process_links`.
    private var linkSpans: [PidBundle: (first: Int64, last: Int64)] = [:]
    private let executables: [String: String]

    private struct PidBundle: Hashable { var pid: Int64; var bundle: String }

    static let columns = ["source_id", "device_id", "line", "time_us", "utc_offset", "process", "pid", "kind", "pattern"]
        + EventColumn.allCases.map(\.rawValue) + ["bundle_via", "message", "fingerprint"]

    /// The budget of each of several files read at once.
    package static let sharedBudgetBytes = 48 << 20

    /// A live source (`locaudit watch`): one row that grows, committed about once a second
    /// (`commit` again after more events), not reconciled with zoned exports (its commits
    /// would shift its earlier lines again).
    private let live: Bool

    /// `continuing`: a live source's row already stored (a restart), with its counts so far.
    package init(db: Database, device: DeviceFacts, budgetBytes: Int, live: Bool = false,
                 continuing: (sourceId: Int64, events: Int, duplicates: Int)? = nil) throws {
        self.db = db
        self.device = device
        self.budgetBytes = budgetBytes
        self.live = live
        if let continuing {
            (sourceId, stored, duplicates) = continuing
        }
        var executables: [String: String] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT executable, bundle_id FROM apps WHERE executable IS NOT NULL ORDER BY bundle_id DESC") {
            executables[row["executable"]] = row["bundle_id"]
        }
        self.executables = executables
    }

    // MARK: ParseSink

    package func event(_ parsed: ParsedEvent) throws {
        var e = parsed
        if let pid = e.event[.appPid].flatMap(EventWriter.integer) {
            if case .text(let bundle)? = e.event[.bundleId] {
                noteLink(pid: pid, bundle: bundle, time: e.timeUS)
                e.bundleVia = .message
            } else if let bundle = currentBundle[pid]?.bundle {
                e.event[.bundleId] = .text(bundle)
                e.bundleVia = .pid
            } else if e.event.scope == .app, let process = e.process, let bundle = executables[process] {
                e.event[.bundleId] = .text(bundle)
                e.bundleVia = .executable
            }
        } else if e.event[.bundleId] != nil {
            e.bundleVia = .message
        } else if e.event.scope == .app, e.pid == nil, let process = e.process, let bundle = executables[process] {
            // A log without pids (a Console copy): the process name is the only key.
            e.event[.bundleId] = .text(bundle)
            e.bundleVia = .executable
        }
        if sourceId != nil, db.isInsideTransaction {
            try write(e)
            return
        }
        buffer.append(e)
        bufferedBytes += e.message.utf8.count + 256
        if bufferedBytes >= budgetBytes {
            try begin()
        }
    }

    package func link(bundleId: String, pid: Int64, timeUS: Int64) throws {
        noteLink(pid: pid, bundle: bundleId, time: timeUS)
    }

    package func deviceNamed(_ name: String) throws {
        if device.name == nil { device.name = name }
    }

    private func noteLink(pid: Int64, bundle: String, time: Int64) {
        if currentBundle[pid].map({ $0.timeUS <= time }) ?? true { currentBundle[pid] = (bundle, time) }
        let key = PidBundle(pid: pid, bundle: bundle)
        if let span = linkSpans[key] {
            linkSpans[key] = (min(span.first, time), max(span.last, time))
        } else {
            linkSpans[key] = (time, time)
        }
    }

    private static func integer(_ v: ColumnValue) -> Int64? {
        if case .integer(let i) = v { return i }
        return nil
    }

    // MARK: Writing

    /// Takes the write lock, inserts the source row and the buffered events.
    /// The source row is provisional until `commit` gives it its final values.
    private func begin() throws {
        try db.beginTransaction(.immediate)
        // A live source's later transactions go on in its row.
        if sourceId == nil {
            try db.execute(sql: """
                INSERT INTO sources (path, file_sha256, content_sha256, size, content_size, gzip_members, container,
                    device_id, zone_assumed, lines_read, events, skipped, notes, ingested_at)
                VALUES ('', '', ?, 0, 0, 0, '', NULL, 0, 0, 0, '{}', '{}', '')
                """, arguments: ["pending:\(UUID().uuidString)"])
            sourceId = db.lastInsertedRowID
        }
        insert = try insert ?? db.makeStatement(sql: """
            INSERT OR IGNORE INTO events (\(EventWriter.columns.joined(separator: ", ")))
            VALUES (\(Array(repeating: "?", count: EventWriter.columns.count).joined(separator: ", ")))
            """)
        for e in buffer { try write(e) }
        buffer = []
        bufferedBytes = 0
    }

    /// Binds straight to SQLite: this runs once per event, and building GRDB's
    /// `StatementArguments` for 33 columns cost more than the insert itself.
    private func write(_ e: ParsedEvent) throws {
        let stmt = insert!.sqliteStatement
        var i: Int32 = 1
        func bind(_ value: Int64?) { if let value { sqlite3_bind_int64(stmt, i, value) } else { sqlite3_bind_null(stmt, i) }; i += 1 }
        func bind(_ value: String?) {
            if let value { sqlite3_bind_text(stmt, i, value, -1, SQLITE_TRANSIENT) } else { sqlite3_bind_null(stmt, i) }
            i += 1
        }
        bind(sourceId)
        bind(deviceId)
        bind(Int64(e.line))
        bind(e.timeUS)
        bind(e.offset.map { Int64($0) })
        bind(e.process)
        bind(e.pid)
        bind(e.event.kind.rawValue)
        bind(e.event.pattern)
        for column in EventWriter.eventColumns {
            switch e.event[column] {
            case .text(let s)?: bind(s)
            case .integer(let n)?: bind(n)
            case .real(let d)?: sqlite3_bind_double(stmt, i, d); i += 1
            case nil: sqlite3_bind_null(stmt, i); i += 1
            }
        }
        bind(e.bundleVia?.rawValue)
        bind(e.message)
        // The parser's fingerprint is the line's; stored, it is the line's on this device.
        bind(LineFingerprint.stored(e.fingerprint, device: deviceId))
        let rc = sqlite3_step(stmt)
        sqlite3_reset(stmt)
        guard rc == SQLITE_DONE else {
            throw DatabaseError(resultCode: ResultCode(rawValue: rc), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
        }
        if sqlite3_changes(db.sqliteConnection) == 1 { stored += 1 } else { duplicates += 1 }
    }

    private static let eventColumns = EventColumn.allCases

    /// Stores everything with the source row, unless the same content is already there.
    package func commit(_ given: SourceFacts, alsoWrite: (Database) throws -> Void = { _ in }) throws -> CommitOutcome {
        var facts = given
        facts.device = device
        do {
            if sourceId == nil || !db.isInsideTransaction { try begin() }
            if let existing = try String.fetchOne(db, sql: "SELECT path FROM sources WHERE content_sha256 = ? AND id != ?",
                                                  arguments: [facts.contentSHA256, sourceId]) {
                try db.rollback()
                return .alreadyIngested(path: existing)
            }
            if facts.container.isLog || facts.container == .deviceInfo { try FactsWriter.upsertDevice(deviceId, facts.device, in: db) }
            try alsoWrite(db)
            var c = facts.counts
            var zone = ZoneReconciler.Outcome()
            if facts.container.isLog, !live {
                zone = try ZoneReconciler.reconcile(source: sourceId!, path: facts.path, device: deviceId, zoneAssumed: c.zoneAssumed,
                                                    first: c.firstUS, last: c.lastUS, in: db)
                stored -= zone.duplicates
                duplicates += zone.duplicates
                if let offset = zone.offset {
                    c.zoneAssumed = false
                    c.firstUS = c.firstUS.map { $0 - Int64(offset) * 1_000_000 }
                    c.lastUS = c.lastUS.map { $0 - Int64(offset) * 1_000_000 }
                    c.notes[NoteKind.zoneFromExport.rawValue] = zone.retimed
                }
            }
            var skipped = c.skipped
            if duplicates > 0 { skipped[SkipReason.duplicate.rawValue] = duplicates }
            try db.execute(sql: """
                UPDATE sources SET path = ?, file_sha256 = ?, content_sha256 = ?, size = ?, content_size = ?, gzip_members = ?,
                    container = ?, device_id = ?, os_version = ?, zone_assumed = ?, zone_offset = ?, zone_from = ?,
                    first_time = ?, last_time = ?, lines_read = ?, events = ?, skipped = ?, notes = ?, ingested_at = ?
                WHERE id = ?
                """, arguments: [facts.path, facts.fileSHA256, facts.contentSHA256, facts.size, facts.contentSize,
                                 facts.gzipMembers, facts.container.rawValue,
                                 facts.container == .infoPlist ? nil : deviceId, facts.device.osVersion,
                                 c.zoneAssumed, zone.offset, zone.from, c.firstUS.map(Timestamps.isoUTC), c.lastUS.map(Timestamps.isoUTC),
                                 c.linesRead, stored, jsonText(skipped), jsonText(c.notes),
                                 Clock.nowISO(), sourceId])
            let upsertLink = try db.makeStatement(sql: """
                INSERT INTO process_links (device_id, pid, bundle_id, first_time_us, last_time_us) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (device_id, pid, bundle_id) DO UPDATE SET
                    first_time_us = min(first_time_us, excluded.first_time_us),
                    last_time_us = max(last_time_us, excluded.last_time_us)
                """)
            for (key, span) in linkSpans {
                try upsertLink.execute(arguments: [deviceId, key.pid, key.bundle, span.first, span.last])
            }
            if facts.container.isLog { try BundleLinker.link(deviceId: deviceId, in: db) }
            try db.commit()
            return .stored(sourceId: sourceId!, events: stored, duplicates: duplicates, counts: c, zone: zone)
        } catch {
            if db.isInsideTransaction { try? db.rollback() }
            throw error
        }
    }

    /// Gives up: nothing of the file stays.
    package func abandon() {
        if db.isInsideTransaction { try? db.rollback() }
    }
}

/// SQLite's "copy the value now" destructor, a C macro Swift cannot import.
private let SQLITE_TRANSIENT = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
