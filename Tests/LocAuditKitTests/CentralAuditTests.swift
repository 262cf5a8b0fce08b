import Foundation
import GRDB
import Testing
@testable import LocAuditUnitTests
@testable import LocAuditCentral

/// `audit --db postgresql://…` and `report --db postgresql://…` against a real server: the
/// fleet's audit from what the hosts pushed.
@Suite(.needsPostgres, .tags(.endToEnd), .ownThreads)
struct CentralAuditTests {
    typealias Host = CentralPushTests.Host

    func locaudit(_ arguments: [String], _ cluster: PostgresCluster, password: String? = nil,
                  environment: [String: String] = [:]) throws -> (status: Int32, stdout: String, stderr: String) {
        try run(locauditExecutable, arguments,
                environment: ["PGPASSWORD": password ?? cluster.password, "HOME": "/nonexistent"].merging(environment) { $1 })
    }

    /// The findings of a JSON report, each as sorted JSON, their evidence files by name: each
    /// host cites a log by the path it was ingested from.
    static func findings(_ json: String) throws -> [String] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let findings = try #require(object["findings"] as? [[String: Any]])
        return try findings.map { finding in
            var finding = finding
            finding["evidence"] = (finding["evidence"] as? [[String: Any]])?.map { line in
                var line = line
                line["file"] = (line["file"] as? String).map { URL(fileURLWithPath: $0).lastPathComponent }
                return line
            }
            return String(decoding: try JSONSerialization.data(withJSONObject: finding, options: [.sortedKeys]), as: UTF8.self)
        }
    }

    @Test("the central audit of two hosts' overlapping stores finds what one audit of all their logs finds, and leaves those findings open centrally")
    func centralAuditEqualsMergedAudit() async throws {
        let names = CentralPushTests.sampleNames
        let a = try Host(samples: Array(names.prefix(names.count * 2 / 3)))
        let b = try Host(samples: Array(names.suffix(names.count * 2 / 3)))
        let merged = try Host(samples: names)
        let local = try run(locauditExecutable, ["audit", "--db", merged.db, "--format", "json"])
        #expect(local.status == 1, "\(local.stderr)")
        try await PostgresCluster.with { cluster in
            for host in [a, b] {
                let pushed = try locaudit(["push", "--db", host.db, "--to", cluster.url()], cluster)
                #expect(pushed.status == 0, "\(pushed.stderr)")
            }
            let central = try locaudit(["audit", "--db", cluster.url(), "--format", "json"], cluster)
            #expect(central.status == local.status, "\(central.stderr)")
            let found = try Self.findings(central.stdout)
            #expect(!found.isEmpty)
            #expect(found == (try Self.findings(local.stdout)))
            // Written back: the findings open centrally are the merged audit's (a host's finding
            // the merged logs do not bear out is resolved), the sessions are the merged audit's.
            let open = Set(try cluster.psql("SELECT fingerprint FROM locaudit.findings WHERE resolved_run IS NULL").split(separator: "\n").map(String.init))
            #expect(open == (try merged.set("SELECT fingerprint FROM findings WHERE resolved_run IS NULL")))
            let sessions = "device_id || ' ' || bundle_id || ' ' || coalesce(pid, -1) || ' ' || start_us || ' ' || end_us || ' ' || events || ' ' || end_reason"
            let centralSessions = try cluster.psql("SELECT \(sessions) FROM locaudit.sessions").split(separator: "\n").map(String.init)
            #expect(centralSessions.count == Set(centralSessions).count)
            #expect(Set(centralSessions) == (try merged.set("SELECT \(sessions) FROM sessions")))
            // The run is the central store's: its id, the findings' last run, who ran it.
            let lastRun = try cluster.psql("SELECT id || ' ' || pushed_from FROM locaudit.audit_runs ORDER BY id DESC LIMIT 1")
            #expect(lastRun.hasPrefix("3 central audit ("), "\(lastRun)")
            #expect(central.stdout.contains("\"id\" : 3") || central.stdout.contains("\"id\":3"), "\(central.stdout.prefix(400))")
            #expect(try cluster.psql("SELECT count(*) FROM locaudit.findings WHERE last_run = 3") == String(found.count))
            // One device (only its events are copied): the merged store's findings of that device.
            let device = try #require(try merged.set("SELECT device_id FROM findings WHERE pid IS NOT NULL").sorted().first)
            let localOne = try run(locauditExecutable, ["audit", "--db", merged.db, "--device", device, "--format", "json"])
            let centralOne = try locaudit(["audit", "--db", cluster.url(), "--device", device, "--format", "json"], cluster)
            #expect(centralOne.status == localOne.status, "\(centralOne.stderr)")
            #expect(!(try Self.findings(centralOne.stdout)).isEmpty)
            #expect(try Self.findings(centralOne.stdout) == (try Self.findings(localOne.stdout)))
        }
    }

    @Test("report --db postgresql:// renders the central run as the audit printed it; a second audit finds the same findings persisting")
    func reportAndReaudit() async throws {
        let host = try Host(samples: Array(CentralPushTests.sampleNames.prefix(10)))
        try await PostgresCluster.with { cluster in
            #expect(try locaudit(["push", "--db", host.db, "--to", cluster.url()], cluster).status == 0)
            let audited = try locaudit(["audit", "--db", cluster.url(), "--format", "json"], cluster)
            #expect(audited.status == 1, "\(audited.stderr)")
            let report = try locaudit(["report", "--db", cluster.url(), "--format", "json"], cluster)
            #expect(report.status == 0, "\(report.stderr)")
            #expect(report.stdout == audited.stdout)
            let page = try Workspace()
            let html = page.dir.appendingPathComponent("fleet.html").path
            let rendered = try locaudit(["report", "--db", cluster.url(), "--run", "1", "--report", "html:\(html)"], cluster)
            #expect(rendered.status == 0, "\(rendered.stderr)")
            #expect(try String(contentsOfFile: html, encoding: .utf8).contains("<html"))
            let again = try locaudit(["audit", "--db", cluster.url(), "--format", "json"], cluster)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any])
            #expect((object["new"] as? [Int])?.isEmpty == true)
            #expect((object["persisting"] as? [Int])?.count == (try Self.findings(again.stdout)).count)
            #expect(try Self.findings(again.stdout) == (try Self.findings(audited.stdout)))
            #expect(try cluster.count("locaudit.audit_runs") == 3)
            // `--no-record`: the replica's recording rolled back (the copy ran without a journal,
            // the audit's own connection with one), its reports read from it, nothing written back.
            let junit = page.dir.appendingPathComponent("dry.xml").path
            let dry = try locaudit(["audit", "--db", cluster.url(), "--no-record", "--report", "json", "--report", "junit:\(junit)"], cluster)
            #expect(dry.status == 1, "\(dry.stderr)")
            #expect(try Self.findings(dry.stdout) == (try Self.findings(again.stdout)))
            #expect(try String(contentsOfFile: junit, encoding: .utf8).contains("<testcase"))
            #expect(try cluster.count("locaudit.audit_runs") == 3)
            // The copy needs room: a TMPDIR it cannot use is a sentence, and nothing is recorded.
            let nowhere = try locaudit(["audit", "--db", cluster.url()], cluster, environment: ["TMPDIR": "/nonexistent/tmp"])
            #expect(nowhere.status == 8, "\(nowhere.stderr)")
            #expect(nowhere.stderr.contains("set TMPDIR to a writable folder"), "\(nowhere.stderr)")
            #expect(try cluster.count("locaudit.audit_runs") == 3)
        }
    }

    @Test("a central audit while another runs exits 4; a host role that may only insert is told what it lacks, and nothing is written")
    func lockAndPrivilege() async throws {
        let host = try Host(samples: Array(CentralPushTests.sampleNames.prefix(3)))
        try await PostgresCluster.with { cluster in
            #expect(try locaudit(["push", "--db", host.db, "--to", cluster.url()], cluster).status == 0)
            let holder = try cluster.session()
            try holder.send("SELECT pg_advisory_lock(\(CentralAudit.lockKey));\n")
            var held = "0"
            for _ in 0..<200 where held == "0" {
                try await Task.sleep(for: .milliseconds(50))
                held = (try? cluster.psql("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted")) ?? "0"
            }
            #expect(held == "1")
            let busy = try locaudit(["audit", "--db", cluster.url()], cluster)
            #expect(busy.status == 4, "\(busy.stderr)")
            #expect(busy.stderr.contains("another central audit is running"), "\(busy.stderr)")
            try holder.close()

            try cluster.psql("CREATE ROLE lab_host LOGIN PASSWORD 'host-pw'")
            try cluster.psql(CentralPushTests.readmeGrants(role: "lab_host"))
            let runs = try cluster.count("locaudit.audit_runs")
            let denied = try locaudit(["audit", "--db", cluster.url(user: "lab_host")], cluster, password: "host-pw")
            #expect(denied.status == 8, "\(denied.stderr)")
            #expect(denied.stderr.contains("lacks a privilege"), "\(denied.stderr)")
            #expect(!denied.stderr.contains("PSQLError"))
            #expect(try cluster.count("locaudit.audit_runs") == runs)
            // Reading is all `report` needs.
            let report = try locaudit(["report", "--db", cluster.url(user: "lab_host"), "--format", "json"], cluster, password: "host-pw")
            #expect(report.status == 0, "\(report.stderr)")
        }
    }
}

@Suite(.tags(.endToEnd), .ownThreads) struct CentralDatabaseFlagTests {
    @Test("a command that works on a local store refuses a postgresql:// --db or $LOCAUDIT_DB with a sentence, exit 2, and writes no file")
    func localCommandsRefuseTheCentralStore() throws {
        let workspace = try Workspace()
        let url = "postgresql://lab@db.example/fleet"
        for arguments in [["ingest", "--db", url, "x.log"], ["devices", "list", "--db", url], ["push", "--db", url, "--to", url]] {
            let result = try run(locauditExecutable, arguments, environment: ["HOME": "/nonexistent"])
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("--db \(url) is a central store"), "\(result.stderr)")
        }
        let fromEnvironment = try run(locauditExecutable, ["ingest", workspace.dir.path], environment: ["LOCAUDIT_DB": url, "HOME": "/nonexistent"])
        #expect(fromEnvironment.status == 2)
        #expect(fromEnvironment.stderr.contains("$LOCAUDIT_DB \(url) is a central store"), "\(fromEnvironment.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "postgresql:"))
    }
}
