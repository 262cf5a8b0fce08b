import Foundation
import GRDB
// A user's statement names its parameters: GRDB does not expose a statement's parameter names.
import GRDBSQLite

/// Rows a query returned, as SQLite gave them.
public struct QueryResult: Sendable {
    public var columns: [String]
    public var rows: [[DatabaseValue]]

    public init(columns: [String], rows: [[DatabaseValue]]) { (self.columns, self.rows) = (columns, rows) }
}

/// Runs SQL on a read-only connection, with bound parameters.
public enum QueryRunner {
    /// Runs one statement and returns every row (`stream` gathered).
    public static func run(_ sql: String, parameters: [String: String] = [:], defaults: [String: String] = [:],
                           store: Store) throws -> QueryResult {
        var result = QueryResult(columns: [], rows: [])
        try stream(sql, parameters: parameters, defaults: defaults, store: store,
                   columns: { result.columns = $0 }, row: { result.rows.append($0); return true })
        return result
    }

    /// Runs one statement, its rows handed to `row` one by one as SQLite steps to them, its
    /// column names to `columns` first: nothing is held. Parameters are bound by name
    /// (`:device`); a statement that would write, or a parameter that is missing or unknown, is
    /// refused before anything runs. `row` returns false to stop (the reader has gone): the
    /// rest is never read. After `timeout` seconds the statement is interrupted: a `QueryError`.
    public static func stream(_ sql: String, parameters: [String: String] = [:], defaults: [String: String] = [:],
                              store: Store, timeout: Double? = nil,
                              columns: ([String]) throws -> Void, row: ([DatabaseValue]) throws -> Bool) throws {
        let queue = try store.connect(readOnly: true)
        // sqlite3_interrupt from another thread: the statement stops with SQLITE_INTERRUPT.
        let timer = timeout.map { seconds in
            let timer = DispatchSource.makeTimerSource(queue: .global())
            timer.schedule(deadline: .now() + seconds)
            timer.setEventHandler { queue.interrupt() }
            timer.resume()
            return timer
        }
        defer { timer?.cancel() }
        try queue.read { db in
            let statement = try single(sql, in: db)
            guard statement.isReadonly else {
                throw QueryError(wouldWrite)
            }
            // SQLite counts ATTACH and DETACH as read-only (they change the connection, not a
            // file), and fts3_tokenizer hands out (or, with two arguments, takes) a process
            // address: refused as the writes are, before anything runs.
            if let name = try connectionChange(sql, in: db) {
                throw QueryError("\(name) is refused: `locaudit query` only reads its own store (ATTACH, DETACH and fts3_tokenizer are not run). Use the sqlite3 shell to join other databases.")
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
            let columnNames = statement.columnNames
            try columns(columnNames)
            do {
                let rows = try Row.fetchCursor(statement)
                while let next = try rows.next() {
                    guard try row(columnNames.indices.map { next[$0] as DatabaseValue }) else { break }
                }
            } catch let error as DatabaseError where error.resultCode == .SQLITE_INTERRUPT && timeout != nil {
                throw QueryError("the query ran longer than --timeout \(Self.seconds(timeout!)) s and was stopped (the rows before it were printed): "
                                 + "narrow it (a WHERE, a LIMIT) or give it more time.")
            } catch let error as DatabaseError where error.resultCode == .SQLITE_READONLY {
                throw QueryError(wouldWrite)
            } catch let error as DatabaseError where !StoreError.isStoreFailure(error) {
                throw QueryError("the query failed: \(error.message ?? "SQLite result code \(error.extendedResultCode.rawValue)").")
            }
        }
    }

    /// A number of seconds as given: `30`, `0.5`.
    static func seconds(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    public static let wouldWrite = "this statement would change the database; `locaudit query` only reads. Use the sqlite3 shell for changes."
    public static let oneAtATime = "`locaudit query` runs one statement at a time, and this SQL holds more than one (a `;` followed by more SQL): "
        + "run them one by one, or join them into one SELECT (a subquery or WITH)."
    public static let noStatement = "the SQL holds no statement; give one, e.g. --sql \"SELECT count(*) FROM events\"."

    /// The one statement of `sql` (a trailing `;` or comment is fine), compiled. A problem of
    /// the store itself (damaged, unreadable) is left to `StoreError`.
    static func single(_ sql: String, in db: Database) throws -> Statement {
        let statements: SQLStatementCursor
        let statement: Statement?
        do {
            statements = try db.allStatements(sql: sql)
            statement = try statements.next()
        } catch let error as DatabaseError where !StoreError.isStoreFailure(error) {
            // A write to `events`, a view, does not even compile: say what any write gets.
            if error.message?.hasPrefix("cannot modify ") == true, error.message?.hasSuffix(" because it is a view") == true {
                throw QueryError(wouldWrite)
            }
            throw QueryError("the SQL does not compile: \(error.message ?? "SQLite result code \(error.extendedResultCode.rawValue)").")
        }
        guard let statement else { throw QueryError(noStatement) }
        // Whatever follows, compiling or not, is another statement.
        let more: Bool
        do { more = try statements.next() != nil } catch { more = true }
        guard !more else {
            throw QueryError(oneAtATime)
        }
        return statement
    }

    /// The functions SQLite compiles ATTACH, DETACH and `fts3_tokenizer` into, by the name a
    /// user knows them by.
    static let refusedFunctions = ["sqlite_attach(": "ATTACH", "sqlite_detach(": "DETACH", "fts3_tokenizer(": "fts3_tokenizer"]

    /// The refused operation the statement would run, read from its program (`EXPLAIN`:
    /// each call's function is named in `p4`, `sqlite_attach(3)`); nil when none.
    static func connectionChange(_ sql: String, in db: Database) throws -> String? {
        // Parameters stay unbound (NULL): the program is the same.
        guard let explain = try? db.makeStatement(sql: "EXPLAIN " + sql) else { return nil }
        explain.setUncheckedArguments(StatementArguments())
        guard let program = try? Row.fetchAll(explain) else { return nil }
        for row in program {
            guard case .string(let p4) = (row["p4"] as DatabaseValue).storage else { continue }
            if let name = refusedFunctions.first(where: { p4.hasPrefix($0.key) })?.value { return name }
        }
        return nil
    }

    /// Runs a saved query with its parameters' defaults.
    public static func run(_ query: SavedQuery, parameters: [String: String] = [:], store: Store) throws -> QueryResult {
        try run(query.sql, parameters: parameters, defaults: query.defaults, store: store)
    }
}
