import Foundation
import GRDB
import Testing
@testable import LocAuditUnitTests
@testable import LocAuditCentral
import LocAuditStore
import LocAuditRules

/// The fleet's audit night after night: each starts from the checkpoints the last one left
/// (`CentralCheckpoints`), copies only the lines after them, and reports what one audit of
/// every night's logs reports.
@Suite(.needsPostgres, .tags(.endToEnd), .ownThreads)
struct CentralSettleTests {
    func locaudit(_ arguments: [String], _ cluster: PostgresCluster) throws -> (status: Int32, stdout: String, stderr: String) {
        try run(locauditExecutable, arguments, environment: ["PGPASSWORD": cluster.password, "HOME": "/nonexistent"])
    }

    /// Three nights of a two-device fleet (the generator, the same devices every night), a folder each.
    static func nights(in workspace: Workspace) throws -> [String] {
        try ["2026-11-20", "2026-11-21", "2026-11-22"].map { date in
            let folder = workspace.dir.appendingPathComponent("night-\(date)").path
            let generated = try run("/usr/bin/env", ["python3", packageRoot.appendingPathComponent("scripts/generate_fleet.py").path,
                                                     "--out", folder, "--size", "3M", "--devices", "2", "--seed", "5", "--date", date,
                                                     "--location-share", "0.3"])
            #expect(generated.status == 0, "\(generated.stderr)")
            return folder
        }
    }

    /// What two audits of the same logs must agree on, from a JSON report: the findings, the
    /// coverage, the verdict, and the events and sessions read.
    static func judged(_ json: String) throws -> [String] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let run = try #require(object["run"] as? [String: Any])
        let keep: [String: Any] = ["coverage": object["coverage"] ?? NSNull(), "verdict": object["verdict"] ?? NSNull(),
                                   "exitCode": object["exitCode"] ?? NSNull(), "events": run["events"] ?? NSNull(),
                                   "sessions": run["sessions"] ?? NSNull()]
        return try CentralAuditTests.findings(json)
            + [String(decoding: try JSONSerialization.data(withJSONObject: keep, options: [.sortedKeys]), as: UTF8.self)]
    }

    @Test("night after night the fleet's audit copies only the lines after its checkpoints, and finds, counts and stores what one audit of every night does")
    func settledAuditEqualsFullAudit() async throws {
        let workspace = try Workspace()
        let nights = try Self.nights(in: workspace)
        let host = workspace.dir.appendingPathComponent("host.sqlite").path
        try await PostgresCluster.with { cluster in
            var central = (status: Int32(0), stdout: "", stderr: "")
            for night in nights {
                let ingested = try run(locauditExecutable, ["ingest", "--db", host, "--quiet", night])
                #expect(ingested.status == 0, "\(ingested.stderr)")
                let pushed = try locaudit(["push", "--db", host, "--to", cluster.url()], cluster)
                #expect(pushed.status == 0, "\(pushed.stderr)")
                central = try locaudit(["audit", "--db", cluster.url(), "--format", "json"], cluster)
                #expect(central.status <= 1, "\(central.stderr)")
            }
            // The first two nights' audits settled sessions: the third started from them.
            let settled = try cluster.psql("SELECT count(*) FROM locaudit.replay_checkpoints WHERE as_of_us IS NOT NULL")
            #expect((Int(settled) ?? 0) > 0, "\(settled)")
            // One audit of every night's logs, in a store of its own.
            let full = workspace.dir.appendingPathComponent("full.sqlite").path
            try FileManager.default.copyItem(atPath: host, toPath: full)
            let local = try run(locauditExecutable, ["audit", "--db", full, "--format", "json"])
            #expect(local.status == central.status, "\(local.stderr)")
            #expect(try Self.judged(central.stdout) == (try Self.judged(local.stdout)))
            // The run's checks (the central store's one text, the local store's rows joined), and the sessions stored: the same.
            let checks = try cluster.psql("SELECT checks FROM locaudit.audit_runs ORDER BY id DESC LIMIT 1")
            let localChecks = try await DatabaseQueue(path: full).read {
                try StoredChecks.runText(try Int64.fetchOne($0, sql: "SELECT max(id) FROM audit_runs") ?? 0, in: $0)
            }
            #expect(checks.hasPrefix("{\"subjects\":[{"))
            #expect(checks == localChecks)
            let sessions = "device_id || ' ' || bundle_id || ' ' || coalesce(pid, -1) || ' ' || start_us || ' ' || end_us || ' ' || events || ' ' || end_reason || ' ' || coalesce(status_at_end, '-')"
            let centralSessions = try cluster.psql("SELECT \(sessions) FROM locaudit.sessions").split(separator: "\n").map(String.init)
            #expect(centralSessions.count == Set(centralSessions).count)
            let localSessions = try await DatabaseQueue(path: full).read { try String.fetchAll($0, sql: "SELECT \(sessions) FROM sessions") }
            #expect(Set(centralSessions) == Set(localSessions))
            // What the next audit would copy: the lines after the checkpoints, not every night's.
            let events = try cluster.count("locaudit.event_rows")
            let build = try #require(BuildIdentity.buildID(of: locauditExecutable))
            let folder = workspace.dir.appendingPathComponent("replica")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let connection = try await Central.connect(CentralURL(cluster.url()), environment: ["PGPASSWORD": cluster.password])
            let (copied, checkpoints) = try await CentralReplica.make(from: connection, at: folder.appendingPathComponent("r.sqlite").path,
                                                                      settle: CentralAudit.rulesKey(AuditOptions(), build: build))
            await connection.close()
            #expect(!(checkpoints?.good.isEmpty ?? true))
            #expect(copied > 0 && copied * 2 < events, "copied \(copied) of \(events)")
            // Each line once, and exactly those the copy's three parts name (its statement keeps
            // them apart instead of dropping duplicates): each app's from where its copy starts,
            // the settled sessions' lines, the device-wide lines pushed since; here as one UNION.
            let judged = try #require(checkpoints)
            let replicaIDs = try await DatabaseQueue(path: folder.appendingPathComponent("r.sqlite").path).read {
                try Int64.fetchAll($0, sql: "SELECT id FROM event_rows ORDER BY id")
            }
            #expect(replicaIDs.count == copied)
            let apps = judged.copyFrom.values.map { "('\($0.deviceId)', '\($0.bundleId)', \($0.fromUS)::numeric)" }
            try #require(!apps.isEmpty && !judged.settledLines.isEmpty)
            let expected = try cluster.psql("""
                SELECT ev.id FROM (VALUES \(apps.joined(separator: ", "))) AS g(device_id, bundle_id, from_us)
                    JOIN locaudit.event_rows ev ON ev.device_id = g.device_id AND ev.bundle_id = g.bundle_id AND ev.time_us >= g.from_us
                UNION SELECT id FROM locaudit.event_rows WHERE id = ANY('{\(judged.settledLines.map(String.init).joined(separator: ","))}'::bigint[])
                UNION SELECT id FROM locaudit.event_rows WHERE id > \(judged.stored.values.map(\.lastEventID).min() ?? 0) AND bundle_id IS NULL
                ORDER BY 1
                """).split(separator: "\n").compactMap { Int64($0) }
            #expect(replicaIDs == expected)

            // A late export: night two's log of one device again, one request call in it made a
            // new line (another manager). It reaches back before that app's checkpoint: the app
            // is audited from its first line again, and the audit still equals one of every log.
            let late = workspace.dir.appendingPathComponent("late")
            try FileManager.default.createDirectory(at: late, withIntermediateDirectories: true)
            let night2 = URL(fileURLWithPath: nights[1])
            let log = try #require(try FileManager.default.contentsOfDirectory(atPath: night2.path).sorted().first { $0.hasSuffix(".log.gz") })
            let base = String(log.dropLast(".log.gz".count))
            try FileManager.default.copyItem(at: night2.appendingPathComponent(base + ".ideviceinfo.txt"),
                                             to: late.appendingPathComponent(base + "-late.ideviceinfo.txt"))
            let altered = try run("/bin/sh", ["-c", "gzip -dc '\(night2.appendingPathComponent(log).path)' | sed '0,/requestWhenInUseAuthorization\", \"self\":\"0x/s//requestWhenInUseAuthorization\", \"self\":\"0xfeed/' | gzip -n > '\(late.appendingPathComponent(base + "-late.log.gz").path)'"])
            #expect(altered.status == 0, "\(altered.stderr)")
            #expect(try run(locauditExecutable, ["ingest", "--db", host, "--quiet", late.path]).status == 0)
            #expect(try locaudit(["push", "--db", host, "--to", cluster.url()], cluster).status == 0)
            #expect(try cluster.count("locaudit.event_rows") == events + 1)
            let afterLate = try locaudit(["audit", "--db", cluster.url(), "--format", "json"], cluster)
            try FileManager.default.removeItem(atPath: full)
            try FileManager.default.copyItem(atPath: host, toPath: full)
            let localLate = try run(locauditExecutable, ["audit", "--db", full, "--format", "json"])
            #expect(try Self.judged(afterLate.stdout) == (try Self.judged(localLate.stdout)))
            #expect(try Self.judged(afterLate.stdout) != (try Self.judged(central.stdout)))

            // Prune the central store: night one's lines go (but those the settled sessions cite),
            // and the next audit finds and counts what the last one did.
            let nightOne = try await DatabaseQueue(path: host).read {
                try String.fetchOne($0, sql: "SELECT max(last_time) FROM sources WHERE last_time < '2026-11-21T12'")
            }
            let lastLine = try #require(nightOne.flatMap { ISO8601DateFormatter().date(from: String($0.prefix(19)) + "Z") })
            let hours = Int(Date().timeIntervalSince(lastLine) / 3600) - 6
            let pruned = try locaudit(["prune", "--db", cluster.url(), "--older-than", "\(hours)h", "--json"], cluster)
            #expect(pruned.status == 0, "\(pruned.stderr)")
            let summary = try #require(try JSONSerialization.jsonObject(with: Data(pruned.stdout.utf8)) as? [String: Any])
            let removed = try #require(summary["events"] as? Int)
            #expect(removed > 0, "\(pruned.stdout)")
            #expect(try cluster.count("locaudit.event_rows") == events + 1 - removed)
            #expect(try cluster.count("locaudit.replay_checkpoints WHERE pruned_at IS NOT NULL") > 0)
            let afterPrune = try locaudit(["audit", "--db", cluster.url(), "--format", "json"], cluster)
            #expect(afterPrune.status == afterLate.status, "\(afterPrune.stderr)")
            #expect(try Self.judged(afterPrune.stdout) == (try Self.judged(afterLate.stdout)))
        }
    }
}
