import Foundation
import GRDB
import LocAuditRead
import LocAuditStore
import NIOCore
import PostgresNIO

/// `locaudit query --db postgresql://…`: one statement on the central store, read-only, with
/// the saved queries' `:name` parameters, its rows as `QueryRunner` gives SQLite's (the same
/// `QueryResult`, so every `QueryFormat` prints them alike).
public enum CentralQuery {
    /// Runs one statement in a read-only transaction whose unqualified names are the
    /// `locaudit` schema's. A statement that would write, more than one statement, a missing
    /// or unknown parameter, an SQL error: a `QueryError` (exit 1); the server cannot be used:
    /// a `CentralError` (exit 8).
    /// `timeout`: the server stops each of its statements after that many seconds (its
    /// `statement_timeout`, for this transaction only): a `QueryError`. The rows go to `rows`
    /// as the server sends them.
    public static func stream(_ sql: String, parameters: [String: String] = [:], defaults: [String: String] = [:],
                              url: CentralURL, timeout: Double? = nil,
                              environment: [String: String] = ProcessInfo.processInfo.environment, to rows: CentralRows) throws {
        let statement = try Statement(sql)
        let unknown = Set(parameters.keys).subtracting(statement.names)
        guard unknown.isEmpty else {
            throw QueryError("unknown parameter \(unknown.sorted().map { "'\($0)'" }.joined(separator: ", ")); this query takes \(statement.names.isEmpty ? "none" : statement.names.map { "'\($0)'" }.joined(separator: ", ")).")
        }
        let values = try statement.names.map { name in
            guard let value = parameters[name] ?? defaults[name] else {
                throw QueryError("missing parameter '\(name)': add --param \(name)=VALUE.")
            }
            return value
        }
        try Central.blocking { try await stream(statement, values: values, url: url, timeout: timeout, environment: environment, rows) }
    }

    /// Every row of one statement (`stream` gathered).
    public static func run(_ sql: String, parameters: [String: String] = [:], defaults: [String: String] = [:],
                           url: CentralURL, timeout: Double? = nil,
                           environment: [String: String] = ProcessInfo.processInfo.environment) throws -> QueryResult {
        let result = Locked(QueryResult(columns: [], rows: []))
        try stream(sql, parameters: parameters, defaults: defaults, url: url, timeout: timeout, environment: environment,
                   to: CentralRows(columns: { names in result.withLock { $0.columns = names } },
                                   row: { row in result.withLock { $0.rows.append(row) }; return true }))
        return result.withLock { $0 }
    }

    /// A saved query with its parameters' defaults, in its PostgreSQL form (`-- postgresql:`).
    public static func run(_ query: SavedQuery, parameters: [String: String] = [:], url: CentralURL, timeout: Double? = nil,
                           environment: [String: String] = ProcessInfo.processInfo.environment) throws -> QueryResult {
        try run(try query.postgresqlSQL(), parameters: parameters, defaults: query.defaults, url: url, timeout: timeout, environment: environment)
    }

    /// A saved query's rows as the server sends them (`stream`).
    public static func stream(_ query: SavedQuery, parameters: [String: String] = [:], url: CentralURL, timeout: Double? = nil,
                              environment: [String: String] = ProcessInfo.processInfo.environment, to rows: CentralRows) throws {
        try stream(try query.postgresqlSQL(), parameters: parameters, defaults: query.defaults, url: url, timeout: timeout,
                   environment: environment, to: rows)
    }

    /// The SQLSTATE of a statement that would write in a read-only transaction.
    static let readOnlyViolation = "25006"

    static func stream(_ statement: Statement, values: [String], url: CentralURL, timeout: Double?, environment: [String: String],
                       _ rows: CentralRows) async throws {
        let central = try await Central.connect(url, environment: environment)
        defer { Task { [central] in await central.close() } }
        // Read-only, and one snapshot for both passes (below).
        try await central.beginSnapshot()
        // Unqualified names are locaudit's; set by a SELECT, so that the transaction has its
        // snapshot and cannot be made read-write any more.
        try await central.execute("SELECT set_config('search_path', 'locaudit', true)")
        if let timeout, timeout.isFinite, timeout > 0 {
            // In milliseconds (bound as text), at least 1: 0 would be none.
            let milliseconds = String(Int64(min(max(timeout * 1000, 1), 1e15)))
            try await central.execute("SELECT set_config('statement_timeout', \(milliseconds), true)")
        }
        let (columns, types, done) = try await fetch(statement.sql, values: values, central: central, rows: rows)
        var stopped = done
        if types.contains(where: { !Self.decoded.contains($0) }) {
            // Types this decoder does not read (a timestamp, an array, an interval): those
            // columns again, cast to text (as psql prints them), in the same snapshot.
            let names = types.indices.map { "c\($0 + 1)" }
            let wrapped = "SELECT " + zip(names, types).map { Self.decoded.contains($1) ? "q.\($0)" : "q.\($0)::text" }.joined(separator: ", ")
                + " FROM (\n" + statement.sql + "\n) AS q(" + names.joined(separator: ", ") + ")"
            stopped = try await fetch(wrapped, values: values, central: central, rows: rows, columns: columns).stopped
        }
        // Stopped early, the connection still has the statement's rows coming: closed at once
        // (the server ends the transaction), never waited for.
        if !stopped { _ = try? await central.execute("ROLLBACK") }
        await central.close()
    }

    /// The types `value(_:)` reads; a column of another type is read as its text form.
    static let decoded: Set<PostgresDataType> = [.int2, .int4, .int8, .float4, .float8, .numeric, .bool,
                                                  .text, .varchar, .bpchar, .name, .json, .jsonb, .unknown, .bytea]

    /// Runs `sql`, its rows to `rows` under `columns` (else the server's names), and returns its
    /// columns and their types. When a type is not `decoded`, no row is handed on (a second
    /// pass reads it as text).
    private static func fetch(_ sql: String, values: [String], central: Central, rows: CentralRows,
                              columns: [String]? = nil) async throws -> (columns: [String], types: [PostgresDataType], stopped: Bool) {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values { bindings.append(Untyped(text: value)) }
        // What `rows` throws (standard output cannot be written, a json name twice) is its own error, not the server's.
        var handedOn: (any Error)?
        var result: (columns: [String], types: [PostgresDataType], stopped: Bool)
        do {
            let sequence = try await central.connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: Central.logger)
            result = (sequence.columns.map(\.name), sequence.columns.map(\.dataType), false)
            if result.types.contains(where: { !decoded.contains($0) }) {
                for try await _ in sequence {}   // read to its end: the connection goes on
                return result
            }
            do { try rows.columns(columns ?? result.columns) } catch { handedOn = error }
            if handedOn == nil {
                for try await row in sequence {
                    // The reader has gone: the rest of the rows is not read.
                    do { guard try rows.row(row.map(value)) else { result.stopped = true; break } } catch { handedOn = error; break }
                }
            }
        } catch {
            throw failure(error, url: central.url)
        }
        if let handedOn { throw handedOn }
        return result
    }

    /// A cell of a `decoded` type as SQLite would hold it.
    static func value(_ cell: PostgresCell) -> DatabaseValue {
        guard var bytes = cell.bytes else { return .null }
        // The types of the events' columns read straight from the binary form, as the driver's
        // `decode` reads them, without its generic path (the fleet audit's copy decodes 4 M cells).
        if cell.format == .binary {
            switch cell.dataType {
            case .int8 where bytes.readableBytes == 8:
                if let n = bytes.getInteger(at: bytes.readerIndex, as: Int64.self) { return n.databaseValue }
            case .float8 where bytes.readableBytes == 8:
                if let bits = bytes.getInteger(at: bytes.readerIndex, as: UInt64.self) { return Double(bitPattern: bits).databaseValue }
            case .text, .varchar:
                return String(buffer: bytes).databaseValue
            default: break
            }
        }
        switch cell.dataType {
        case .int2, .int4, .int8:
            return (try? cell.decode(Int64.self))?.databaseValue ?? .null
        case .float4, .float8:
            return (try? cell.decode(Double.self))?.databaseValue ?? .null
        case .numeric:
            // NaN and the infinities, which a Decimal cannot hold, by the sign field of the
            // binary form (ndigits, weight, sign, dscale: 16 bits each).
            switch bytes.getInteger(at: bytes.readerIndex + 4, as: UInt16.self) {
            case 0xC000: return Double.nan.databaseValue
            case 0xD000: return Double.infinity.databaseValue
            case 0xF000: return (-Double.infinity).databaseValue
            default: break
            }
            // Integral and in range: an integer, as SQLite's sum() of integers; else a real.
            guard let decimal = try? cell.decode(Decimal.self) else { return Double.nan.databaseValue }
            let text = "\(decimal)"
            if let integer = Int64(text) { return integer.databaseValue }
            return (Double(text) ?? .nan).databaseValue
        case .bool:
            return ((try? cell.decode(Bool.self)) == true ? 1 : 0).databaseValue
        case .bytea:
            return Data(bytes.readBytes(length: bytes.readableBytes) ?? []).databaseValue
        default:
            return (try? cell.decode(String.self))?.databaseValue ?? .null
        }
    }

    /// A driver error while the statement runs: the server's own sentence for an SQL error,
    /// `CentralError` for a server that cannot be used.
    static func failure(_ error: any Error, url: CentralURL) -> any Error {
        if let error = error as? PSQLError, error.code == .messageDecodingFailure || error.code == .unexpectedBackendMessage {
            // The server answered as to no query (COPY … TO STDOUT's copy data): the statement's doing.
            return QueryError("the server answered this statement with something other than rows (COPY … TO STDOUT?): "
                              + "use a SELECT, and --format csv for CSV.")
        }
        guard let error = error as? PSQLError, error.code == .server, let info = error.serverInfo else {
            return CentralError.from(error, url: url)
        }
        let state = info[.sqlState] ?? ""
        let message = info[.message] ?? "an error"
        switch state {
        case readOnlyViolation:
            return QueryError(QueryRunner.wouldWrite)
        case "57014" where message.contains("statement timeout"):
            return QueryError("the query ran longer than --timeout and the server stopped it: narrow it (a WHERE, a LIMIT) or give it more time.")
        case "42601" where message.contains("multiple commands"):
            return QueryError(QueryRunner.oneAtATime)
        case "42501":
            // The user's SQL reads what this role may not: the query's failure, not locaudit's.
            return QueryError("the query failed: \(message) (the role \(url.user) may not read it: docs/many-hosts.md shows the grants).")
        case _ where state.hasPrefix("08") || state.hasPrefix("28") || state.hasPrefix("57") || state.hasPrefix("53") || state == "3D000":
            return CentralError.from(error, url: url)
        default:
            return QueryError("the query failed: \(message).")
        }
    }

    /// A parameter's text, its type left to the server (OID 0, as psql's parameters): it is
    /// an integer in `LIMIT :limit`, text in `col = :x`.
    struct Untyped: PostgresDynamicTypeEncodable {
        let text: String
        var psqlType: PostgresDataType { .null }
        var psqlFormat: PostgresFormat { .text }
        func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
            byteBuffer.writeString(text)
        }
    }

    /// A statement with its `:name` parameters numbered `$1…` in the order they first appear.
    struct Statement: Equatable {
        var sql: String
        var names: [String]

        /// Translates `:name` outside string literals (`'…'`, `E'…'`, `$tag$…$tag$`), quoted
        /// identifiers, comments and `::` casts. A positional `$1` is refused (parameters are
        /// given by name), and so is SQL with no statement in it.
        init(_ source: String) throws {
            let s = Array(source.unicodeScalars)
            var out: [Unicode.Scalar] = []
            var names: [String] = []
            var hasStatement = false
            // Where the statement's last token ends in `out`: a trailing `;` or comment is cut.
            var end = 0
            var i = 0
            func isWord(_ c: Unicode.Scalar) -> Bool { c == "_" || c == "$" || c.properties.isAlphabetic || ("0"..."9").contains(c) }
            func isStart(_ c: Unicode.Scalar) -> Bool { c == "_" || c.properties.isAlphabetic }
            func copy(to end: Int) { out.append(contentsOf: s[i..<min(end, s.count)]); i = min(end, s.count) }
            while i < s.count {
                var significant = false
                defer { if significant { hasStatement = true; end = out.count } }
                let c = s[i]
                let next: Unicode.Scalar? = i + 1 < s.count ? s[i + 1] : nil
                if c == "-", next == "-" {                         // a comment to the end of the line
                    var j = i
                    while j < s.count, s[j] != "\n" { j += 1 }
                    copy(to: j)
                } else if c == "/", next == "*" {                  // a block comment; they nest
                    var depth = 0, j = i
                    repeat {
                        if j + 1 < s.count, s[j] == "/", s[j + 1] == "*" { depth += 1; j += 2 }
                        else if j + 1 < s.count, s[j] == "*", s[j + 1] == "/" { depth -= 1; j += 2 }
                        else { j += 1 }
                    } while depth > 0 && j < s.count
                    copy(to: j)
                } else if c == "'" || c == "\"" {                 // a string or a quoted identifier: '' and "" double
                    significant = true
                    // E'…' takes backslash escapes: the E a word of its own.
                    let prefix: Unicode.Scalar? = i > 0 ? s[i - 1] : nil
                    let standalone = i < 2 || !isWord(s[i - 2])
                    let escapes = c == "'" && (prefix == "E" || prefix == "e") && standalone
                    var j = i + 1
                    while j < s.count {
                        if escapes, s[j] == "\\" { j += 2; continue }
                        if s[j] == c { if j + 1 < s.count, s[j + 1] == c { j += 2; continue }; break }
                        j += 1
                    }
                    copy(to: j + 1)
                } else if c == "$" {
                    significant = true
                    var j = i + 1
                    while j < s.count, isWord(s[j]), s[j] != "$" { j += 1 }
                    if j < s.count, s[j] == "$", j == i + 1 || isStart(s[i + 1]) {   // $tag$ … $tag$
                        let tag = Array(s[i...j])
                        var k = j + 1
                        while k < s.count, !(s[k] == "$" && k + tag.count <= s.count && Array(s[k..<(k + tag.count)]) == tag) { k += 1 }
                        copy(to: k + tag.count)
                    } else if let next, ("0"..."9").contains(next) {
                        throw QueryError("positional parameters ($1) cannot be given on the command line; name them (:device) and pass --param device=VALUE.")
                    } else {
                        copy(to: i + 1)
                    }
                } else if isWord(c) {                              // a word whole: a `$` or digits in it are its own
                    significant = true
                    var j = i
                    while j < s.count, isWord(s[j]) { j += 1 }
                    copy(to: j)
                } else if c == ":", next == ":" {                  // a cast
                    significant = true
                    copy(to: i + 2)
                } else if c == ":", let next, isStart(next) {      // a parameter
                    significant = true
                    var j = i + 1
                    while j < s.count, isWord(s[j]), s[j] != "$" { j += 1 }
                    let name = String(String.UnicodeScalarView(s[(i + 1)..<j]))
                    if !names.contains(name) { names.append(name) }
                    out.append(contentsOf: "$\(names.firstIndex(of: name)! + 1)".unicodeScalars)
                    i = j
                } else {
                    significant = !c.properties.isWhitespace && c != ";"
                    copy(to: i + 1)
                }
            }
            guard hasStatement else { throw QueryError(QueryRunner.noStatement) }
            // A trailing `;` or comment would end the text-form pass's subquery early.
            self.sql = String(String.UnicodeScalarView(out.prefix(end)))
            self.names = names
        }
    }
}

/// Where a central query's rows go: `columns` once, then `row` for each (false: stop). Called
/// from the query's task, one call at a time, while the caller waits for it (`Central.blocking`).
public struct CentralRows: @unchecked Sendable {
    public var columns: ([String]) throws -> Void
    public var row: ([DatabaseValue]) throws -> Bool

    public init(columns: @escaping ([String]) throws -> Void, row: @escaping ([DatabaseValue]) throws -> Bool) {
        (self.columns, self.row) = (columns, row)
    }
}
