import Foundation

/// A query kept in a `.sql` file, with a header that says what it is:
///
/// ```sql
/// -- name: findings-by-rule
/// -- description: Findings of the latest audit run, by rule and app.
/// -- param: run = latest   the audit run (an id from audit_runs)
/// SELECT ...
/// ```
///
/// Parameters are SQLite named parameters (`:run`), bound, never spliced into the SQL.
///
/// The SQL runs on SQLite as written and on the central PostgreSQL store too. Where the two
/// must differ, a header line says how, once, as an exact text replacement made for PostgreSQL:
///
/// ```sql
/// -- postgresql: group_concat(bundle_id) => string_agg(bundle_id, ',' ORDER BY bundle_id)
/// ```
public struct SavedQuery: Sendable, Equatable {
    /// A `-- postgresql: SQLITE => POSTGRESQL` line: every `sqlite` text of the SQL is `postgresql` there.
    public struct Replacement: Sendable, Equatable {
        public var sqlite: String
        public var postgresql: String
    }

    public struct Parameter: Sendable, Equatable {
        public var name: String
        /// Used when the user gives none; nil means the parameter is required.
        public var defaultValue: String?
        public var description: String
    }

    public var name: String
    public var description: String
    public var parameters: [Parameter]
    public var postgresql: [Replacement] = []
    public var sql: String
    public var path: String?

    /// The parameters' defaults, by name (a required parameter has none).
    public var defaults: [String: String] {
        var defaults: [String: String] = [:]
        for p in parameters { if let d = p.defaultValue { defaults[p.name] = d } }
        return defaults
    }

    /// Reads a query file's header and SQL.
    public static func parse(_ text: String, path: String? = nil) throws -> SavedQuery {
        var query = SavedQuery(name: "", description: "", parameters: [], sql: text, path: path)
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("--") else { if !trimmed.isEmpty { break } else { continue } }
            let body = trimmed.dropFirst(2).trimmingCharacters(in: .whitespaces)
            if body.hasPrefix("name:") {
                query.name = body.dropFirst(5).trimmingCharacters(in: .whitespaces)
            } else if body.hasPrefix("description:") {
                query.description = body.dropFirst(12).trimmingCharacters(in: .whitespaces)
            } else if body.hasPrefix("param:") {
                query.parameters.append(try parameter(body.dropFirst(6).trimmingCharacters(in: .whitespaces), in: path))
            } else if body.hasPrefix(replacementPrefix) {
                let spec = body.dropFirst(replacementPrefix.count)
                guard let arrow = spec.range(of: " => ") else {
                    throw QueryError("\(path ?? "query"): a `-- postgresql:` line takes the SQL's exact text, ` => ` and what PostgreSQL runs instead: `-- postgresql: group_concat(x) => string_agg(x, ',')`.")
                }
                query.postgresql.append(Replacement(sqlite: spec[..<arrow.lowerBound].trimmingCharacters(in: .whitespaces),
                                                    postgresql: spec[arrow.upperBound...].trimmingCharacters(in: .whitespaces)))
            }
        }
        // An edit of the SQL that the header line no longer matches must not go unnoticed.
        _ = try query.postgresqlSQL()
        if query.name.isEmpty {
            query.name = path.map { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent } ?? "query"
        }
        return query
    }

    static let replacementPrefix = "postgresql:"

    /// The SQL as PostgreSQL runs it: the `-- postgresql:` lines made, each of them dropped.
    /// A line whose SQLite text the SQL does not hold is an error naming the file.
    public func postgresqlSQL() throws -> String {
        var sql = self.sql.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { line in
                let text = line.trimmingCharacters(in: .whitespaces)
                return !(text.hasPrefix("--") && text.dropFirst(2).trimmingCharacters(in: .whitespaces).hasPrefix(Self.replacementPrefix))
            }
            .joined(separator: "\n")
        for replacement in postgresql {
            guard !replacement.sqlite.isEmpty, sql.contains(replacement.sqlite) else {
                throw QueryError("\(path ?? name): the `-- postgresql:` line replaces '\(replacement.sqlite)', which the SQL does not hold (any more): "
                                 + "make the line's left side the SQL's exact text, so that both engines run the same query.")
            }
            sql = sql.replacingOccurrences(of: replacement.sqlite, with: replacement.postgresql)
        }
        return sql
    }

    /// `run = latest   the audit run`, or `device   the device id` (required).
    private static func parameter(_ spec: String, in path: String?) throws -> Parameter {
        let words = spec.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard let name = words.first, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
            throw QueryError("\(path ?? "query"): a `-- param:` line needs a name: `-- param: NAME [= DEFAULT] description`.")
        }
        if words.count >= 3, words[1] == "=" {
            return Parameter(name: name, defaultValue: words[2], description: words.dropFirst(3).joined(separator: " "))
        }
        return Parameter(name: name, defaultValue: nil, description: words.dropFirst().joined(separator: " "))
    }

    /// Where saved queries are looked for, in order: `--queries DIR` (`explicit`),
    /// `$LOCAUDIT_QUERIES`, `./queries`, the installed folder beside the binary
    /// (`BIN/../share/locaudit/queries`, as `scripts/install.sh` lays it out), then the
    /// `queries` folder of the checkout the binary was built in (`swift run`, `.build/debug`).
    public static func directories(explicit: String? = nil) -> [URL] {
        var dirs: [URL] = []
        if let explicit, !explicit.isEmpty { dirs.append(URL(fileURLWithPath: explicit)) }
        if let env = ProcessInfo.processInfo.environment["LOCAUDIT_QUERIES"], !env.isEmpty {
            dirs.append(URL(fileURLWithPath: env))
        }
        dirs.append(URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("queries"))
        var dir = executableDirectory()
        dirs.append(dir.deletingLastPathComponent().appendingPathComponent("share/locaudit/queries"))
        for _ in 0..<4 {
            dirs.append(dir.appendingPathComponent("queries"))
            dir.deleteLastPathComponent()
        }
        var seen = Set<String>()
        return dirs.filter { seen.insert($0.standardizedFileURL.path).inserted }
    }

    /// The folder of the running binary, its links resolved (a link in /usr/local/bin to an
    /// installed binary finds the installation's share folder).
    static func executableDirectory() -> URL {
        var path = CommandLine.arguments.first ?? ""
        // A bare name was found on PATH: the kernel's link names the file itself.
        if !path.contains("/"), let linked = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            path = linked
        }
        return URL(fileURLWithPath: path).resolvingSymlinksInPath().deletingLastPathComponent()
    }

    /// The sentence for a search that found no query: each folder looked in, and what to do.
    public static func noneFound(in directories: [URL]) -> String {
        let places = directories.map(\.path).joined(separator: ", ")
        return "no saved queries found: looked for .sql files in \(places). Give --queries DIR, set LOCAUDIT_QUERIES=DIR, "
            + "or install locaudit with scripts/install.sh (its queries go to PREFIX/share/locaudit/queries, beside PREFIX/bin/locaudit)."
    }

    /// Every saved query found, the first of each name winning, sorted by name.
    public static func all(in directories: [URL] = directories()) -> [SavedQuery] {
        var byName: [String: SavedQuery] = [:]
        for dir in directories {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
            for file in files.sorted() where file.hasSuffix(".sql") {
                let path = dir.appendingPathComponent(file).path
                guard let text = try? String(contentsOfFile: path, encoding: .utf8),
                      let query = try? parse(text, path: path), byName[query.name] == nil else { continue }
                byName[query.name] = query
            }
        }
        return byName.values.sorted { $0.name < $1.name }
    }

    /// A saved query by name, or a `.sql` file by path.
    public static func find(_ nameOrPath: String, in directories: [URL] = directories()) throws -> SavedQuery {
        if nameOrPath.hasSuffix(".sql") || nameOrPath.contains("/") {
            guard let text = try? String(contentsOfFile: nameOrPath, encoding: .utf8) else {
                throw QueryError("cannot read \(nameOrPath); check the path.")
            }
            return try parse(text, path: nameOrPath)
        }
        let known = all(in: directories)
        guard let query = known.first(where: { $0.name == nameOrPath }) else {
            // A file of that name that `all` left out for a header it cannot read: say what is wrong with it.
            for dir in directories {
                let path = dir.appendingPathComponent(nameOrPath + ".sql").path
                if let text = try? String(contentsOfFile: path, encoding: .utf8) { _ = try parse(text, path: path) }
            }
            if known.isEmpty { throw QueryError("no saved query named '\(nameOrPath)': " + noneFound(in: directories)) }
            throw QueryError("no saved query named '\(nameOrPath)'. `locaudit query --list` shows them: \(known.map(\.name).joined(separator: ", ")).")
        }
        return query
    }
}

/// A query that cannot run, in words a user can act on.
public struct QueryError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
