import Foundation
import GRDB
import GRDBSQLite
import LocAuditModel
import LocAuditRead

// The hot read of the audit: every event of the apps in scope, through a raw statement.

/// The columns of `event_rows` the audit reads, by name: a case's place is its column in the
/// statement that reads it (`AppEvent.selection` the common ones, `AppEvent.rareSelection`
/// the rest), so a read names its column and cannot miss its index.
///
/// Most events are deliveries, whose rows fill only the common columns: an app's events are
/// read from `events_by_app`, which holds those (v19), and the rows that fill any other
/// (about 7% on the generated fleets) from `events_rare`, in the same order
/// (`EventCursor`; docs/performance.md, "Audit in bulk" and "Audit on two cores"). A read
/// by id (`readAll`) tests each row for the rare columns (`AppEvent.rareFilled`) instead.
enum ReadColumn: Int32, CaseIterable {
    // Common: in the main statement, in this order.
    case id, kind, timeUS, appPid, sourceId, line, horizontalAccuracy, locationPrivate, fingerprint
    // Rare: in the statement by id, in this order.
    case status, accuracy, temporary, provisional, reason, appState, service, call,
         property, value, promptKind, promptOptions, choice, purposeKey, visible, intent, userKill

    /// The first rare column.
    static let firstRare = ReadColumn.status
    /// Whether the main statement reads it.
    var isCommon: Bool { rawValue < Self.firstRare.rawValue }
    /// Its column in the statement that reads it.
    var index: Int32 { isCommon ? rawValue : rawValue - Self.firstRare.rawValue }

    /// Its `events` field (docs/schema.md).
    var field: EventField {
        switch self {
        case .id: EventFields.named("id")
        case .kind: EventFields.named("kind")
        case .timeUS: EventFields.named("time_us")
        case .sourceId: EventFields.named("source_id")
        case .line: EventFields.named("line")
        case .fingerprint: EventFields.named("fingerprint")
        case .appPid: EventFields.filled(by: .appPid)
        case .status: EventFields.filled(by: .status)
        case .accuracy: EventFields.filled(by: .accuracy)
        case .temporary: EventFields.filled(by: .temporary)
        case .provisional: EventFields.filled(by: .provisional)
        case .reason: EventFields.filled(by: .reason)
        case .appState: EventFields.filled(by: .appState)
        case .service: EventFields.filled(by: .service)
        case .call: EventFields.filled(by: .call)
        case .horizontalAccuracy: EventFields.filled(by: .horizontalAccuracy)
        case .locationPrivate: EventFields.filled(by: .locationPrivate)
        case .property: EventFields.filled(by: .property)
        case .value: EventFields.filled(by: .value)
        case .promptKind: EventFields.filled(by: .promptKind)
        case .promptOptions: EventFields.filled(by: .promptOptions)
        case .choice: EventFields.filled(by: .choice)
        case .purposeKey: EventFields.filled(by: .purposeKey)
        case .visible: EventFields.filled(by: .visible)
        case .intent: EventFields.filled(by: .intent)
        case .userKill: EventFields.filled(by: .userKill)
        }
    }

    /// Its `event_rows` column.
    var stored: String {
        guard let stored = field.rowColumn else { preconditionFailure("\(field.name) is not kept in event_rows") }
        return stored
    }
}

extension AppEvent {
    /// The common `event_rows` columns `load` reads, in `ReadColumn`'s order.
    static let selection = ReadColumn.allCases.filter(\.isCommon).map(\.stored).joined(separator: ", ")
    /// The other columns, in `ReadColumn`'s order: read by id for the rows that fill one.
    static let rareSelection = ReadColumn.allCases.filter { !$0.isCommon }.map(\.stored).joined(separator: ", ")
    /// 1 when a row fills any rare column (one expression: SQLite stops at the first filled).
    static let rareFilled = "coalesce(\(rareSelection)) IS NOT NULL"
    /// The main statement's column that holds `rareFilled` (`readAll`'s statements).
    static let rareFilledColumn = Int32(ReadColumn.firstRare.rawValue)
    /// The time and id columns of the cursor's rare statement, after `rareSelection`'s.
    static let rareTimeColumn = Int32(ReadColumn.allCases.count - ReadColumn.allCases.filter(\.isCommon).count)
    static let rareIdColumn = rareTimeColumn + 1

    /// Reads the current row of a statement selecting `selection` (and `rare`'s, selecting
    /// `rareSelection`, when the row fills a rare column; nil when it fills none), an event of
    /// `group`; nil for an unknown kind.
    static func read(_ stmt: OpaquePointer, rare: OpaquePointer?, group: EventGroup, kinds: [EventKind?],
                     strings: inout StringTable) -> AppEvent? {
        // One `sqlite3_column_type` per column: NULL is read as nothing else.
        func from(_ c: ReadColumn) -> (OpaquePointer, Int32)? {
            if c.isCommon { return (stmt, c.index) }
            return rare.map { ($0, c.index) }
        }
        // Most text columns have few distinct values: intern them.
        func text(_ c: ReadColumn) -> String? {
            guard let (s, i) = from(c) else { return nil }
            return strings.intern(s, i, slot: Int(c.rawValue))
        }
        func int(_ c: ReadColumn) -> Int64? {
            guard let (s, i) = from(c), sqlite3_column_type(s, i) != SQLITE_NULL else { return nil }
            return sqlite3_column_int64(s, i)
        }
        func required(_ c: ReadColumn) -> Int64 { sqlite3_column_int64(stmt, c.index) }
        func real(_ c: ReadColumn) -> Double? {
            guard let (s, i) = from(c), sqlite3_column_type(s, i) != SQLITE_NULL else { return nil }
            return sqlite3_column_double(s, i)
        }
        func flag(_ c: ReadColumn) -> Bool? { int(c).map { $0 != 0 } }
        let kindRef = required(.kind)
        guard kindRef >= 0, kindRef < kinds.count, let kind = kinds[Int(kindRef)] else { return nil }
        // The rare fields only for a row that fills one (`rare` is then its row by id).
        let fields = rare == nil ? nil : AppEvent.Rare(
            statusText: text(.status), accuracy: text(.accuracy).flatMap(AccuracyAuthorization.init(rawValue:)),
            temporary: flag(.temporary), provisional: flag(.provisional), reason: text(.reason),
            appState: text(.appState).flatMap(AppState.init(rawValue:)), service: text(.service).flatMap(LocationService.init(rawValue:)),
            call: text(.call), property: text(.property),
            value: from(.value).flatMap { s, i in sqlite3_column_type(s, i) == SQLITE_INTEGER ? sqlite3_column_int64(s, i) : nil },
            promptKind: text(.promptKind), promptOptions: text(.promptOptions), choice: text(.choice),
            purposeKey: text(.purposeKey), visible: flag(.visible), intent: text(.intent), userKill: flag(.userKill))
        return AppEvent(
            id: required(.id), kind: kind, timeUS: required(.timeUS), owner: group.owner, appPid: int(.appPid),
            sourceId: required(.sourceId), line: Int(truncatingIfNeeded: required(.line)), fingerprint: required(.fingerprint),
            horizontalAccuracy: real(.horizontalAccuracy), locationPrivate: int(.locationPrivate) == 1, rare: fields)
    }
}

extension AppEvent {
    /// Steps `statement` (selecting `selection` and `rareFilled`) to its end, reading each
    /// row's rare columns by id when it fills one; hands each event (nil for an unknown kind) to `body`.
    static func readAll(_ statement: Statement, in db: Database, group: EventGroup, kinds: [EventKind?], strings: inout StringTable,
                        _ body: (AppEvent?) -> Void) throws {
        let byId = try db.cachedStatement(sql: "SELECT \(AppEvent.rareSelection) FROM event_rows WHERE id = ?")
        let stmt = statement.sqliteStatement
        let rare = byId.sqliteStatement
        defer { sqlite3_reset(stmt) }
        func failure(_ rc: Int32) -> DatabaseError {
            DatabaseError(resultCode: ResultCode(rawValue: rc), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
        }
        while true {
            let rc = sqlite3_step(stmt)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw failure(rc) }
            if sqlite3_column_int64(stmt, AppEvent.rareFilledColumn) != 0 {
                sqlite3_reset(rare)
                sqlite3_bind_int64(rare, 1, sqlite3_column_int64(stmt, ReadColumn.id.index))
                let rc = sqlite3_step(rare)
                guard rc == SQLITE_ROW else { throw failure(rc == SQLITE_DONE ? SQLITE_CORRUPT : rc) }
                body(AppEvent.read(stmt, rare: rare, group: group, kinds: kinds, strings: &strings))
                sqlite3_reset(rare)
            } else {
                body(AppEvent.read(stmt, rare: nil, group: group, kinds: kinds, strings: &strings))
            }
        }
    }
}

/// The events of one app, stepped one at a time (`next`), in time order (equal times in id
/// order): what `readAll` does, for a reader that takes the events as they come.
///
/// The main statement reads the common columns of every row; a second one, in the same order,
/// reads the rare columns of the rows that fill one, through the partial index `events_rare`
/// (v19), and the two are merged by time and id: no row is tested for the rare columns
/// (docs/performance.md, "Audit on two cores").
struct EventCursor {
    private let db: Database
    private let statement: Statement
    private let rare: Statement
    private let group: EventGroup
    private let kinds: [EventKind?]
    private var done = false
    /// The rare statement's current row (time, id); nil once it has none left.
    private var rareAt: (timeUS: Int64, id: Int64)?

    /// The two statements, their arguments set (`EventScope.cursor`); steps them from their first rows.
    init(_ statement: Statement, rare: Statement, in db: Database, group: EventGroup, kinds: [EventKind?]) throws {
        self.db = db
        (self.statement, self.rare) = (statement, rare)
        (self.group, self.kinds) = (group, kinds)
        try stepRare()
    }

    private func failure(_ rc: Int32) -> DatabaseError {
        sqlite3_reset(statement.sqliteStatement)
        sqlite3_reset(rare.sqliteStatement)
        return DatabaseError(resultCode: ResultCode(rawValue: rc), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
    }

    /// Moves the rare statement to its next row.
    private mutating func stepRare() throws {
        let stmt = rare.sqliteStatement
        let rc = sqlite3_step(stmt)
        if rc == SQLITE_ROW {
            rareAt = (sqlite3_column_int64(stmt, AppEvent.rareTimeColumn), sqlite3_column_int64(stmt, AppEvent.rareIdColumn))
        } else {
            rareAt = nil
            guard rc == SQLITE_DONE else { throw failure(rc) }
            sqlite3_reset(stmt)
        }
    }

    /// The next row's event (rows of an unknown kind skipped); nil at the end, when the
    /// statements are reset.
    mutating func next(strings: inout StringTable) throws -> AppEvent? {
        let stmt = statement.sqliteStatement
        while !done {
            let rc = sqlite3_step(stmt)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw failure(rc) }
            let row = (timeUS: sqlite3_column_int64(stmt, ReadColumn.timeUS.index), id: sqlite3_column_int64(stmt, ReadColumn.id.index))
            // Both statements read in (time, id) order, the rare one a subset of the main one's rows.
            while let at = rareAt, (at.timeUS, at.id) < (row.timeUS, row.id) { try stepRare() }
            let filled = rareAt.map { $0 == row } ?? false
            let event = AppEvent.read(stmt, rare: filled ? rare.sqliteStatement : nil, group: group, kinds: kinds, strings: &strings)
            if let event { return event }
        }
        close()
        return nil
    }

    /// Stops early: the statements are reset for their next use.
    mutating func close() {
        guard !done else { return }
        done = true
        sqlite3_reset(statement.sqliteStatement)
        sqlite3_reset(rare.sqliteStatement)
    }
}

/// One app on one device: the events an audit reads at once.
struct EventGroup {
    var deviceId: String
    var bundleId: String
    /// Their ids in `names`.
    var device: Int64
    var bundle: Int64
    /// The two as the group's events hold them: one object for them all.
    let owner: AppEvent.Owner

    /// The two refs, as a key.
    struct Key: Hashable {
        var device: Int64
        var bundle: Int64
    }
    var key: Key { Key(device: device, bundle: bundle) }

    init(deviceId: String, bundleId: String, device: Int64, bundle: Int64) {
        (self.deviceId, self.bundleId, self.device, self.bundle) = (deviceId, bundleId, device, bundle)
        owner = AppEvent.Owner(deviceId: deviceId, bundleId: bundleId)
    }
}

extension EventScope {
    /// SQL that keeps the rows in scope, binding `arguments` as `?1` (devices) and `?2` (apps):
    /// each set travels as one JSON array, so any number of devices and apps is one statement.
    package static let condition = """
        (?1 IS NULL OR device_id IN (SELECT value FROM json_each(?1))) \
        AND (?2 IS NULL OR bundle_id IN (SELECT value FROM json_each(?2)))
        """
    package var arguments: StatementArguments { [devices.map { jsonText($0.sorted()) }, bundleIds.map { jsonText($0.sorted()) }] }

    /// The devices and apps in scope that have events, by device and app.
    func groups(_ db: Database) throws -> [EventGroup] {
        let names = try EventNames.all(in: db)
        return try Row.fetchAll(db, sql: "SELECT DISTINCT device_ref, bundle_ref FROM event_rows WHERE bundle_ref IS NOT NULL")
            .compactMap { row -> EventGroup? in
                guard let device = names[row[0]], let bundle = names[row[1]],
                      devices?.contains(device) ?? true, bundleIds?.contains(bundle) ?? true else { return nil }
                return EventGroup(deviceId: device, bundleId: bundle, device: row[0], bundle: row[1])
            }
            .sorted { ($0.deviceId, $0.bundleId) < ($1.deviceId, $1.bundleId) }
    }

    /// The common columns of one app's events on one device (`?1`, `?2`) from a time on (`?3`),
    /// in time and id order: from `events_by_app` alone, which holds them (v19).
    static let appEvents = """
        SELECT \(AppEvent.selection) FROM event_rows INDEXED BY events_by_app
        WHERE device_ref = ?1 AND bundle_ref = ?2 AND time_us >= ?3 ORDER BY time_us, id
        """
    /// The rare columns, time and id of those of the same events that fill one, in the same
    /// order: through `events_rare` (v19), whose rows they are.
    static let appRareColumns = """
        SELECT \(AppEvent.rareSelection), time_us, id FROM event_rows INDEXED BY events_rare
        WHERE device_ref = ?1 AND bundle_ref = ?2 AND time_us >= ?3 AND \(AppEvent.rareFilled) ORDER BY time_us, id
        """

    /// The statement that reads every event of one app on one device (from `fromUS` on), in
    /// time order (equal times in id order: `AppSessions` puts them in file order), set and
    /// stepped event by event.
    ///
    /// Read through the `events_by_app` index, one app at a time, so that an audit holds one
    /// app's events at once at most (`AppSessions`: only those of its sessions not over yet).
    static func cursor(_ db: Database, group: EventGroup, from fromUS: Int64? = nil, kinds: [EventKind?]) throws -> EventCursor {
        let statement = try db.cachedStatement(sql: appEvents)
        let rare = try db.cachedStatement(sql: appRareColumns)
        let arguments: StatementArguments = [group.device, group.bundle, fromUS ?? .min]
        try statement.setArguments(arguments)
        try rare.setArguments(arguments)
        return try EventCursor(statement, rare: rare, in: db, group: group, kinds: kinds)
    }

    /// pid -> the time of the last line of one app naming it (from `fromUS` on): after it, no
    /// line of the app can reach a session of that pid (`SessionBuilder.take`). From the
    /// index alone (it holds `app_pid`, v19), for an audit of some devices or apps.
    static func lastLines(_ db: Database, group: EventGroup, from fromUS: Int64? = nil) throws -> [Int64: Int64] {
        let statement = try db.cachedStatement(sql: """
            SELECT app_pid, time_us FROM event_rows INDEXED BY events_by_app
            WHERE device_ref = ? AND bundle_ref = ? AND time_us >= ? AND app_pid IS NOT NULL
            """)
        try statement.setArguments([group.device, group.bundle, fromUS ?? .min])
        var last: [Int64: Int64] = [:]
        // Any order: a `GROUP BY` would sort the rows.
        try RawRows.step(statement, in: db) { stmt in
            let (pid, time) = (sqlite3_column_int64(stmt, 0), sqlite3_column_int64(stmt, 1))
            if time > last[pid] ?? .min { last[pid] = time }
        }
        return last
    }

    /// `lastLines(db, group:)` of every app on every device, in one scan of `event_rows` in
    /// its own order (no seek a line): for an audit of the whole store. Keyed by `EventGroup.key`.
    static func lastLines(_ db: Database) throws -> [EventGroup.Key: [Int64: Int64]] {
        let statement = try db.cachedStatement(sql: """
            SELECT device_ref, bundle_ref, app_pid, time_us FROM event_rows WHERE bundle_ref IS NOT NULL AND app_pid IS NOT NULL
            """)
        // One flat table, one lookup a row, none for a row of the same process as the row
        // before (most are: a log's lines of one process come together); split by app at the end.
        struct Process: Hashable { var device: Int64, bundle: Int64, pid: Int64 }
        var flat: [Process: Int64] = [:]
        var previous: (process: Process, at: Dictionary<Process, Int64>.Index)?
        try RawRows.step(statement, in: db) { stmt in
            let process = Process(device: sqlite3_column_int64(stmt, 0), bundle: sqlite3_column_int64(stmt, 1),
                                  pid: sqlite3_column_int64(stmt, 2))
            let time = sqlite3_column_int64(stmt, 3)
            if let previous, previous.process == process {
                if time > flat.values[previous.at] { flat.values[previous.at] = time }
            } else if let at = flat.index(forKey: process) {
                if time > flat.values[at] { flat.values[at] = time }
                previous = (process, at)
            } else {
                flat[process] = time
                previous = flat.index(forKey: process).map { (process, $0) }
            }
        }
        var last: [EventGroup.Key: [Int64: Int64]] = [:]
        for (process, time) in flat { last[EventGroup.Key(device: process.device, bundle: process.bundle), default: [:]][process.pid] = time }
        return last
    }

    /// The events with these ids (of `group`'s app and device), by id; unknown kinds left out.
    static func load(_ db: Database, ids: [Int64], group: EventGroup, kinds: [EventKind?],
                     strings: inout StringTable) throws -> [Int64: AppEvent] {
        let statement = try db.cachedStatement(sql: """
            SELECT \(AppEvent.selection), \(AppEvent.rareFilled) FROM event_rows WHERE id IN (SELECT value FROM json_each(?))
            """)
        try statement.setArguments([jsonText(ids)])
        var events: [Int64: AppEvent] = [:]
        try AppEvent.readAll(statement, in: db, group: group, kinds: kinds, strings: &strings) { event in
            if let event { events[event.id] = event }
        }
        return events
    }

    /// The kinds of events, by their id in `names`.
    /// An array indexed by id (names' ids are small and dense), not a dictionary: one lookup a row.
    static func kinds(_ db: Database) throws -> [EventKind?] {
        let known = try EventNames.all(in: db).compactMapValues(EventKind.init(rawValue:))
        guard let last = known.keys.max(), last >= 0, last < 1 << 24 else { return [] }
        var kinds = [EventKind?](repeating: nil, count: Int(last) + 1)
        for (id, kind) in known where id >= 0 { kinds[Int(id)] = kind }
        return kinds
    }
}

/// Device and bundle ids and most text columns repeat on every row: one String each.
struct StringTable {
    private var strings: [String] = []
    private var index: [String: Int] = [:]
    /// Per column: the last value's bytes and number.
    private var last: [(bytes: [UInt8], index: Int)] = Array(repeating: ([], -1), count: 32)

    /// Whether two byte strings are equal, by `memcmp` (the generic
    /// `elementsEqual` was 3.5% of an audit's samples).
    private static func same(_ a: [UInt8], _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        a.count == b.count && a.withUnsafeBufferPointer { a in
            a.isEmpty || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0
        }
    }

    /// The text of a column; nil for NULL. `slot` (below 32) keeps the column's last value:
    /// the read's column, whichever statement reads it.
    mutating func intern(_ stmt: OpaquePointer, _ column: Int32, slot: Int) -> String? {
        // Text first, then its length, as SQLite asks.
        guard let p = sqlite3_column_text(stmt, column) else { return nil }
        let bytes = UnsafeBufferPointer(start: p, count: Int(sqlite3_column_bytes(stmt, column)))
        if last[slot].index >= 0, Self.same(last[slot].bytes, bytes) { return strings[last[slot].index] }
        let string = String(decoding: bytes, as: UTF8.self)
        let i: Int
        if let known = index[string] {
            i = known
        } else {
            i = strings.count
            strings.append(string)
            index[string] = i
        }
        last[slot] = (Array(bytes), i)
        return string
    }
}

// The hot read of `push`: rows as SQLite holds them, for the COPY encoder of the central store.

/// What receives a row's values as SQLite holds them, each storage class as itself and text
/// (or a blob) as its bytes, without a copy.
public protocol RawRowSink {
    mutating func null()
    mutating func int(_ value: Int64)
    mutating func double(_ value: Double)
    /// Text or a blob: bytes valid only during the call, not necessarily UTF-8.
    mutating func text(_ bytes: UnsafeBufferPointer<UInt8>)
    mutating func endRow()
}

public enum RawRows {
    /// Steps `statement` (its arguments set) to its end, handing each row to `body`.
    static func step(_ statement: Statement, in db: Database, _ body: (OpaquePointer) -> Void) throws {
        let stmt = statement.sqliteStatement
        defer { sqlite3_reset(stmt) }
        while true {
            let rc = sqlite3_step(stmt)
            if rc == SQLITE_DONE { return }
            guard rc == SQLITE_ROW else {
                throw DatabaseError(resultCode: ResultCode(rawValue: rc), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
            }
            body(stmt)
        }
    }

    /// Steps `sql` and hands every column of every row to `sink`; the rows read.
    public static func read(_ db: Database, sql: String, arguments: StatementArguments, into sink: inout some RawRowSink) throws -> Int {
        let statement = try db.cachedStatement(sql: sql)
        try statement.setArguments(arguments)
        let stmt = statement.sqliteStatement
        defer { sqlite3_reset(stmt) }
        let columns = sqlite3_column_count(stmt)
        var rows = 0
        while true {
            let rc = sqlite3_step(stmt)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else {
                throw DatabaseError(resultCode: ResultCode(rawValue: rc), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
            }
            for column in 0..<columns {
                switch sqlite3_column_type(stmt, column) {
                case SQLITE_NULL: sink.null()
                case SQLITE_INTEGER: sink.int(sqlite3_column_int64(stmt, column))
                case SQLITE_FLOAT: sink.double(sqlite3_column_double(stmt, column))
                case SQLITE_TEXT:
                    // The pointer first, then the length, as SQLite asks.
                    let pointer = sqlite3_column_text(stmt, column)
                    sink.text(UnsafeBufferPointer(start: pointer, count: pointer == nil ? 0 : Int(sqlite3_column_bytes(stmt, column))))
                default:
                    let pointer = sqlite3_column_blob(stmt, column)?.assumingMemoryBound(to: UInt8.self)
                    sink.text(UnsafeBufferPointer(start: pointer, count: pointer == nil ? 0 : Int(sqlite3_column_bytes(stmt, column))))
                }
            }
            sink.endRow()
            rows += 1
        }
        return rows
    }
}
