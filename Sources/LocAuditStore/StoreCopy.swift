import GRDB
import GRDBSQLite
import LocAuditModel

/// Writes rows of the documented tables (docs/schema.md) with the ids they are given: a copy of
/// another store's rows, as the central audit makes of the central store (`CentralReplica`).
/// An event goes into the narrow rows as `EventWriter` puts it there; its message, as
/// `MessageWriter` does. One copier serves one transaction (the name and format caches are
/// good for as long as that).
package final class StoreCopy {
    /// The documented columns of `events` an event is given in, in this order: the view's, less `time`.
    package static let eventColumns = [
        "id", "source_id", "line", "device_id", "time_us", "utc_offset", "process", "pid", "app_pid", "bundle_id", "bundle_via",
        "kind", "pattern", "status", "accuracy", "temporary", "provisional", "reason", "app_state", "service", "call",
        "horizontal_accuracy", "latitude", "longitude", "location_private", "property", "value", "prompt_kind", "prompt_options",
        "choice", "purpose_key", "visible", "intent", "message", "fingerprint", "user_kill",
    ]
    /// What becomes of each of those columns in `event_rows`, in the same order.
    private enum Column {
        /// Kept as it is.
        case plain(String)
        /// A name: its id in `names`, in the `_ref` column.
        case named(String)
        /// `value`: a whole number is stored as one.
        case value
        /// `message`: into `event_messages`.
        case message
    }
    private static let columns: [Column] = eventColumns.map { column in
        switch column {
        case "device_id": .named("device_ref")
        case "process": .named("process_ref")
        case "bundle_id": .named("bundle_ref")
        case "bundle_via": .named("via_ref")
        case "kind": .named("kind_ref")
        case "pattern": .named("pattern_ref")
        case "value": .value
        case "message": .message
        default: .plain(column)
        }
    }
    private static let rowColumns = columns.compactMap { column -> String? in
        switch column {
        case .plain(let name), .named(let name): name
        case .value: "value"
        case .message: nil
        }
    }

    private let db: Database
    private let names: EventNames
    private let messages: MessageWriter
    private var statements: [String: Statement] = [:]

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
        for (column, value) in zip(Self.columns, values) {
            switch column {
            case .plain: bind(value)
            case .named: bind(try String.fromDatabaseValue(value).map { try names.id($0).databaseValue } ?? .null)
            case .value:
                // A value that is a whole number is stored as one (`Normaliser.value`): a text
                // `value` never reads as an integer. A store that keeps values as text gives it back.
                if let text = String.fromDatabaseValue(value), let number = Int64(text) {
                    bind(number.databaseValue)
                } else {
                    bind(value)
                }
            case .message: message = String.fromDatabaseValue(value) ?? ""
            }
        }
        let rc = sqlite3_step(stmt)
        sqlite3_reset(stmt)
        guard rc == SQLITE_DONE else { throw EventWriter.error(rc, db) }
        guard let id = Int64.fromDatabaseValue(values[0]) else { return }
        try messages.write(id: id, message: message)
    }
}
