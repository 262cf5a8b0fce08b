import Foundation
import GRDB
import GRDBSQLite
import LocAuditModel
import LocAuditRead

// The hot read of the audit: every event of the apps in scope, through a raw statement.

extension AppEvent {
    /// The `event_rows` columns `load` reads, in order.
    static let selection = """
        id, kind_ref, time_us, app_pid, source_id, line, status, accuracy, temporary, provisional,
        reason, app_state, service, call, horizontal_accuracy, location_private, property, value, prompt_kind,
        prompt_options, choice, purpose_key, visible, intent, fingerprint, user_kill
        """

    /// Reads the current row of a statement selecting `selection`, an event of `group`; nil
    /// for an unknown kind.
    static func read(_ stmt: OpaquePointer, group: EventGroup, kinds: [Int64: EventKind], strings: inout StringTable) -> AppEvent? {
        // Most text columns have few distinct values: intern them. Most columns are NULL: a
        // NULL is a NULL text pointer, or a 0 whose type says so (a call per column saved).
        func text(_ i: Int32) -> String? { strings.intern(stmt, i) }
        func int(_ i: Int32) -> Int64? {
            let v = sqlite3_column_int64(stmt, i)
            return v != 0 || sqlite3_column_type(stmt, i) != SQLITE_NULL ? v : nil
        }
        func real(_ i: Int32) -> Double? {
            let v = sqlite3_column_double(stmt, i)
            return v != 0 || sqlite3_column_type(stmt, i) != SQLITE_NULL ? v : nil
        }
        func flag(_ i: Int32) -> Bool? { int(i).map { $0 != 0 } }
        guard let kind = kinds[sqlite3_column_int64(stmt, 1)] else { return nil }
        let statusText = text(6)
        return AppEvent(
            id: sqlite3_column_int64(stmt, 0), kind: kind, timeUS: sqlite3_column_int64(stmt, 2),
            deviceId: group.deviceId, bundleId: group.bundleId, appPid: int(3),
            sourceId: sqlite3_column_int64(stmt, 4), line: Int(sqlite3_column_int64(stmt, 5)), statusText: statusText,
            accuracy: text(7).flatMap(AccuracyAuthorization.init(rawValue:)), temporary: flag(8), provisional: flag(9),
            reason: text(10), appState: text(11).flatMap(AppState.init(rawValue:)),
            service: text(12).flatMap(LocationService.init(rawValue:)), call: text(13),
            horizontalAccuracy: real(14),
            locationPrivate: int(15) == 1, property: text(16),
            value: sqlite3_column_type(stmt, 17) == SQLITE_INTEGER ? sqlite3_column_int64(stmt, 17) : nil,
            promptKind: text(18), promptOptions: text(19), choice: text(20), purposeKey: text(21), visible: flag(22),
            intent: text(23), fingerprint: sqlite3_column_int64(stmt, 24), userKill: flag(25),
            status: statusText.flatMap(AuthorizationStatus.init(rawValue:)))
    }
}

/// One app on one device: the events an audit reads at once.
struct EventGroup {
    var deviceId: String
    var bundleId: String
    /// Their ids in `names`.
    var device: Int64
    var bundle: Int64
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

    /// Every event of one app on one device (from `fromUS` on, when given), in time order
    /// (then file order).
    ///
    /// Read through the `events_by_app` index, one app at a time, so that an audit holds one
    /// app's events at once, not all of them.
    static func load(_ db: Database, group: EventGroup, from fromUS: Int64? = nil, kinds: [Int64: EventKind], strings: inout StringTable,
                     read: inout Int, progress: ProgressBar? = nil) throws -> [AppEvent] {
        let statement = try db.cachedStatement(sql: """
            SELECT \(AppEvent.selection) FROM event_rows INDEXED BY events_by_app
            WHERE device_ref = ? AND bundle_ref = ? AND time_us >= ?
            """)
        try statement.setArguments([group.device, group.bundle, fromUS ?? .min])
        let stmt = statement.sqliteStatement
        defer { sqlite3_reset(stmt) }
        var events: [AppEvent] = []
        while true {
            let rc = sqlite3_step(stmt)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else {
                throw DatabaseError(resultCode: ResultCode(rawValue: rc), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
            }
            read += 1
            if read & 0x3FFF == 0 { progress?.advance(to: read) }
            if let event = AppEvent.read(stmt, group: group, kinds: kinds, strings: &strings) { events.append(event) }
        }
        // In time order from the index; equal times in file order.
        func inOrder(_ a: AppEvent, _ b: AppEvent) -> Bool { (a.timeUS, a.sourceId, a.line) < (b.timeUS, b.sourceId, b.line) }
        let sorted = zip(events, events.dropFirst()).allSatisfy { !inOrder($1, $0) }
        return sorted ? events : events.sorted(by: inOrder)
    }

    /// The kinds of events, by their id in `names`.
    static func kinds(_ db: Database) throws -> [Int64: EventKind] {
        try EventNames.all(in: db).compactMapValues(EventKind.init(rawValue:))
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

    /// The text of a column; nil for NULL.
    mutating func intern(_ stmt: OpaquePointer, _ column: Int32) -> String? {
        // Text first, then its length, as SQLite asks.
        guard let p = sqlite3_column_text(stmt, column) else { return nil }
        let bytes = UnsafeBufferPointer(start: p, count: Int(sqlite3_column_bytes(stmt, column)))
        if last[Int(column)].index >= 0, Self.same(last[Int(column)].bytes, bytes) { return strings[last[Int(column)].index] }
        let string = String(decoding: bytes, as: UTF8.self)
        let i: Int
        if let known = index[string] {
            i = known
        } else {
            i = strings.count
            strings.append(string)
            index[string] = i
        }
        last[Int(column)] = (Array(bytes), i)
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
