import Foundation
import GRDB
import Testing
@testable import LocAuditUnitTests
@testable import LocAuditStore

/// A store that cannot be used gets one sentence that names it and says what to do, and
/// exit 6 (3 when there is none), from every command, through the real binary; a file that
/// is not a locaudit store is never written to.
@Suite(.tags(.endToEnd), .ownThreads) struct StoreErrorTests {
    static let log = packageRoot.appendingPathComponent("samples/audit/missing-blue-bar.log").path

    /// Every command that opens the store, on `db`, by name.
    static func commands(db: String, inbox: String) -> [(name: String, arguments: [String])] {
        [("ingest", ["ingest", "--db", db, "--quiet", log]),
         ("audit", ["audit", "--db", db]),
         ("report", ["report", "--db", db]),
         ("query", ["query", "--db", db, "--sql", "SELECT count(*) FROM events"]),
         ("run", ["run", "--db", db, "--inbox", inbox, "--quiet"]),
         ("prune", ["prune", "--db", db, "--older-than", "30d"]),
         ("stats", ["stats", "--db", db]),
         ("catalog coverage", ["catalog", "coverage", "--db", db])]
    }

    /// An inbox holding one log, for `run`.
    static func inbox(_ ws: Workspace) throws -> String {
        let inbox = ws.dir.appendingPathComponent("inbox").path
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        try? FileManager.default.copyItem(atPath: log, toPath: inbox + "/missing-blue-bar.log")
        return inbox
    }

    /// What no message may show: library errors, SQL, crashes.
    static let rawErrors = ["SQLite error", "NSCocoaErrorDomain", "Error Domain=", "CREATE TABLE", "Fatal error", "while executing"]

    static func expect(_ result: (status: Int32, stdout: String, stderr: String), _ name: String, exit status: Int32,
                       saying phrases: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == status, "\(name) exited \(result.status): \(result.stderr)", sourceLocation: sourceLocation)
        for phrase in phrases {
            #expect(result.stderr.contains(phrase), "\(name) should say \"\(phrase)\": \(result.stderr)", sourceLocation: sourceLocation)
        }
        for raw in rawErrors {
            #expect(!(result.stderr + result.stdout).contains(raw), "\(name) shows \"\(raw)\": \(result.stderr)", sourceLocation: sourceLocation)
        }
    }

    /// A real store: the samples ingested and audited once.
    static func realStore(_ ws: Workspace) throws -> String {
        let samples = packageRoot.appendingPathComponent("samples").path
        let db = ws.store.path
        #expect(try run(locauditExecutable, ["ingest", "--db", db, "--quiet", samples + "/logs", samples + "/apps"]).status == 0)
        #expect(try run(locauditExecutable, ["audit", "--db", db, "--quiet"]).status == 1)
        return db
    }

    static func sha256(_ path: String) throws -> Data {
        let result = try run("/usr/bin/sha256sum", [path])
        return Data(result.stdout.prefix(64).utf8)
    }

    @Test("--db in a folder that does not exist: ingest and run say so (exit 6); the others say there is no database, in the same words (exit 3)")
    func missingFolder() throws {
        let ws = try Workspace()
        let folder = ws.dir.appendingPathComponent("no-such-folder").path
        let db = folder + "/locaudit.sqlite"
        var noDatabase: Set<String> = []
        for (name, arguments) in StoreErrorTests.commands(db: db, inbox: try StoreErrorTests.inbox(ws)) {
            let result = try run(locauditExecutable, arguments)
            if ["ingest", "run"].contains(name) {
                StoreErrorTests.expect(result, name, exit: 6, saying: [folder, "does not exist"])
            } else {
                StoreErrorTests.expect(result, name, exit: 3, saying: ["no database at \(db)"])
                noDatabase.insert(result.stderr)
            }
        }
        #expect(noDatabase.count == 1, "every command says 'no database' the same way: \(noDatabase)")
        #expect(!FileManager.default.fileExists(atPath: folder))
    }

    @Test("query says 'no database' like audit and stats, with exit 3")
    func queryAgreesOnNoDatabase() throws {
        let ws = try Workspace()
        let db = ws.dir.appendingPathComponent("none.sqlite").path
        let query = try run(locauditExecutable, ["query", "--db", db, "--sql", "SELECT 1"])
        let audit = try run(locauditExecutable, ["audit", "--db", db])
        StoreErrorTests.expect(query, "query", exit: 3, saying: ["no database at \(db)"])
        #expect(query.stderr == audit.stderr)
    }

    @Test("random bytes as --db: every command says it is not a SQLite database (exit 6) and leaves the file as it was")
    func randomBytes() throws {
        let ws = try Workspace()
        var generator = SystemRandomNumberGenerator()
        let db = try ws.write("random.sqlite", (0..<8192).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let before = try StoreErrorTests.sha256(db)
        for (name, arguments) in StoreErrorTests.commands(db: db, inbox: try StoreErrorTests.inbox(ws)) {
            StoreErrorTests.expect(try run(locauditExecutable, arguments), name, exit: 6, saying: [db, "not a SQLite database"])
        }
        #expect(try StoreErrorTests.sha256(db) == before)
    }

    @Test("a truncated copy of a real store: every command says it is damaged (exit 6)")
    func truncatedStore() throws {
        let ws = try Workspace()
        let whole = try Data(contentsOf: URL(fileURLWithPath: try StoreErrorTests.realStore(ws)))
        #expect(whole.count > 40 * 4096)
        let db = try ws.write("truncated.sqlite", Array(whole.prefix(whole.count / 2 / 4096 * 4096)))
        for (name, arguments) in StoreErrorTests.commands(db: db, inbox: try StoreErrorTests.inbox(ws)) {
            StoreErrorTests.expect(try run(locauditExecutable, arguments), name, exit: 6, saying: [db, "damaged"])
        }
    }

    @Test("an unrelated SQLite database: every command refuses it (exit 6) and adds nothing to it; an empty file becomes a store")
    func unrelatedDatabase() throws {
        let ws = try Workspace()
        let db = ws.dir.appendingPathComponent("other.sqlite").path
        try DatabaseQueue(path: db).write { db in
            try db.execute(sql: "CREATE TABLE inventory (item TEXT, count INTEGER); INSERT INTO inventory VALUES ('pens', 3)")
        }
        let before = try StoreErrorTests.sha256(db)
        for (name, arguments) in StoreErrorTests.commands(db: db, inbox: try StoreErrorTests.inbox(ws)) {
            StoreErrorTests.expect(try run(locauditExecutable, arguments), name, exit: 6, saying: [db, "not a locaudit store", "inventory"])
        }
        #expect(try StoreErrorTests.sha256(db) == before, "nothing was written to it")
        let tables = try DatabaseQueue(path: db).read { try String.fetchAll($0, sql: "SELECT name FROM sqlite_master") }
        #expect(tables == ["inventory"])
        let empty = try ws.write("empty.sqlite", [UInt8]())
        #expect(try run(locauditExecutable, ["ingest", "--db", empty, "--quiet", StoreErrorTests.log]).status == 0)
    }

    /// A store as an earlier locaudit left it: the first `applied` migrations, plus `extra` identifiers.
    static func olderStore(_ path: String, applied: Int, extra: [String] = []) throws {
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
            for migration in Schema.migrations.prefix(applied) {
                try migration.run(db)
                try db.execute(sql: "INSERT INTO grdb_migrations VALUES (?)", arguments: [migration.identifier])
            }
            for identifier in extra { try db.execute(sql: "INSERT INTO grdb_migrations VALUES (?)", arguments: [identifier]) }
        }
    }

    @Test("a store of an older locaudit is upgraded once, even by a command that only reads; one of a newer locaudit is refused untouched (exit 6)")
    func schemaVersions() throws {
        let ws = try Workspace()
        let older = ws.dir.appendingPathComponent("older.sqlite").path
        try StoreErrorTests.olderStore(older, applied: 2)
        let stats = try run(locauditExecutable, ["stats", "--db", older])
        #expect(stats.status == 0, "\(stats.stderr)")
        let columns = try DatabaseQueue(path: older).read { try $0.columns(in: "audit_runs").map(\.name) }
        #expect(columns.contains("coverage") && columns.contains("checks"))

        let newer = ws.dir.appendingPathComponent("newer.sqlite").path
        try StoreErrorTests.olderStore(newer, applied: Schema.migrations.count, extra: ["v99: a future table"])
        let before = try StoreErrorTests.sha256(newer)
        for (name, arguments) in StoreErrorTests.commands(db: newer, inbox: try StoreErrorTests.inbox(ws)) {
            StoreErrorTests.expect(try run(locauditExecutable, arguments), name, exit: 6, saying: [newer, "newer locaudit"])
        }
        #expect(try StoreErrorTests.sha256(newer) == before)
    }

    // MARK: Read-only

    /// Runs locaudit as a user without write access: `nobody` when the tests run as root
    /// (root writes read-only files), else the current user.
    static func runUnprivileged(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        guard getuid() == 0 else { return try run(locauditExecutable, arguments) }
        return try run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", locauditExecutable] + arguments)
    }

    static let canDropPrivileges = getuid() != 0 || FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")

    @Test("a read-only store (file 0444, then its folder read-only too): the commands that write say so (exit 6); query, report and stats still read it unless it needs an upgrade",
          .enabled(if: canDropPrivileges, "root needs setpriv to run as a user that read-only files stop"),
          arguments: [false, true])
    func readOnly(folderReadOnly: Bool) throws {
        let ws = try Workspace()
        let db = try StoreErrorTests.realStore(ws)
        let events = try ws.count("SELECT count(*) FROM events")
        let inbox = try StoreErrorTests.inbox(ws)
        let older = ws.dir.appendingPathComponent("older.sqlite").path
        try StoreErrorTests.olderStore(older, applied: 2)
        let fm = FileManager.default
        try fm.setAttributes([.posixPermissions: 0o444], ofItemAtPath: db)
        try fm.setAttributes([.posixPermissions: 0o444], ofItemAtPath: older)
        try fm.setAttributes([.posixPermissions: folderReadOnly ? 0o555 : 0o777], ofItemAtPath: ws.dir.path)
        defer { try? fm.setAttributes([.posixPermissions: 0o755], ofItemAtPath: ws.dir.path) }
        for (name, arguments) in StoreErrorTests.commands(db: db, inbox: inbox) {
            let result = try StoreErrorTests.runUnprivileged(arguments)
            switch name {
            case "query":
                StoreErrorTests.expect(result, name, exit: 0, saying: [])
                #expect(result.stdout.contains("\(events)"), "\(result.stdout)")
            case "report":
                StoreErrorTests.expect(result, name, exit: 0, saying: [])
                #expect(result.stdout.contains("FAIL:"), "\(result.stdout)")
            case "stats":
                StoreErrorTests.expect(result, name, exit: 0, saying: [])
                #expect(result.stdout.contains("events \(events)"), "\(result.stdout)")
            case "catalog coverage":
                StoreErrorTests.expect(result, name, exit: 0, saying: [])
                #expect(result.stdout.contains("app-state"), "\(result.stdout)")
            default:
                StoreErrorTests.expect(result, name, exit: 6, saying: [db, "read-only"])
            }
        }
        // An older locaudit's store must be upgraded once before it can be read.
        StoreErrorTests.expect(try StoreErrorTests.runUnprivileged(["stats", "--db", older]), "stats", exit: 6,
                               saying: [older, "older locaudit", "needs write access"])
        try fm.setAttributes([.posixPermissions: 0o755], ofItemAtPath: ws.dir.path)
        #expect(try ws.count("SELECT count(*) FROM events") == events)
    }

    // MARK: Full disk

    /// Root can mount a small tmpfs (a real full disk); elsewhere the test is skipped.
    static let canMountTmpfs: Bool = {
        guard getuid() == 0 else { return false }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("locaudit-tmpfs-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        guard (try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)) != nil,
              (try? run("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", dir]))?.status == 0 else { return false }
        _ = try? run("/bin/umount", [dir])
        return true
    }()

    @Test("a full disk: ingest says so (exit 6) and stores nothing of the file; the store stays usable",
          .enabled(if: canMountTmpfs, "mounting a tmpfs needs root"))
    func fullDisk() throws {
        let ws = try Workspace()
        let mount = ws.dir.appendingPathComponent("small").path
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        #expect(try run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mount]).status == 0)
        defer { _ = try? run("/bin/umount", ["-l", mount]) }
        let db = mount + "/locaudit.sqlite"
        #expect(try run(locauditExecutable, ["ingest", "--db", db, "--quiet", StoreErrorTests.log]).status == 0)
        var lines: [String] = []
        for i in 0..<12_000 {
            let stamp = String(format: "Nov 12 %02d:%02d:%02d", i / 3600, i / 60 % 60, i % 60)
            lines.append(syslogLine(stamp, "Runner(CoreLocation)", 412, Messages.delivery(accuracy: Double(i))))
        }
        let big = try ws.write("big.log", lines.joined(separator: "\n") + "\n")
        let result = try run(locauditExecutable, ["ingest", "--db", db, "--year", "2026", big])
        StoreErrorTests.expect(result, "ingest", exit: 6, saying: [db, "full"])
        let sources = try DatabaseQueue(path: db).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM sources") }
        #expect(sources == 1, "nothing of the big file was stored")
        #expect(try run(locauditExecutable, ["stats", "--db", db]).status == 0)
    }

    // MARK: Query

    @Test("query: one statement at a time, never a write, and a failing statement is a sentence without its SQL (exit 1)")
    func queryStatements() throws {
        let ws = try Workspace()
        let db = ws.store.path
        StoreErrorTests.expect(try run(locauditExecutable, ["query", "--db", db, "--sql", "SELECT 1; SELECT 2"]), "two statements",
                               exit: 1, saying: ["one statement at a time"])
        StoreErrorTests.expect(try run(locauditExecutable, ["query", "--db", db, "--sql", "DELETE FROM events"]), "a write",
                               exit: 1, saying: ["would change the database", "only reads"])
        StoreErrorTests.expect(try run(locauditExecutable, ["query", "--db", db, "--sql", "SELECT json_extract('not json', '$.a')"]),
                               "a failing statement", exit: 1, saying: ["malformed JSON"])
        let trailing = try run(locauditExecutable, ["query", "--db", db, "--sql", "SELECT 41 + 1; -- the answer\n", "--format", "csv"])
        #expect(trailing.status == 0, "\(trailing.stderr)")
        #expect(trailing.stdout.contains("42"))
    }

    // MARK: Concurrent first use

    @Test("eight ingests started at once on a new database all succeed, ten times over, and store each file once")
    func concurrentFirstUse() throws {
        let ws = try Workspace()
        let files = try (1...3).map { try ws.write("d\($0).log", StoreTests.day($0, count: 20)) }
        for round in 1...10 {
            let db = ws.dir.appendingPathComponent("new-\(round).sqlite").path
            let processes = (0..<8).map { i -> (Process, Pipe) in
                let p = Process()
                p.executableURL = URL(fileURLWithPath: locauditExecutable)
                p.arguments = ["ingest", "--db", db, "--quiet", "--year", "2026", "--device", "D"] + (i % 2 == 0 ? files : files.reversed())
                let err = Pipe()
                p.standardError = err
                p.standardOutput = FileHandle.nullDevice
                return (p, err)
            }
            for (p, _) in processes { try p.run() }
            for (p, err) in processes {
                let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                p.waitUntilExit()
                #expect(p.terminationStatus == 0, "round \(round): \(message)")
            }
            let counts = try DatabaseQueue(path: db).read { db in
                (try Int.fetchOne(db, sql: "SELECT count(*) FROM sources"), try Int.fetchOne(db, sql: "SELECT count(*) FROM events"))
            }
            #expect(counts.0 == 3 && counts.1 == 60, "round \(round): \(counts)")
        }
    }

    // MARK: Documentation

    @Test("locaudit --help and the help of every command that opens the store list exit 6")
    func helpListsExit6() throws {
        for command in [[], ["ingest"], ["audit"], ["report"], ["query"], ["run"], ["prune"], ["stats"]] {
            // Help text is wrapped to the terminal: compare with single spaces.
            let help = try run(locauditExecutable, command + ["--help"]).stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(help.contains("6 the store cannot be used"), "\(command): \(help)")
        }
    }
}
