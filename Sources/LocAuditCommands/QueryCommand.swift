import ArgumentParser
import Foundation
import LocAuditCentral
import LocAuditRead
import LocAuditStore

extension QueryFormat: ExpressibleByArgument {}

struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Ask the database a question in SQL: a saved query by name, a .sql file, or --sql.",
        // ArgumentParser does not wrap the synopsis: one line per form, each narrower than a terminal.
        usage: """
            locaudit query [<options>] <name|file.sql> [--param <key=value> ...]
            locaudit query [<options>] --sql <sql> [--param <key=value> ...]
            locaudit query --list
            """,
        discussion: """
            The connection is read-only: a statement that would write is refused and \
            changes nothing. Parameters are bound (:name in the SQL, --param name=VALUE \
            here), never spliced into the SQL. Saved queries are looked for in \
            --queries DIR, $LOCAUDIT_QUERIES, ./queries, the installed folder beside the \
            binary (../share/locaudit/queries) and the queries folder of the checkout it \
            was built in, in that order (the first query of a name wins); finding none, \
            --list says where it looked (exit 1). One statement at a time. A read-only store is fine. A number \
            SQLite holds as infinite is Infinity or -Infinity in table and csv, null in \
            json; two columns of one name are refused in json (name them apart with AS). \
            Rows are printed as they are read (a table once its first 1000 rows have sized \
            its columns); a reader that closes the output (| head) ends the query there. \
            --timeout SECONDS stops a statement that runs longer.

            --db postgresql://USER@HOST[:PORT]/DB (or $LOCAUDIT_DB) runs it on the central \
            store, in a read-only transaction, with the names of its locaudit schema; a \
            saved query's `-- postgresql: A => B` header lines say where its SQL differs \
            there. The password comes from PGPASSWORD or ~/.pgpass.

            Exit codes: 0 rows printed (or none), 1 the query failed (or ran past \
            --timeout, or no saved query was found), 2 usage error, 3 no \
            database, 6 the store cannot be used (cannot open it, not a locaudit store, \
            damaged), 7 standard output could not be written, 8 the central store cannot \
            be used (unreachable, login or TLS refused, no locaudit schema).

            EXAMPLES:
              locaudit query --list
              locaudit query findings-by-rule-and-app
              locaudit query session-timeline --param bundle=com.example.weather \\
                  --param pid=1053
              locaudit query --sql "SELECT count(*) AS events FROM events" --format csv
            """
    )

    @OptionGroup var store: StoreOrCentralOptions

    @Argument(help: ArgumentHelp("A saved query's name, or a .sql file.", valueName: "name|file.sql"), completion: Complete.queries)
    var query: String?

    @Option(help: ArgumentHelp("SQL to run instead of a saved query.", valueName: "sql"))
    var sql: String?

    @Option(name: .customLong("param"), help: ArgumentHelp("A parameter, KEY=VALUE; repeatable.", valueName: "key=value"))
    var params: [String] = []

    @Option(help: ArgumentHelp("Output format.", valueName: "format"))
    var format: QueryFormat = .table

    @Option(help: ArgumentHelp("Stop the query after this many seconds (exit 1).", valueName: "seconds"))
    var timeout: Double?

    @Option(help: ArgumentHelp("A folder of saved queries (.sql files), looked in first.", valueName: "dir"), completion: .directory)
    var queries: String?

    @Flag(help: "List the saved queries with their descriptions and parameters.")
    var list = false

    func validate() throws {
        let chosen = [query != nil, sql != nil, list].filter { $0 }.count
        try requirePath(queries, "--queries", "a folder (of saved queries, .sql files)")
        if let queries {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: queries, isDirectory: &isDir), isDir.boolValue else {
                throw ValidationError("--queries \(queries): no such folder; give the folder that holds the saved queries (.sql files).")
            }
        }
        if chosen != 1 { throw ValidationError("Give exactly one of: a saved query's name or a .sql file, --sql \"SELECT ...\", or --list.") }
        if let timeout, !(timeout > 0 && timeout <= 1e9) {
            throw ValidationError("--timeout takes a number of seconds above 0 (e.g. 30 or 0.5), at most 1e9 (got \(timeout)).")
        }
        for p in params where p.firstIndex(of: "=").map({ $0 == p.startIndex }) ?? true {
            throw ValidationError("--param takes KEY=VALUE, a name before the = (got '\(p)').")
        }
    }

    func run() throws {
        let folders = SavedQuery.directories(explicit: queries)
        if list {
            let found = SavedQuery.all(in: folders)
            if found.isEmpty {
                printError(SavedQuery.noneFound(in: folders))
                throw ExitCode(1)
            }
            var out = ""
            for q in found {
                out += q.name + "\n"
                if !q.description.isEmpty { out += "  \(q.description)\n" }
                for p in q.parameters {
                    out += "  --param \(p.name)=…" + (p.defaultValue.map { " (default \($0))" } ?? " (required)") + (p.description.isEmpty ? "" : "  \(p.description)") + "\n"
                }
            }
            try Output.standardOutput(out)
            return
        }
        var values: [String: String] = [:]
        for p in params {
            let parts = p.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            values[String(parts[0])] = String(parts[1])
        }
        let output = QueryOutput(format)
        if let central = store.central {
            // Each row printed as the server sends it.
            let rows = CentralRows(columns: output.columns, row: output.row)
            try output.run {
                try withCentral {
                    if let sql {
                        try CentralQuery.stream(sql, parameters: values, url: central, timeout: timeout, to: rows)
                    } else {
                        try CentralQuery.stream(try SavedQuery.find(query!, in: folders), parameters: values, url: central, timeout: timeout, to: rows)
                    }
                }
            }
            return
        }
        try withStore(store.path) {
            let store = try Store(path: store.path, access: .read)
            let saved = try sql == nil ? SavedQuery.find(query!, in: folders) : nil
            // Each row printed as SQLite steps to it: nothing held but a table's first rows.
            try output.run {
                try QueryRunner.stream(saved?.sql ?? sql!, parameters: values, defaults: saved?.defaults ?? [:], store: store, timeout: timeout,
                                       columns: output.columns, row: output.row)
            }
        }
    }
}
