import Foundation
import GRDB
import PostgresNIO
import Testing
@testable import LocAuditUnitTests
@testable import LocAuditCentral
import LocAuditStore
/// COPY's text, as this encoder writes it, read by a real PostgreSQL server.
@Suite(.needsPostgres, .tags(.endToEnd), .ownThreads)
struct CentralCopyTests {
    @Test("nasty text, integers and doubles sent by COPY read back equal from PostgreSQL (NUL as U+FFFD), doubles bit for bit")
    func copyReadsBackEqual() async throws {
        try await PostgresCluster.with { cluster in
            let central = try await Central.connect(CentralURL(cluster.url()), environment: ["PGPASSWORD": cluster.password])
            defer { Task { await central.close() } }
            try await central.execute("CREATE TEMPORARY TABLE nasty (n bigint, t text, i bigint, d double precision)")
            let count = max(Nasty.texts.count, Nasty.ints.count, Nasty.doubles.count)
            try await central.copy(into: "nasty", columns: ["n", "t", "i", "d"]) { send in
                var encoder = CopyText()
                for n in 0..<count {
                    encoder.int(Int64(n))
                    if let text = Nasty.texts[n % Nasty.texts.count] { encoder.text(text) } else { encoder.null() }
                    encoder.int(Nasty.ints[n % Nasty.ints.count])
                    encoder.double(Nasty.doubles[n % Nasty.doubles.count])
                    encoder.endRow()
                    // Rows split over several messages.
                    if n % 5 == 4 { try await send(encoder.take()) }
                }
                try await send(encoder.take())
            }
            let rows = try await central.rows("SELECT n, t, i, d FROM nasty ORDER BY n", as: (Int64, String?, Int64, Double).self)
            #expect(rows.count == count)
            for (n, text, int, double) in rows {
                let k = Int(n)
                #expect(text == Nasty.stored(Nasty.texts[k % Nasty.texts.count]), "row \(n)")
                #expect(int == Nasty.ints[k % Nasty.ints.count], "row \(n)")
                #expect(double.bitPattern == Nasty.doubles[k % Nasty.doubles.count].bitPattern, "row \(n): \(double)")
            }
            await central.close()
        }
    }

    /// Per event (device, time, fingerprint): its text columns as hex of their UTF-8 bytes
    /// ("NULL" for NULL), its doubles as hex of their bits.
    static let localColumns = "CAST(process AS BLOB), CAST(reason AS BLOB), CAST(property AS BLOB), CAST(value AS BLOB), CAST(message AS BLOB), latitude, longitude, horizontal_accuracy"
    static let centralColumns = ["process", "reason", "property", "value", "message"].map { "coalesce(encode(convert_to(\($0), 'UTF8'), 'hex'), 'NULL')" }
        + ["latitude", "longitude", "horizontal_accuracy"].map { "coalesce(encode(float8send(\($0)), 'hex'), 'NULL')" }

    static func local(_ db: String) throws -> [String: [String]] {
        func hex(_ bytes: some Sequence<UInt8>) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
        return try DatabaseQueue(path: db).read { db in
            var out: [String: [String]] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT device_id, time_us, fingerprint, \(localColumns) FROM events") {
                let key = "\(row[0] as String) \(row[1] as Int64) \(row[2] as Int64)"
                var values: [String] = []
                for i in 3..<8 {
                    // What PostgreSQL's text holds: NUL as U+FFFD.
                    values.append((row[i] as Data?).map { hex(String(decoding: $0, as: UTF8.self).replacingOccurrences(of: "\u{0}", with: "\u{FFFD}").utf8) } ?? "NULL")
                }
                for i in 8..<11 {
                    values.append((row[i] as Double?).map { hex(withUnsafeBytes(of: $0.bitPattern.bigEndian) { Array($0) }) } ?? "NULL")
                }
                out[key] = values
            }
            return out
        }
    }

    static func central(_ cluster: PostgresCluster) throws -> [String: [String]] {
        let text = try cluster.psql("SELECT device_id || ' ' || time_us || ' ' || fingerprint, \(centralColumns.joined(separator: ", ")) FROM locaudit.events")
        var out: [String: [String]] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            out[fields[0]] = Array(fields.dropFirst())
        }
        return out
    }

    @Test("a push of events with tab, newline, backslash, NUL, \\N and edge doubles in them reads back equal in PostgreSQL")
    func pushedNastyEventsReadBackEqual() async throws {
        let host = try CentralPushTests.Host(samples: Array(CentralPushTests.sampleNames.prefix(3)))
        try await DatabaseQueue(path: host.db).write { db in
            let ids = try Int64.fetchAll(db, sql: "SELECT id FROM event_rows ORDER BY id LIMIT \(Nasty.texts.count * 2)")
            try #require(ids.count == Nasty.texts.count * 2)
            for (k, id) in ids.enumerated() {
                // Bound as bytes and cast: SQLite keeps a NUL inside a text that way.
                let text = Nasty.texts[k % Nasty.texts.count].map { Data($0.utf8) }
                let other = Nasty.texts[(k + 3) % Nasty.texts.count].map { Data($0.utf8) }
                try db.execute(sql: "UPDATE event_rows SET reason = CAST(? AS TEXT), property = CAST(? AS TEXT), value = CAST(? AS TEXT), latitude = ?, longitude = ? WHERE id = ?",
                               arguments: [text, other, text, Nasty.doubles[k % Nasty.doubles.count], Nasty.doubles[(k + 1) % Nasty.doubles.count], id])
            }
            try db.execute(sql: "UPDATE names SET name = CAST(? AS TEXT) WHERE id = (SELECT process_ref FROM event_rows WHERE id = ?)",
                           arguments: [Data("proc\tess\\ \u{0}\nname".utf8), ids[0]])
        }
        let local = try Self.local(host.db)
        #expect(local.values.contains { $0[1] == "5c4e" }, "the store holds \\N as text")
        try await PostgresCluster.with { cluster in
            let pushed = try run(locauditExecutable, ["push", "--db", host.db, "--to", cluster.url()],
                                 environment: ["PGPASSWORD": cluster.password, "HOME": "/nonexistent"])
            #expect(pushed.status == 0, "\(pushed.stderr)")
            let central = try Self.central(cluster)
            #expect(central.count == local.count)
            var differing: [String] = []
            for (key, values) in local where central[key] != values { differing.append("\(key): local \(values), central \(central[key] ?? [])") }
            #expect(differing.isEmpty, "\(differing.count) events differ, e.g. \(differing.prefix(3))")
        }
    }

    @Test("where PUBLIC may not create temporary tables, docs/many-hosts.md's host role (TEMPORARY granted) still pushes; without it, a sentence and exit 8")
    func stagingNeedsTemporaryOnly() async throws {
        let host = try CentralPushTests.Host(samples: Array(CentralPushTests.sampleNames.prefix(1)))
        try await PostgresCluster.with { cluster in
            let migrate = try run(locauditExecutable, ["push", "--migrate-only", "--to", cluster.url()],
                                  environment: ["PGPASSWORD": cluster.password, "HOME": "/nonexistent"])
            #expect(migrate.status == 0, "\(migrate.stderr)")
            try cluster.psql("REVOKE TEMPORARY ON DATABASE postgres FROM PUBLIC")
            try cluster.psql("CREATE ROLE bare_host LOGIN PASSWORD 'host-pw'; GRANT USAGE ON SCHEMA locaudit TO bare_host; GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA locaudit TO bare_host")
            try cluster.psql("CREATE ROLE lab_host LOGIN PASSWORD 'host-pw'")
            try cluster.psql(CentralPushTests.readmeGrants(role: "lab_host"))
            let environment = ["PGPASSWORD": "host-pw", "HOME": "/nonexistent"]
            let bare = try run(locauditExecutable, ["push", "--db", host.db, "--to", cluster.url(user: "bare_host")], environment: environment)
            #expect(bare.status == 8)
            #expect(bare.stderr.contains("lacks a privilege locaudit needs") && bare.stderr.contains("temporary"), "\(bare.stderr)")
            #expect(try cluster.count("locaudit.events") == 0)
            let pushed = try run(locauditExecutable, ["push", "--db", host.db, "--to", cluster.url(user: "lab_host")], environment: environment)
            #expect(pushed.status == 0, "\(pushed.stderr)")
            #expect(try cluster.count("locaudit.events") == CentralPushTests.localCount(host.db, "events"))
        }
    }

    @Test("a source whose events the central store partly holds (another export of the same lines): the push adds the rest, each event once")
    func overlappingSourceAddsTheRest() async throws {
        let workspace = try Workspace()
        let full = workspace.dir.appendingPathComponent("full"), half = workspace.dir.appendingPathComponent("half")
        let generated = try run("/usr/bin/env", ["python3", packageRoot.appendingPathComponent("scripts/generate_fleet.py").path,
                                                 "--out", full.path, "--size", "2M", "--single", "--location-share", "0.6"])
        #expect(generated.status == 0, "\(generated.stderr)")
        // The same device's export cut at half its lines: another file, the same first lines.
        try FileManager.default.copyItem(at: full, to: half)
        let log = try #require(try FileManager.default.contentsOfDirectory(atPath: half.path).first { $0.hasSuffix(".log.gz") })
        let text = try #require(try run("/bin/sh", ["-c", "gzip -dc '\(half.appendingPathComponent(log).path)'"]).stdout)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        try Data(try gzip(Array(lines.prefix(lines.count / 2).joined(separator: "\n").utf8 + [10]))).write(to: half.appendingPathComponent(log))
        var stores: [String] = []
        for (name, inbox) in [("half", half), ("full", full)] {
            let db = workspace.dir.appendingPathComponent("\(name).sqlite").path
            let ingest = try run(locauditExecutable, ["ingest", "--db", db, inbox.path])
            #expect(ingest.status == 0, "\(ingest.stderr)")
            stores.append(db)
        }
        let (halfEvents, fullEvents) = (try CentralPushTests.localCount(stores[0], "events"), try CentralPushTests.localCount(stores[1], "events"))
        #expect(halfEvents > 1_000 && fullEvents > halfEvents)
        try await PostgresCluster.with { cluster in
            var added: [Int] = []
            for db in stores {
                let pushed = try run(locauditExecutable, ["push", "--db", db, "--to", cluster.url(), "--json"],
                                     environment: ["PGPASSWORD": cluster.password, "HOME": "/nonexistent"])
                #expect(pushed.status == 0, "\(pushed.stderr)")
                added.append(try JSONDecoder().decode(PushReport.self, from: Data(pushed.stdout.utf8)).rows["events"] ?? -1)
            }
            #expect(added == [halfEvents, fullEvents - halfEvents])
            let hashes = "SELECT content_sha256 FROM sources"
            let local = try stores.map { db in Set(try DatabaseQueue(path: db).read { try String.fetchAll($0, sql: hashes) }) }
            #expect(local[0] != local[1])
            #expect(Set(try cluster.psql("SELECT content_sha256 FROM locaudit.sources").split(separator: "\n").map(String.init)) == local[0].union(local[1]))
            #expect(try cluster.count("locaudit.events") == fullEvents)
            let keys = try cluster.psql(CentralPushTests.eventKeysCentral).split(separator: "\n").map(String.init)
            #expect(Set(keys) == Set(try DatabaseQueue(path: stores[1]).read { try String.fetchAll($0, sql: CentralPushTests.eventKeysSQLite) }))
        }
    }
}
