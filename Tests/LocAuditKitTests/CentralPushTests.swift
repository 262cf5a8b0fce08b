import Foundation
import GRDB
import Testing
@testable import LocAuditUnitTests
@testable import LocAuditCentral
@testable import LocAuditRead

/// `locaudit push` against a real PostgreSQL server the tests start themselves (PostgresCluster).
@Suite(.needsPostgres, .tags(.endToEnd), .ownThreads)
struct CentralPushTests {
    /// A host: a store with some of the audit samples, ingested and audited by the real binary.
    struct Host {
        let workspace: Workspace
        var db: String { workspace.dir.appendingPathComponent("host.sqlite").path }

        init(samples: [String]) throws {
            workspace = try Workspace()
            let inbox = workspace.dir.appendingPathComponent("inbox")
            try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
            let audit = packageRoot.appendingPathComponent("samples/audit")
            for name in samples {
                for file in try FileManager.default.contentsOfDirectory(atPath: audit.path) where file.hasPrefix(name + ".") {
                    try FileManager.default.copyItem(at: audit.appendingPathComponent(file), to: inbox.appendingPathComponent(file))
                }
            }
            try FileManager.default.copyItem(at: audit.appendingPathComponent("apps"), to: inbox.appendingPathComponent("apps"))
            let ingest = try run(locauditExecutable, ["ingest", "--db", db, inbox.path])
            #expect(ingest.status == 0, "\(ingest.stderr)")
            let audited = try run(locauditExecutable, ["audit", "--db", db])
            #expect([0, 1, 3].contains(audited.status), "\(audited.stderr)")
        }

        func set(_ sql: String) throws -> Set<String> {
            try DatabaseQueue(path: db).read { db in
                Set(try String.fetchAll(db, sql: sql))
            }
        }
    }

    static func localCount(_ db: String, _ table: String) throws -> Int {
        try DatabaseQueue(path: db).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM \(table)") ?? 0 }
    }

    static var sampleNames: [String] {
        let audit = packageRoot.appendingPathComponent("samples/audit").path
        return ((try? FileManager.default.contentsOfDirectory(atPath: audit)) ?? [])
            .filter { $0.hasSuffix(".log") }.map { String($0.dropLast(4)) }.sorted()
    }

    func push(_ db: String, _ cluster: PostgresCluster, url: String? = nil, extra: [String] = [],
              environment: [String: String] = [:]) throws -> (status: Int32, stdout: String, stderr: String) {
        try run(locauditExecutable, ["push", "--db", db, "--to", url ?? cluster.url()] + extra,
                environment: ["PGPASSWORD": cluster.password, "HOME": "/nonexistent"].merging(environment) { $1 })
    }

    /// The same identities on both sides: events by (device, second, fingerprint).
    static let eventKeysSQLite = "SELECT device_id || ' ' || (time_us / 1000000) || ' ' || fingerprint FROM events"
    static let eventKeysCentral = "SELECT device_id || ' ' || (time_us / 1000000) || ' ' || fingerprint FROM locaudit.events"

    @Test("a log a test tool wrapped keeps its wrapper in the central store (central migration v4)")
    func wrapperIsPushed() async throws {
        let ws = try Workspace()
        let db = ws.dir.appendingPathComponent("host.sqlite").path
        let fixture = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/wrappers/qa-ipad-2021-03-02-appium-syslog.log")
        let ingest = try run(locauditExecutable, ["ingest", "--db", db, "--os", "14.4", "--device", "QA-iPad", fixture.path])
        #expect(ingest.status == 0, "\(ingest.stderr)")
        try await PostgresCluster.with { cluster in
            let pushed = try push(db, cluster)
            #expect(pushed.status == 0, "\(pushed.stderr)")
            #expect(try cluster.psql("SELECT container || ' ' || wrapper FROM locaudit.sources") == "idevicesyslog appium")
        }
    }

    @Test("a push copies every table; a second push adds nothing and says so")
    func pushThenRepush() async throws {
        let host = try Host(samples: Array(Self.sampleNames.prefix(8)))
        try await PostgresCluster.with { cluster in
            let first = try push(host.db, cluster)
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stdout.contains("pushed to postgresql://admin@\(cluster.socketDir)/.s.PGSQL.\(cluster.port)/postgres"), "\(first.stdout)")
            #expect(first.stdout.contains("rows/s"))
            for (local, central) in [("devices", "locaudit.devices"), ("app_versions", "locaudit.app_versions"), ("sources", "locaudit.sources"),
                                     ("events", "locaudit.events"), ("sessions", "locaudit.sessions"), ("audit_runs", "locaudit.audit_runs"),
                                     ("findings", "locaudit.findings")] {
                let count = try host.set("SELECT count(*) FROM \(local)").first ?? ""
                #expect(try String(cluster.count(central)) == count, "\(local)")
            }
            #expect(try cluster.count("locaudit.events") > 0 && cluster.count("locaudit.findings") > 0)
            let keys = Set(try cluster.psql(Self.eventKeysCentral).split(separator: "\n").map(String.init))
            #expect(keys == (try host.set(Self.eventKeysSQLite)))
            // No local id leaks: a finding's evidence cites central events, which hold the cited line.
            let mismatched = try cluster.psql("""
                SELECT count(*) FROM locaudit.findings f, json_array_elements(f.evidence::json) e
                WHERE (e->>'event') IS NOT NULL AND NOT EXISTS (SELECT 1 FROM locaudit.events v JOIN locaudit.sources s ON s.id = v.source_id
                    WHERE v.id = (e->>'event')::bigint AND v.line = (e->>'line')::bigint)
                """)
            #expect(mismatched == "0")
            let again = try push(host.db, cluster, extra: ["--json"])
            #expect(again.status == 0, "\(again.stderr)")
            let report = try JSONDecoder().decode(PushReport.self, from: Data(again.stdout.utf8))
            #expect(report.total == 0 && report.rows["events"] == 0, "\(again.stdout)")
            #expect(String(try cluster.count("locaudit.events")) == (try host.set("SELECT count(*) FROM events").first ?? ""))
        }
    }

    @Test("two hosts with overlapping logs pushing at the same time: the central store holds the union, each row once")
    func concurrentHostsGiveTheUnion() async throws {
        let names = Self.sampleNames
        let a = try Host(samples: Array(names.prefix(names.count * 2 / 3)))
        let b = try Host(samples: Array(names.suffix(names.count * 2 / 3)))
        try await PostgresCluster.with { cluster in
            // Into an empty database: both create the schema at once, in turns (the advisory lock).
            async let pa = Task.detached { try push(a.db, cluster) }.value
            async let pb = Task.detached { try push(b.db, cluster) }.value
            let (ra, rb) = try await (pa, pb)
            #expect(ra.status == 0, "\(ra.stderr)")
            #expect(rb.status == 0, "\(rb.stderr)")
            let central = try cluster.psql(Self.eventKeysCentral).split(separator: "\n").map(String.init)
            #expect(central.count == Set(central).count)
            #expect(Set(central) == (try a.set(Self.eventKeysSQLite)).union(try b.set(Self.eventKeysSQLite)))
            let sources = "SELECT content_sha256 FROM sources"
            #expect(Set(try cluster.psql("SELECT content_sha256 FROM locaudit.sources").split(separator: "\n").map(String.init))
                    == (try a.set(sources)).union(try b.set(sources)))
            let findings = "SELECT fingerprint FROM findings"
            #expect(Set(try cluster.psql("SELECT fingerprint FROM locaudit.findings").split(separator: "\n").map(String.init))
                    == (try a.set(findings)).union(try b.set(findings)))
            #expect(try cluster.count("locaudit.audit_runs") == 2)
        }
    }

    @Test("a push killed with kill -9 mid-way and run again ends with each row exactly once")
    func killedPushResumes() async throws {
        let workspace = try Workspace()
        let fleet = workspace.dir.appendingPathComponent("fleet")
        let generated = try run("/usr/bin/env", ["python3", packageRoot.appendingPathComponent("scripts/generate_fleet.py").path,
                                                 "--out", fleet.path, "--size", "12M", "--devices", "4", "--location-share", "0.6"])
        #expect(generated.status == 0, "\(generated.stderr)")
        let db = workspace.dir.appendingPathComponent("big.sqlite").path
        let ingest = try run(locauditExecutable, ["ingest", "--db", db, fleet.path])
        #expect(ingest.status == 0, "\(ingest.stderr)")
        let localEvents = try Self.localCount(db, "events")
        #expect(localEvents > 20_000)
        // A line in the middle of the last file: another session holds it, uncommitted, so
        // the push stops there, mid-file, with the files before it committed.
        let held = try DatabaseQueue(path: db).read { db in
            try Row.fetchOne(db, sql: """
                SELECT device_id, time_us, fingerprint FROM events WHERE source_id = (SELECT max(source_id) FROM events)
                ORDER BY id LIMIT 1 OFFSET (SELECT count(*) / 2 FROM events WHERE source_id = (SELECT max(source_id) FROM events))
                """)
        }
        let line = try #require(held)
        let (device, time, fingerprint): (String, Int64, Int64) = (line["device_id"], line["time_us"], line["fingerprint"])
        try await PostgresCluster.with { cluster in
            let migrate = try push(db, cluster, extra: ["--migrate-only"])
            #expect(migrate.status == 0, "\(migrate.stderr)")
            let holder = try cluster.session()
            try holder.send("""
                BEGIN;
                INSERT INTO locaudit.sources (content_sha256, path, file_sha256, size, content_size, gzip_members, container, zone_assumed,
                    lines_read, events, skipped, notes, ingested_at, pushed_from) VALUES ('held', 'held', 'held', 0, 0, 0, 'held', 0, 0, 0, '{}', '{}', 'held', 'test');
                INSERT INTO locaudit.event_rows (source_id, line, device_id, time_us, kind, pattern, message, fingerprint)
                    SELECT id, 1, '\(device)', \(time), 'held', 'held', 'held', \(fingerprint) FROM locaudit.sources WHERE content_sha256 = 'held';

                """)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: locauditExecutable)
            process.arguments = ["push", "--db", db, "--to", cluster.url()]
            process.environment = ProcessInfo.processInfo.environment.merging(["PGPASSWORD": cluster.password, "HOME": "/nonexistent"]) { $1 }
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Until the push waits for the held line.
            var waiting = "0"
            for _ in 0..<1200 where waiting == "0" {
                try await Task.sleep(for: .milliseconds(50))
                waiting = (try? cluster.psql("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'")) ?? "0"
            }
            #expect(waiting == "1", "the push never reached the held line")
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            try holder.send("ROLLBACK;\n")
            try holder.close()
            let cut = try cluster.count("locaudit.events")
            #expect(cut > 0 && cut < localEvents, "killed after \(cut) of \(localEvents) events")
            let again = try push(db, cluster)
            #expect(again.status == 0, "\(again.stderr)")
            #expect(try cluster.count("locaudit.events") == localEvents)
            #expect(try cluster.psql("SELECT count(*) FROM (SELECT DISTINCT device_id, time_us / 1000000, fingerprint FROM locaudit.events) k") == "\(localEvents)")
            #expect(try cluster.count("locaudit.sources") == Self.localCount(db, "sources"))
            #expect(try cluster.psql("SELECT count(*) FROM locaudit.sources WHERE content_sha256 = 'held'") == "0")
        }
    }

    @Test("a wrong password, an unreachable server, a refused TLS: one sentence naming the server, exit 8, no driver dump")
    func failuresAreSentences() async throws {
        let host = try Host(samples: Array(Self.sampleNames.prefix(1)))
        try await PostgresCluster.with { cluster in
            let wrong = try push(host.db, cluster, environment: ["PGPASSWORD": "not-the-password"])
            #expect(wrong.status == 8)
            #expect(wrong.stderr.contains("refused the login of admin") && wrong.stderr.contains(cluster.socketDir), "\(wrong.stderr)")
            #expect(!wrong.stderr.contains("not-the-password"))
            // Over TCP to a server without TLS: sslmode's default, require, refuses to go on in the clear.
            let tls = try push(host.db, cluster, url: cluster.url(tcp: true))
            #expect(tls.status == 8)
            #expect(tls.stderr.contains("postgresql://admin@127.0.0.1:\(cluster.port)/postgres refused TLS (sslmode=require)"), "\(tls.stderr)")
            let clear = try push(host.db, cluster, url: cluster.url(tcp: true, query: "sslmode=disable"))
            #expect(clear.status == 0, "\(clear.stderr)")
        }
        // Nothing listens there any more.
        let closed = try run(locauditExecutable, ["push", "--db", host.db, "--to", "postgresql://admin@127.0.0.1:1/postgres?sslmode=disable"],
                             environment: ["PGPASSWORD": "x", "HOME": "/nonexistent"])
        #expect(closed.status == 8)
        #expect(closed.stderr.contains("postgresql://admin@127.0.0.1:1/postgres cannot be reached (connection refused)"), "\(closed.stderr)")
        for result in [closed] {
            for dump in ["PSQLError", "Error Domain=", "NIOConnectionError", "underlying"] { #expect(!result.stderr.contains(dump)) }
        }
    }

    @Test("TLS: verify-full trusts the server's certificate only through sslrootcert; require encrypts without checking it")
    func tlsModes() async throws {
        let host = try Host(samples: Array(Self.sampleNames.prefix(1)))
        try await PostgresCluster.with(tls: true) { cluster in
            let cert = try #require(cluster.certificate)
            let untrusted = try push(host.db, cluster, url: cluster.url(tcp: true, query: "sslmode=verify-full").replacingOccurrences(of: "127.0.0.1", with: "localhost"))
            #expect(untrusted.status == 8)
            #expect(untrusted.stderr.contains("TLS failed (sslmode=verify-full)") && untrusted.stderr.contains("localhost:\(cluster.port)"), "\(untrusted.stderr)")
            for dump in ["PSQLError", "NIOSSLError", "underlying"] { #expect(!untrusted.stderr.contains(dump)) }
            let trusted = try push(host.db, cluster, url: cluster.url(tcp: true, query: "sslmode=verify-full&sslrootcert=\(cert)").replacingOccurrences(of: "127.0.0.1", with: "localhost"))
            #expect(trusted.status == 0, "\(trusted.stderr)")
            let required = try push(host.db, cluster, url: cluster.url(tcp: true))
            #expect(required.status == 0, "\(required.stderr)")
            // This server takes TCP connections over TLS only (hostssl): require did use TLS.
            let clear = try push(host.db, cluster, url: cluster.url(tcp: true, query: "sslmode=disable"))
            #expect(clear.status == 8)
            #expect(clear.stderr.contains("refused the login of admin"), "\(clear.stderr)")
        }
    }

    @Test("a host role that may only select and insert pushes into a schema its owner migrated, and is told to ask for the migration otherwise")
    func leastPrivilegeRole() async throws {
        let host = try Host(samples: Array(Self.sampleNames.prefix(2)))
        try await PostgresCluster.with { cluster in
            try cluster.psql("CREATE ROLE lab_host LOGIN PASSWORD 'host-pw'")
            let env = ["PGPASSWORD": "host-pw"]
            let early = try push(host.db, cluster, url: cluster.url(user: "lab_host"), environment: env)
            #expect(early.status == 8)
            #expect(early.stderr.contains("run `locaudit push --migrate-only --to URL` once as the database's owner"), "\(early.stderr)")
            let migrate = try run(locauditExecutable, ["push", "--migrate-only", "--to", cluster.url()],
                                  environment: ["PGPASSWORD": cluster.password, "HOME": "/nonexistent"])
            #expect(migrate.status == 0, "\(migrate.stderr)")
            // README's grants (Many hosts).
            try cluster.psql(Self.readmeGrants(role: "lab_host"))
            let pushed = try push(host.db, cluster, url: cluster.url(user: "lab_host"), environment: env)
            #expect(pushed.status == 0, "\(pushed.stderr)")
            #expect(try cluster.count("locaudit.events") > 0)
        }
    }

    @Test("run --push-to pushes after the night's run; a push that fails exits 8 and leaves the run stored")
    func runPushTo() async throws {
        let workspace = try Workspace()
        let inbox = workspace.dir.appendingPathComponent("inbox")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        let audit = packageRoot.appendingPathComponent("samples/audit")
        let name = try #require(Self.sampleNames.first)
        for file in try FileManager.default.contentsOfDirectory(atPath: audit.path) where file.hasPrefix(name + ".") {
            try FileManager.default.copyItem(at: audit.appendingPathComponent(file), to: inbox.appendingPathComponent(file))
        }
        let db = workspace.dir.appendingPathComponent("night.sqlite").path
        try await PostgresCluster.with { cluster in
            let night = try run(locauditExecutable, ["run", "--quiet", "--settle", "0", "--inbox", inbox.path, "--db", db, "--push-to", cluster.url()],
                                environment: ["PGPASSWORD": cluster.password, "HOME": "/nonexistent"])
            #expect([0, 1, 3].contains(night.status), "\(night.stderr)")
            #expect(try cluster.count("locaudit.events") == Self.localCount(db, "events"))
            #expect(try cluster.count("locaudit.audit_runs") == 1)
            try FileManager.default.copyItem(at: audit.appendingPathComponent(Self.sampleNames[1] + ".log"), to: inbox.appendingPathComponent("second.log"))
            let failed = try run(locauditExecutable, ["run", "--quiet", "--settle", "0", "--inbox", inbox.path, "--db", db, "--push-to", cluster.url()],
                                 environment: ["PGPASSWORD": "wrong", "HOME": "/nonexistent"])
            #expect(failed.status == 8)
            #expect(failed.stderr.contains("refused the login of admin"), "\(failed.stderr)")
            #expect(try Self.localCount(db, "audit_runs") == 2)
        }
    }

    /// The SQL of docs/many-hosts.md that grants a host its role, with the name replaced.
    static func readmeGrants(role: String) throws -> String {
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("docs/many-hosts.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "-- a host's role"))
        let end = try #require(readme[start.lowerBound...].range(of: "```"))
        return String(readme[start.lowerBound..<end.lowerBound]).replacingOccurrences(of: "lab_host_1", with: role)
            .replacingOccurrences(of: "ON DATABASE locaudit", with: "ON DATABASE postgres")
            .split(separator: "\n").filter { !$0.hasPrefix("CREATE ROLE") }.joined(separator: "\n")
    }
}
