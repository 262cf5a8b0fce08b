import Foundation
import GRDB
import GRDBSQLite

/// Rows a query returned, as SQLite gave them.
public struct QueryResult: Sendable {
    public var columns: [String]
    public var rows: [[DatabaseValue]]
}

/// Runs SQL on a read-only connection, with bound parameters.
public enum QueryRunner {
    /// Runs one statement. Parameters are bound by name (`:device`); a statement that
    /// would write, or a parameter that is missing or unknown, is refused before anything runs.
    public static func run(_ sql: String, parameters: [String: String] = [:], defaults: [String: String] = [:],
                           store: Store) throws -> QueryResult {
        let queue = try store.connect(readOnly: true)
        return try queue.read { db in
            let statement: Statement
            do {
                statement = try db.makeStatement(sql: sql)
            } catch let error as DatabaseError {
                throw QueryError("the SQL does not compile: \(error.message ?? "\(error)").")
            }
            guard statement.isReadonly else {
                throw QueryError("this statement would change the database; `locaudit query` only reads. Use the sqlite3 shell for changes.")
            }
            let count = sqlite3_bind_parameter_count(statement.sqliteStatement)
            var names: [String] = []
            for i in stride(from: Int32(1), through: count, by: 1) {
                guard let cName = sqlite3_bind_parameter_name(statement.sqliteStatement, i) else {
                    throw QueryError("positional parameters (?) cannot be given on the command line; name them (:device) and pass --param device=VALUE.")
                }
                names.append(String(String(cString: cName).dropFirst()))
            }
            let unknown = Set(parameters.keys).subtracting(names)
            guard unknown.isEmpty else {
                throw QueryError("unknown parameter \(unknown.sorted().map { "'\($0)'" }.joined(separator: ", ")); this query takes \(names.isEmpty ? "none" : names.map { "'\($0)'" }.joined(separator: ", ")).")
            }
            var values: [String: DatabaseValueConvertible?] = [:]
            for name in names {
                guard let value = parameters[name] ?? defaults[name] else {
                    throw QueryError("missing parameter '\(name)': add --param \(name)=VALUE.")
                }
                values[name] = value
            }
            statement.setUncheckedArguments(StatementArguments(values))
            let columns = statement.columnNames
            let rows = try Row.fetchAll(statement).map { row in columns.indices.map { row[$0] as DatabaseValue } }
            return QueryResult(columns: columns, rows: rows)
        }
    }

    /// Runs a saved query with its parameters' defaults.
    public static func run(_ query: SavedQuery, parameters: [String: String] = [:], store: Store) throws -> QueryResult {
        var defaults: [String: String] = [:]
        for p in query.parameters { if let d = p.defaultValue { defaults[p.name] = d } }
        return try run(query.sql, parameters: parameters, defaults: defaults, store: store)
    }
}
