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
    /// The same insert of `rowsAtOnce` rows, and the events waiting for it (`flushRows`).
    private var insertRows: Statement?
    private var waiting: [ParsedEvent] = []
    /// Rows inserted by one statement: SQLite runs a statement's set-up at each execution
    /// (its transaction bookkeeping, opening the table's and indexes' cursors), once for
    /// these rows rather than for each.
    static let rowsAtOnce = 32
    /// Made when the write lock is taken: what they cache is good for this transaction.
    private var names: EventNames?
    private var deviceRef: Int64?
    /// The last name written in each role (process, kind, pattern, bundle, via) with its id.
    private var recent = EventWriter.noRecent
    private static let noRecent = [(name: String, id: Int64)](repeating: ("", -1), count: 5)
    private var messages: MessageWriter?
    private var sourceId: Int64?
    private(set) var stored = 0
    private(set) var duplicates = 0

    /// pid -> bundle, from this file's latest system line (by time) naming the pid so far;
    /// app states reach the writer up to a second late (`Transitions`), after later links.
    private var currentBundle: [Int64: (bundle: String, timeUS: Int64)] = [:]
    /// Every (pid, bundle) seen in this file with its time span, for `process_links`, until
    /// written there (`writeLinks`).
    private var linkSpans: [PidBundle: (first: Int64, last: Int64)] = [:]
    private let executables: [String: String]

    private struct PidBundle: Hashable { var pid: Int64; var bundle: String }

    /// The `event_rows` columns `write` binds, in order (ids into `names` for the texts every
    /// row repeats).
    static let columns: [String] = (["source_id", "device_id", "line", "time_us", "utc_offset", "process", "pid", "kind", "pattern"]
        .map(EventFields.named) + eventColumns.map(EventFields.filled) + ["bundle_via", "fingerprint"].map(EventFields.named))
        .compactMap(\.rowColumn)

    /// The budget of each of several files read at once.
    package static let sharedBudgetBytes = 16 << 20

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
        if live, continuing != nil { holdLiveSource() }
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
            if !live, linkSpans.count >= EventWriter.linksHeld { try writeLinks() }
            return
        }
        buffer.append(e)
        bufferedBytes += EventWriter.footprint(e)
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

    /// The links of this file (`linkSpans`) written into `process_links` before the end of the
    /// file once there are this many, inside its transaction, so that an export naming tens
    /// of thousands of processes does not hold them all (docs/performance.md, "Ingest memory"):
    /// the upsert keeps each link's earliest and latest time, so the rows end the same.
    package static let linksHeld = 4096

    /// Writes the links noted so far (a live source writes them all at each commit).
    private func writeLinks() throws {
        let upsert = try db.cachedStatement(sql: """
            INSERT INTO process_links (device_id, pid, bundle_id, first_time_us, last_time_us) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (device_id, pid, bundle_id) DO UPDATE SET
                first_time_us = min(first_time_us, excluded.first_time_us),
                last_time_us = max(last_time_us, excluded.last_time_us)
            """)
        for (key, span) in linkSpans {
            try upsert.execute(arguments: [deviceId, key.pid, key.bundle, span.first, span.last])
        }
        if !live { linkSpans.removeAll(keepingCapacity: true) }
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

    /// What a buffered event holds in memory, as malloc hands it out: its slot in the
    /// buffer (with the slack of a growing array), its message and column storage, and each
    /// text too long to sit inline in its `String`, with a block header for every allocation.
    static func footprint(_ e: ParsedEvent) -> Int {
        func heap(_ bytes: Int) -> Int { (bytes + 16 + 15) & ~15 }
        func text(_ s: String?) -> Int { s.map { $0.utf8.count > 15 ? heap(32 + $0.utf8.count) : 0 } ?? 0 }
        var bytes = MemoryLayout<ParsedEvent>.stride * 2 + text(e.message) + text(e.process)
        bytes += heap(32 + e.event.columns.count * MemoryLayout<(EventColumn, ColumnValue)>.stride)
        for (_, value) in e.event.columns { if case .text(let s) = value { bytes += text(s) } }
        return bytes
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
            if live { holdLiveSource() }
        }
        // What the caches hold is good for this transaction only.
        names = try EventNames(db)
        messages = try MessageWriter(db)
        deviceRef = nil
        recent = EventWriter.noRecent
        insert = try insert ?? db.makeStatement(sql: EventWriter.insertSQL(rows: 1))
        insertRows = try insertRows ?? db.makeStatement(sql: EventWriter.insertSQL(rows: EventWriter.rowsAtOnce))
        for e in buffer { try write(e) }
        buffer = []
        bufferedBytes = 0
    }

    /// A live source is this watch's until the process ends: `prune` leaves it
    /// (`LiveSourceLock`). Taken inside the transaction that creates the row.
    private func holdLiveSource() {
        guard let sourceId, let file = sqlite3_db_filename(db.sqliteConnection, "main"), file.pointee != 0 else { return }
        LiveSourceLock.hold(source: sourceId, database: String(cString: file))
    }

    /// The insert of `rows` events.
    static func insertSQL(rows: Int) -> String {
        let row = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
        return "INSERT OR IGNORE INTO event_rows (\(columns.joined(separator: ", "))) VALUES "
            + Array(repeating: row, count: rows).joined(separator: ", ")
    }

    /// An event to insert: it waits for `rowsAtOnce - 1` more (`flushRows`).
    private func write(_ e: ParsedEvent) throws {
        waiting.append(e)
        if waiting.count >= EventWriter.rowsAtOnce { try flushRows() }
    }

    /// Inserts the events waiting, with their messages, in their order: ids, names and
    /// formats are given as one insert at a time gave them. A full set goes in one statement;
    /// the last few one at a time. Runs before anything reads the rows (`commit`).
    private func flushRows() throws {
        guard !waiting.isEmpty else { return }
        let rows = waiting
        waiting.removeAll(keepingCapacity: true)
        guard rows.count == EventWriter.rowsAtOnce, let statement = insertRows else {
            for e in rows { try writeOne(e) }
            return
        }
        let stmt = statement.sqliteStatement
        var i: Int32 = 1
        sqlite3_clear_bindings(stmt)
        for e in rows { try bind(e, to: stmt, from: &i) }
        let rc = sqlite3_step(stmt)
        sqlite3_reset(stmt)
        guard rc == SQLITE_DONE else { throw EventWriter.error(rc, db) }
        let inserted = Int(sqlite3_changes(db.sqliteConnection))
        // The rows inserted got consecutive ids (each the largest so far plus one), the
        // last one's known; a row ignored (a line already stored) took none.
        let last = sqlite3_last_insert_rowid(db.sqliteConnection)
        var ids: [Int64?]
        if inserted == rows.count {
            ids = (0..<rows.count).map { last - Int64(rows.count - 1 - $0) }
        } else if inserted == 0 {
            ids = Array(repeating: nil, count: rows.count)
        } else {
            ids = try insertedIds(rows, count: inserted, last: last)
        }
        for (e, id) in zip(rows, ids) {
            if let id {
                stored += 1
                try messages!.write(id: id, message: e.message)
            } else {
                duplicates += 1
            }
        }
    }

    /// Which of `rows` the last insert stored (`count` of them, ids up to `last`): the rows
    /// with those ids, matched in order by time and fingerprint. A row ignored has the key
    /// (second, fingerprint) of a row stored before it, so no row stored after it has that
    /// key: the match is exact.
    private func insertedIds(_ rows: [ParsedEvent], count: Int, last: Int64) throws -> [Int64?] {
        let stored = try Row.fetchAll(db, sql: "SELECT id, time_us, fingerprint FROM event_rows WHERE id > ? AND id <= ? ORDER BY id",
                                      arguments: [last - Int64(count), last])
        var ids: [Int64?] = []
        var next = 0
        for e in rows {
            if next < stored.count, stored[next]["time_us"] as Int64 == e.timeUS,
               stored[next]["fingerprint"] as Int64 == LineFingerprint.stored(e.fingerprint, device: deviceId) {
                ids.append(stored[next]["id"] as Int64)
                next += 1
            } else {
                ids.append(nil)
            }
        }
        guard next == stored.count else {
            throw DatabaseError(resultCode: .SQLITE_INTERNAL, message: "\(stored.count) events inserted, \(next) of them matched")
        }
        return ids
    }

    /// One event, in a statement of its own.
    private func writeOne(_ e: ParsedEvent) throws {
        let stmt = insert!.sqliteStatement
        var i: Int32 = 1
        sqlite3_clear_bindings(stmt)
        try bind(e, to: stmt, from: &i)
        let rc = sqlite3_step(stmt)
        sqlite3_reset(stmt)
        guard rc == SQLITE_DONE else { throw EventWriter.error(rc, db) }
        if sqlite3_changes(db.sqliteConnection) == 1 {
            stored += 1
            try messages!.write(id: sqlite3_last_insert_rowid(db.sqliteConnection), message: e.message)
        } else {
            duplicates += 1
        }
    }

    /// Binds an event's columns from parameter `i` on, straight to SQLite: this runs once
    /// per event, and building GRDB's `StatementArguments` for 33 columns cost more than the
    /// insert itself. A column without a value is left unbound: the caller cleared every
    /// binding to NULL before (`sqlite3_clear_bindings`, one call, where a `sqlite3_bind_null`
    /// for each of the 20 or so empty columns of an event cost 1,200 instructions).
    private func bind(_ e: ParsedEvent, to stmt: OpaquePointer?, from start: inout Int32) throws {
        let names = names!
        var i = start
        defer { start = i }
        func bind(_ value: Int64?) { if let value { sqlite3_bind_int64(stmt, i, value) }; i += 1 }
        func bind(_ value: String?) {
            if let value { sqlite3_bind_text(stmt, i, value, -1, SQLITE_TRANSIENT) }
            i += 1
        }
        // The name of each role as the event before: most events repeat it (a run of one
        // app's deliveries), and comparing beats hashing the string for the cache.
        func id(_ name: String, _ role: Int) throws -> Int64 {
            if recent[role].id >= 0, recent[role].name == name { return recent[role].id }
            let id = try names.id(name)
            recent[role] = (name, id)
            return id
        }
        bind(sourceId)
        if deviceRef == nil { deviceRef = try names.id(deviceId) }
        bind(deviceRef)
        bind(Int64(e.line))
        bind(e.timeUS)
        bind(e.offset.map { Int64($0) })
        bind(try e.process.map { try id($0, 0) })
        bind(e.pid)
        bind(try id(e.event.kind.rawValue, 1))
        bind(try id(e.event.pattern, 2))
        for column in EventWriter.eventColumns {
            // Most columns are empty: one test of a bit, not a lookup that copies the value.
            guard e.event.has(column) else { i += 1; continue }
            switch e.event[column] {
            case .text(let s)? where column == .bundleId: bind(try id(s, 3))
            case .text(let s)?: bind(s)
            case .integer(let n)?: bind(n)
            case .real(let d)?: sqlite3_bind_double(stmt, i, d); i += 1
            case nil: i += 1
            }
        }
        bind(try e.bundleVia.map { try id($0.rawValue, 4) })
        // The parser's fingerprint is the line's; stored, it is the line's on this device.
        bind(LineFingerprint.stored(e.fingerprint, device: deviceId))
    }

    static func error(_ rc: Int32, _ db: Database) -> DatabaseError {
        DatabaseError(resultCode: ResultCode(rawValue: rc), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
    }

    private static let eventColumns = EventColumn.allCases

    /// Stores everything with the source row, unless the same content is already there.
    package func commit(_ given: SourceFacts, alsoWrite: (Database) throws -> Void = { _ in }) throws -> CommitOutcome {
        var facts = given
        facts.device = device
        do {
            if sourceId == nil || !db.isInsideTransaction { try begin() }
            try flushRows()
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
                    container = ?, wrapper = ?, device_id = ?, os_version = ?, zone_assumed = ?, zone_offset = ?, zone_from = ?,
                    first_time = ?, last_time = ?, lines_read = ?, events = ?, skipped = ?, notes = ?, ingested_at = ?
                WHERE id = ?
                """, arguments: [facts.path, facts.fileSHA256, facts.contentSHA256, facts.size, facts.contentSize,
                                 facts.gzipMembers, facts.container.rawValue, facts.wrapper?.rawValue,
                                 facts.container == .infoPlist ? nil : deviceId, facts.device.osVersion,
                                 c.zoneAssumed, zone.offset, zone.from, c.firstUS.map(Timestamps.isoUTC), c.lastUS.map(Timestamps.isoUTC),
                                 c.linesRead, stored, jsonText(skipped), jsonText(c.notes),
                                 Clock.nowISO(), sourceId])
            try writeLinks()
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
        waiting = []
        if db.isInsideTransaction { try? db.rollback() }
    }
}

/// Writes `event_messages`: each message as the id of its format and its numbers
/// (`MessageTemplate`), a format stored once for every message of its shape. The numbers
/// are bound straight from the message's bytes.
final class MessageWriter {
    /// The argument columns of `event_messages`: `a1` … `a12`.
    static let argumentColumns = (1...MessageTemplate.maxArguments).map { "a\($0)" }
    /// Formats seen in this transaction, by hash, with their bytes (a hash alone is never
    /// trusted); emptied when it holds this many, so that a log whose messages share no
    /// shape does not fill memory.
    private static let cacheLimit = 1 << 16

    private let db: Database
    private let insert: Statement
    private var formats: [UInt64: (id: Int64, format: [UInt8])] = [:]
    private var ranges: [Range<Int>] = []
    private var format: [UInt8] = []

    init(_ db: Database) throws {
        self.db = db
        insert = try db.makeStatement(sql: """
            INSERT INTO event_messages (id, format, \(MessageWriter.argumentColumns.joined(separator: ", ")))
            VALUES (?, ?, \(Array(repeating: "?", count: MessageTemplate.maxArguments).joined(separator: ", ")))
            """)
    }

    func write(id: Int64, message: String) throws {
        var message = message
        let stmt = insert.sqliteStatement
        let rc = try message.withUTF8 { bytes -> Int32 in
            MessageTemplate.arguments(of: bytes, into: &ranges)
            format.removeAll(keepingCapacity: true)
            MessageTemplate.format(of: bytes, arguments: ranges, into: &format)
            sqlite3_bind_int64(stmt, 1, id)
            sqlite3_bind_int64(stmt, 2, try formatId())
            var column: Int32 = 3
            for range in ranges {
                // As the text was bound before: up to a NUL, if the message holds one.
                let argument = UnsafeBufferPointer(rebasing: bytes[range])
                let length = argument.firstIndex(of: 0) ?? argument.count
                // Not copied (SQLITE_STATIC, nil): the message's bytes outlive the step below,
                // and every column is bound again before the next step.
                _ = argument.withMemoryRebound(to: CChar.self) { sqlite3_bind_text(stmt, column, $0.baseAddress, Int32(length), nil) }
                column += 1
            }
            while column < Int32(3 + MessageTemplate.maxArguments) { sqlite3_bind_null(stmt, column); column += 1 }
            return sqlite3_step(stmt)
        }
        sqlite3_reset(stmt)
        guard rc == SQLITE_DONE else { throw EventWriter.error(rc, db) }
    }

    /// Whether two formats are the same bytes: one `memcmp` (`==` on arrays compared them a byte at a time).
    private static func same(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBytes { x in b.withUnsafeBytes { y in x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 } }
    }

    /// The id of `format` (the bytes just built), stored when new.
    private func formatId() throws -> Int64 {
        let hash = format.withUnsafeBufferPointer { fnv1a($0) }
        if let known = formats[hash], MessageWriter.same(known.format, format) { return known.id }
        // As it was bound before: up to a NUL.
        let text = String(decoding: format.prefix { $0 != 0 }, as: UTF8.self)
        let stored = Int64(bitPattern: hash)
        let id: Int64
        if let found = try Int64.fetchOne(db, sql: "SELECT id FROM message_formats WHERE hash = ? AND format = ?", arguments: [stored, text]) {
            id = found
        } else {
            try db.execute(sql: "INSERT INTO message_formats (hash, format) VALUES (?, ?)", arguments: [stored, text])
            id = db.lastInsertedRowID
        }
        if formats.count >= MessageWriter.cacheLimit { formats.removeAll(keepingCapacity: true) }
        formats[hash] = (id, format)
        return id
    }
}

/// Writes rows of the documented tables (docs/schema.md) with the ids they are given: a copy of
/// another store's rows, as the central audit makes of the central store (`CentralReplica`).
/// An event goes into the narrow rows as `EventWriter` puts it there; its message, as
/// `MessageWriter` does. One copier serves one transaction (the name and format caches are
/// good for as long as that).
package final class StoreCopy {
    /// The documented columns of `events` an event is given in, in this order: the view's, less `time`.
    package static let eventColumns = EventFields.copied.map(\.name)
    /// What becomes of each of those columns in `event_rows`, in the same order.
    private static let columns = EventFields.copied
    private static let rowColumns = columns.compactMap(\.rowColumn)

    private let db: Database
    private let names: EventNames
    private let messages: MessageWriter
    private var statements: [String: Statement] = [:]
    /// The last name of each column with its id: most rows repeat the row before's device,
    /// process, app, kind and pattern (an app's lines come together), and comparing with it
    /// costs less than hashing the name for `names` (a sixth of the copy's own CPU).
    private var recent: [(name: String, id: Int64)?] = Array(repeating: nil, count: StoreCopy.columns.count)

    package init(_ db: Database) throws {
        self.db = db
        names = try EventNames(db)
        messages = try MessageWriter(db)
    }

    /// A row of `table` (not `events`), with the values of `columns` in order.
    package func insert(into table: String, columns: [String], values: [DatabaseValue]) throws {
        let statement = try statements[table] ?? db.makeStatement(sql: """
            INSERT INTO \(table) (\(columns.map { "\"\($0)\"" }.joined(separator: ", ")))
            VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))
            """)
        statements[table] = statement
        try statement.execute(arguments: StatementArguments(values))
    }

    /// An event, its values in the order of `eventColumns`. Bound straight to SQLite, as
    /// `EventWriter` binds: GRDB's arguments cost more than the insert.
    package func event(_ values: [DatabaseValue]) throws {
        let statement = try statements["event_rows"] ?? db.makeStatement(sql: """
            INSERT INTO event_rows (\(Self.rowColumns.joined(separator: ", ")))
            VALUES (\(Array(repeating: "?", count: Self.rowColumns.count).joined(separator: ", ")))
            """)
        statements["event_rows"] = statement
        let stmt = statement.sqliteStatement
        var i: Int32 = 1
        func bind(_ value: DatabaseValue) {
            switch value.storage {
            case .null: sqlite3_bind_null(stmt, i)
            case .int64(let n): sqlite3_bind_int64(stmt, i, n)
            case .double(let d): sqlite3_bind_double(stmt, i, d)
            case .string(let text): sqlite3_bind_text(stmt, i, text, -1, SQLITE_TRANSIENT)
            case .blob(let data): _ = data.withUnsafeBytes { sqlite3_bind_blob(stmt, i, $0.baseAddress, Int32(clamping: $0.count), SQLITE_TRANSIENT) }
            }
            i += 1
        }
        var message = ""
        for (index, (column, value)) in zip(Self.columns, values).enumerated() {
            switch column.storage {
            case .plain where column.type == .integerOrText:
                // A value that is a whole number is stored as one (`Normaliser.value`): a text
                // `value` never reads as an integer. A store that keeps values as text gives it back.
                if let text = String.fromDatabaseValue(value), let number = Int64(text) {
                    bind(number.databaseValue)
                } else {
                    bind(value)
                }
            case .plain: bind(value)
            case .named:
                guard let name = String.fromDatabaseValue(value) else { bind(.null); continue }
                if let last = recent[index], last.name == name {
                    bind(last.id.databaseValue)
                } else {
                    let id = try names.id(name)
                    recent[index] = (name, id)
                    bind(id.databaseValue)
                }
            case .message: message = String.fromDatabaseValue(value) ?? ""
            case .computed: continue
            }
        }
        let rc = sqlite3_step(stmt)
        sqlite3_reset(stmt)
        guard rc == SQLITE_DONE else { throw EventWriter.error(rc, db) }
        guard let id = Int64.fromDatabaseValue(values[0]) else { return }
        try messages.write(id: id, message: message)
    }
}

/// SQLite's "copy the value now" destructor, a C macro Swift cannot import.
private let SQLITE_TRANSIENT = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
