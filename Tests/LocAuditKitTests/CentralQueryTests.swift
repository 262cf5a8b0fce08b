import Foundation
import GRDB
import Testing
@testable import LocAuditUnitTests
@testable import LocAuditCentral
@testable import LocAuditStore
/// `query` and `stats` on the central store, against a real server (PostgresCluster) holding
/// the pushed samples.
@Suite(.needsPostgres, .tags(.endToEnd), .ownThreads)
struct CentralQueryTests {
    /// README's first command into a store of the test's own, audited, by the real binary.
    static func samplesHost() throws -> (Workspace, String) {
        let workspace = try Workspace()
        let db = workspace.dir.appendingPathComponent("host.sqlite").path
        let samples = ["samples/apps", "samples/logs", "samples/audit"].map { packageRoot.appendingPathComponent($0).path }
        let ingest = try run(locauditExecutable, ["ingest", "--db", db] + samples)
        #expect(ingest.status == 0, "\(ingest.stderr)")
        let audit = try run(locauditExecutable, ["audit", "--db", db])
        #expect([0, 1].contains(audit.status), "\(audit.stderr)")
        return (workspace, db)
    }

    static func pushed(_ db: String, to cluster: PostgresCluster) throws {
        let push = try run(locauditExecutable, ["push", "--db", db, "--to", cluster.url()],
                           environment: ["PGPASSWORD": cluster.password, "HOME": "/nonexistent"])
        #expect(push.status == 0, "\(push.stderr)")
    }

    static let queries = [packageRoot.appendingPathComponent("queries")]
    static let parameters: [String: [String: String]] = ["session-timeline": ["bundle": "com.example.weather", "pid": "1053"]]

    @Test("every saved query gives the same rows on the SQLite store and on the central store it was pushed to")
    func savedQueriesAgree() async throws {
        let (workspace, db) = try Self.samplesHost()
        _ = workspace
        try await PostgresCluster.with { cluster in
            try Self.pushed(db, to: cluster)
            let url = try CentralURL(cluster.url())
            let environment = ["PGPASSWORD": cluster.password, "HOME": "/nonexistent"]
            let store = try Store(path: db, access: .read)
            let all = SavedQuery.all(in: Self.queries)
            #expect(all.count >= 9)
            var empty: [String] = []
            for query in all {
                let parameters = Self.parameters[query.name] ?? [:]
                let local = try QueryRunner.run(query, parameters: parameters, store: store)
                if local.rows.isEmpty { empty.append(query.name) }
                do {
                    let central = try CentralQuery.run(query, parameters: parameters, url: url, environment: environment)
                    #expect(try QueryFormat.csv.render(central) == (try QueryFormat.csv.render(local)), "\(query.name)")
                    #expect(try QueryFormat.json.render(central) == (try QueryFormat.json.render(local)), "\(query.name)")
                } catch {
                    Issue.record("\(query.name) fails on PostgreSQL: \(error)")
                }
            }
            // A query with no rows proves nothing: only the one the samples are made to leave empty.
            #expect(empty == ["unlinked-app-lines"])
            // A device's apps in order on both engines: a second app, added after the first, sorts before it.
            let copy = """
                INSERT INTO findings (fingerprint, rule, severity, device_id, bundle_id, pid, os_version, session_start, time_us, time,
                                      message, evidence, first_run, last_run, resolved_run)
                SELECT 'later-' || fingerprint, rule, severity, device_id, 'com.example.a', pid, os_version, session_start, time_us, time,
                       message, evidence, first_run, last_run, resolved_run
                FROM findings WHERE rule = 'missing-blue-bar' AND resolved_run IS NULL
                """
            try DatabaseQueue(path: db).write { try $0.execute(sql: copy) }
            try cluster.psql("SET search_path = locaudit; " + copy)
            let blueBar = try #require(all.first { $0.name == "devices-missing-blue-bar" })
            let apps = try QueryRunner.run(blueBar, store: store)
            let appsCSV = try QueryFormat.csv.render(apps)
            #expect(!apps.rows.isEmpty && apps.rows.allSatisfy { QueryFormat.text($0[4]) == "com.example.a,com.example.runner" }, "\(appsCSV)")
            #expect(try QueryFormat.csv.render(CentralQuery.run(blueBar, url: url, environment: environment)) == appsCSV)

            // Parameters the server types itself: LIMIT, CAST, a comparison; the same sentences as SQLite's.
            let skipped = try #require(all.first { $0.name == "sources-most-skipped" })
            #expect(try CentralQuery.run(skipped, parameters: ["limit": "2"], url: url, environment: environment).rows.count == 2)
            let runs = try CentralQuery.run("SELECT count(*) AS n FROM findings WHERE first_run = CAST(:run AS INTEGER) AND bundle_id = :app",
                                            parameters: ["run": "1", "app": "com.example.runner"], url: url, environment: environment)
            #expect(runs.rows == (try QueryRunner.run("SELECT count(*) AS n FROM findings WHERE first_run = CAST(:run AS INTEGER) AND bundle_id = :app",
                                                      parameters: ["run": "1", "app": "com.example.runner"], store: store).rows))
            #expect(runs.rows.first?.first != 0.databaseValue)
            #expect { try CentralQuery.run("SELECT :a", url: url, environment: environment) } throws: { "\($0)" == "missing parameter 'a': add --param a=VALUE." }
            #expect { try CentralQuery.run("SELECT :a", parameters: ["a": "1", "b": "2"], url: url, environment: environment) } throws: {
                "\($0)".contains("unknown parameter 'b'; this query takes 'a'")
            }
        }
    }

    @Test("query --db postgresql://: the same table as on SQLite, writes refused with SQLite's sentence (exit 1, nothing written), SQL errors in the server's words, --timeout, $LOCAUDIT_DB, a wrong password exit 8")
    func theCommand() async throws {
        let (workspace, db) = try Self.samplesHost()
        _ = workspace
        try await PostgresCluster.with { cluster in
            try Self.pushed(db, to: cluster)
            let environment = ["PGPASSWORD": cluster.password, "HOME": "/nonexistent"]
            func query(_ arguments: [String], _ env: [String: String] = [:]) throws -> (status: Int32, stdout: String, stderr: String) {
                try run(locauditExecutable, ["query"] + arguments, environment: environment.merging(env) { $1 })
            }
            let local = try query(["--db", db, "findings-by-rule-and-app"])
            let central = try query(["--db", cluster.url(), "findings-by-rule-and-app"])
            #expect(central.status == 0, "\(central.stderr)")
            #expect(central.stdout == local.stdout && local.stdout.contains("missing-blue-bar"))
            let viaEnvironment = try query(["findings-by-rule-and-app"], ["LOCAUDIT_DB": cluster.url()])
            #expect(viaEnvironment.status == 0 && viaEnvironment.stdout == local.stdout, "\(viaEnvironment.stderr)")

            let before = try cluster.psql("SELECT (SELECT count(*) FROM locaudit.events) || ' ' || (SELECT count(*) FROM locaudit.devices)")
            for sql in ["DELETE FROM events", "UPDATE findings SET rule = 'x'", "INSERT INTO devices (id, updated_at) VALUES ('x', 'y')",
                        "CREATE TABLE t (x int)", "DROP TABLE findings", "SELECT nextval('locaudit.sources_id_seq')",
                        "WITH gone AS (DELETE FROM events RETURNING id) SELECT count(*) FROM gone"] {
                let refused = try query(["--db", cluster.url(), "--sql", sql])
                #expect(refused.status == 1, "\(sql): \(refused.stdout)")
                #expect(refused.stderr == "locaudit: \(QueryRunner.wouldWrite)\n", "\(sql)")
            }
            #expect(try cluster.psql("SELECT (SELECT count(*) FROM locaudit.events) || ' ' || (SELECT count(*) FROM locaudit.devices)") == before)
            #expect(try cluster.psql("SELECT to_regclass('locaudit.t') IS NULL") == "t")

            let two = try query(["--db", cluster.url(), "--sql", "SELECT 1; SELECT 2"])
            #expect(two.status == 1 && two.stderr.contains("one statement at a time"), "\(two.stderr)")
            // COPY answers in a way no result reader takes: the statement's fault (exit 1), not the server's (8).
            let copy = try query(["--db", cluster.url(), "--sql", "COPY findings TO STDOUT"])
            #expect(copy.status == 1 && copy.stderr.contains("use a SELECT"), "\(copy.stderr)")
            let bad = try query(["--db", cluster.url(), "--sql", "SELECT nope FROM events"])
            #expect(bad.status == 1 && bad.stderr == "locaudit: the query failed: column \"nope\" does not exist.\n", "\(bad.stderr)")
            // A type read as its text form, the names the user gave kept.
            let typed = try query(["--db", cluster.url(), "--format", "csv", "--sql",
                                   "SELECT DATE '2026-11-20' AS day, ARRAY[1, 2] AS pair, 2.50::numeric AS half, 7::numeric AS seven, "
                                   + "'NaN'::numeric AS nan, '-Infinity'::numeric AS low, true AS yes, NULL AS nothing"])
            #expect(typed.stdout == "day,pair,half,seven,nan,low,yes,nothing\r\n2026-11-20,\"{1,2}\",2.5,7,NaN,-Infinity,1,\r\n", "\(typed.stderr)")

            // A privilege the role lacks is the query's failure (exit 1), in the server's words, with where the grants are.
            try cluster.psql("CREATE ROLE reader LOGIN PASSWORD 'reader-pw'; GRANT USAGE ON SCHEMA locaudit TO reader; GRANT SELECT ON locaudit.devices TO reader")
            let denied = try query(["--db", cluster.url(user: "reader"), "findings-by-rule-and-app"], ["PGPASSWORD": "reader-pw"])
            #expect(denied.status == 1, "\(denied.stderr)")
            #expect(denied.stderr.hasPrefix("locaudit: the query failed: permission denied for table findings") && denied.stderr.contains("docs/many-hosts.md"), "\(denied.stderr)")
            let allowed = try query(["--db", cluster.url(user: "reader"), "--sql", "SELECT count(*) AS n FROM devices"], ["PGPASSWORD": "reader-pw"])
            #expect(allowed.status == 0 && !allowed.stdout.contains("\n0\n"), "\(allowed.stderr)")

            // --timeout is the transaction's statement_timeout: the server stops a longer statement (exit 1, not 8).
            let slow = try query(["--db", cluster.url(), "--timeout", "0.5", "--sql", "SELECT pg_sleep(10)::text AS s"])
            #expect(slow.status == 1 && slow.stderr.contains("ran longer than --timeout and the server stopped it"), "\(slow.stderr)")
            let quick = try query(["--db", cluster.url(), "--timeout", "30", "--format", "csv", "--sql", "SELECT 41 + 1 AS a"])
            #expect(quick.status == 0 && quick.stdout == "a\r\n42\r\n", "\(quick.stderr)")
            // Rows printed as the server sends them: | head gets the first at once, and the query ends when it goes.
            let head = try QueryStreamEndToEndTests.head(["query", "--db", cluster.url(), "--format", "csv", "--sql", "SELECT generate_series(1, 1000000000) AS x"],
                                                 lines: 3, environment: environment)
            #expect(head.text.hasPrefix("x\r\n1\r\n2\r\n"), "\(head.text.prefix(100))")
            #expect(!head.stillRunning && head.exitedZero)

            let wrong = try query(["--db", cluster.url(), "findings-by-rule-and-app"], ["PGPASSWORD": "not-the-password"])
            #expect(wrong.status == 8)
            #expect(wrong.stderr.contains("refused the login of admin") && wrong.stderr.contains(cluster.socketDir), "\(wrong.stderr)")
            #expect(!wrong.stderr.contains("not-the-password") && !wrong.stderr.contains("PSQLError"))
        }
    }

    @Test("stats --db postgresql:// counts what was pushed, with the same JSON keys as a SQLite store's, the server's version and migrations")
    func stats() async throws {
        let (workspace, db) = try Self.samplesHost()
        _ = workspace
        try await PostgresCluster.with { cluster in
            try Self.pushed(db, to: cluster)
            let environment = ["PGPASSWORD": cluster.password, "HOME": "/nonexistent"]
            let central = try run(locauditExecutable, ["stats", "--json", "--db", cluster.url()], environment: environment)
            #expect(central.status == 0, "\(central.stderr)")
            let local = try run(locauditExecutable, ["stats", "--json", "--db", db])
            let c = try #require(try JSONSerialization.jsonObject(with: Data(central.stdout.utf8)) as? [String: Any])
            let l = try #require(try JSONSerialization.jsonObject(with: Data(local.stdout.utf8)) as? [String: Any])
            #expect(Set(l.keys).isSubset(of: Set(c.keys)))
            let tables = try #require(c["tables"] as? [String: Int]), localTables = try #require(l["tables"] as? [String: Int])
            for table in ["devices", "sources", "events", "sessions", "audit_runs", "findings", "apps"] {
                #expect(tables[table] == localTables[table] && tables[table] != nil, "\(table)")
            }
            #expect((tables["events"] ?? 0) > 0)
            #expect(tables["event_rows"] == nil && tables["schema_migrations"] == nil)
            func json(_ value: Any?) throws -> String {
                String(decoding: try JSONSerialization.data(withJSONObject: [value ?? NSNull()], options: .sortedKeys), as: UTF8.self)
            }
            for key in ["devices", "apps", "iosVersions", "firstTime", "lastTime"] {
                #expect(try json(c[key]) == (try json(l[key])), "\(key)")
            }
            #expect((c["devices"] as? [String])?.isEmpty == false && (c["iosVersions"] as? [String: Int])?.isEmpty == false)
            #expect((c["bytes"] as? Int ?? 0) > 0)
            #expect((c["server"] as? String)?.hasPrefix(try cluster.psql("SHOW server_version_num").prefix(2).description) == true)
            #expect(c["migrations"] as? [String] == CentralSchema.migrations.map(\.name))
            let text = try run(locauditExecutable, ["stats", "--db", cluster.url()], environment: environment)
            #expect(text.status == 0 && text.stdout.contains("events \(tables["events"] ?? -1)") && text.stdout.contains("server: PostgreSQL "), "\(text.stdout)")
        }
    }
}
