import GRDB
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
    /// The columns of `event_rows` those become: ids into `names` where `events` has names.
    private static let rowColumns = eventColumns.filter { $0 != "message" }.map { column in
        switch column {
        case "device_id": "device_ref"
        case "process": "process_ref"
        case "bundle_id": "bundle_ref"
        case "bundle_via": "via_ref"
        case "kind": "kind_ref"
        case "pattern": "pattern_ref"
        default: column
        }
    }
    private static let named: Set<String> = ["device_id", "process", "bundle_id", "bundle_via", "kind", "pattern"]

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

    /// An event, its values in the order of `eventColumns`.
    package func event(_ values: [DatabaseValue]) throws {
        let statement = try statements["event_rows"] ?? db.makeStatement(sql: """
            INSERT INTO event_rows (\(Self.rowColumns.joined(separator: ", ")))
            VALUES (\(Array(repeating: "?", count: Self.rowColumns.count).joined(separator: ", ")))
            """)
        statements["event_rows"] = statement
        var row: [DatabaseValue] = []
        row.reserveCapacity(Self.rowColumns.count)
        var message = ""
        for (column, value) in zip(Self.eventColumns, values) {
            switch column {
            case "message": message = String.fromDatabaseValue(value) ?? ""
            case _ where Self.named.contains(column):
                row.append(try String.fromDatabaseValue(value).map { try names.id($0).databaseValue } ?? .null)
            case "value":
                // A value that is a whole number is stored as one (`Normaliser.value`): a text
                // `value` never reads as an integer. A store that keeps values as text gives it back.
                if let text = String.fromDatabaseValue(value), let number = Int64(text) {
                    row.append(number.databaseValue)
                } else {
                    row.append(value)
                }
            default: row.append(value)
            }
        }
        try statement.execute(arguments: StatementArguments(row))
        guard let id = Int64.fromDatabaseValue(values[0]) else { return }
        try messages.write(id: id, message: message)
    }
}
