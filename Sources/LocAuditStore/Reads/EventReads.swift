import Foundation
import GRDB
import GRDBSQLite
import LocAuditModel
import LocAuditRead

// The hot read of the audit: every event of the apps in scope, through a raw statement.

extension AppEvent {
    /// The columns `load` reads, in order.
    static let selection = """
        id, kind, time_us, device_id, bundle_id, app_pid, source_id, line, status, accuracy, temporary, provisional,
        reason, app_state, service, call, horizontal_accuracy, location_private, property, value, prompt_kind,
        prompt_options, choice, purpose_key, visible, intent, fingerprint, user_kill
        """

    /// Reads the current row of a statement selecting `selection`; nil for an unknown kind.
    static func read(_ stmt: OpaquePointer, strings: inout StringTable) -> AppEvent? {
        // Every text column but the ids has few distinct values: intern them too.
        func text(_ i: Int32) -> String? {
            sqlite3_column_type(stmt, i) == SQLITE_NULL ? nil : strings.intern(stmt, i)
        }
        func int(_ i: Int32) -> Int64? { sqlite3_column_type(stmt, i) == SQLITE_NULL ? nil : sqlite3_column_int64(stmt, i) }
        func flag(_ i: Int32) -> Bool? { int(i).map { $0 != 0 } }
        guard let kind = text(1).flatMap(EventKind.init(rawValue:)) else { return nil }
        let statusText = text(8)
        return AppEvent(
            id: sqlite3_column_int64(stmt, 0), kind: kind, timeUS: sqlite3_column_int64(stmt, 2),
            deviceId: strings.intern(stmt, 3), bundleId: strings.intern(stmt, 4), appPid: int(5),
            sourceId: sqlite3_column_int64(stmt, 6), line: Int(sqlite3_column_int64(stmt, 7)), statusText: statusText,
            accuracy: text(9).flatMap(AccuracyAuthorization.init(rawValue:)), temporary: flag(10), provisional: flag(11),
            reason: text(12), appState: text(13).flatMap(AppState.init(rawValue:)),
            service: text(14).flatMap(LocationService.init(rawValue:)), call: text(15),
            horizontalAccuracy: sqlite3_column_type(stmt, 16) == SQLITE_NULL ? nil : sqlite3_column_double(stmt, 16),
            locationPrivate: int(17) == 1, property: text(18),
            value: sqlite3_column_type(stmt, 19) == SQLITE_INTEGER ? sqlite3_column_int64(stmt, 19) : nil,
            promptKind: text(20), promptOptions: text(21), choice: text(22), purposeKey: text(23), visible: flag(24),
            intent: text(25), fingerprint: sqlite3_column_int64(stmt, 26), userKill: flag(27),
            status: statusText.flatMap(AuthorizationStatus.init(rawValue:)))
    }
}

extension EventScope {
    /// SQL that keeps the rows in scope, binding `arguments` as `?1` (devices) and `?2` (apps):
    /// each set travels as one JSON array, so any number of devices and apps is one statement.
    static let condition = """
        (?1 IS NULL OR device_id IN (SELECT value FROM json_each(?1))) \
        AND (?2 IS NULL OR bundle_id IN (SELECT value FROM json_each(?2)))
        """
    var arguments: StatementArguments { [devices.map { jsonText($0.sorted()) }, bundleIds.map { jsonText($0.sorted()) }] }

    /// The devices and apps in scope that have events, by device and app.
    func groups(_ db: Database) throws -> [(deviceId: String, bundleId: String)] {
        try Row.fetchAll(db, sql: """
            SELECT DISTINCT device_id, bundle_id FROM events
            WHERE bundle_id IS NOT NULL AND \(EventScope.condition)
            """, arguments: arguments)
            .map { ($0["device_id"] as String, $0["bundle_id"] as String) }
            .sorted { ($0.0, $0.1) < ($1.0, $1.1) }
    }

    /// Every event of one app on one device, in time order (then file order).
    ///
    /// Read through the `events_by_app` index, one app at a time, so that an audit holds one
    /// app's events at once, not all of them.
    static func load(_ db: Database, deviceId: String, bundleId: String, strings: inout StringTable,
                     read: inout Int, progress: ProgressBar? = nil) throws -> [AppEvent] {
        let statement = try db.cachedStatement(sql: """
            SELECT \(AppEvent.selection) FROM events INDEXED BY events_by_app
            WHERE device_id = ? AND bundle_id = ?
            """)
        try statement.setArguments([deviceId, bundleId])
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
            if let event = AppEvent.read(stmt, strings: &strings) { events.append(event) }
        }
        // In time order from the index; equal times in file order.
        func inOrder(_ a: AppEvent, _ b: AppEvent) -> Bool { (a.timeUS, a.sourceId, a.line) < (b.timeUS, b.sourceId, b.line) }
        let sorted = zip(events, events.dropFirst()).allSatisfy { !inOrder($1, $0) }
        return sorted ? events : events.sorted(by: inOrder)
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

    mutating func intern(_ stmt: OpaquePointer, _ column: Int32) -> String {
        let count = Int(sqlite3_column_bytes(stmt, column))
        let p = sqlite3_column_text(stmt, column)
        let bytes = UnsafeBufferPointer(start: p, count: p == nil ? 0 : count)
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
