import Foundation
import GRDB
import Testing
@testable import LocAuditAudit
@testable import LocAuditModel
@testable import LocAuditRules
@testable import LocAuditStore

@Suite struct QueryTests {
    /// A store with the bundled samples in it.
    static func samplesStore() throws -> Workspace {
        let ws = try Workspace()
        let report = try ws.ingest([packageRoot.appendingPathComponent("samples/apps").path,
                                    packageRoot.appendingPathComponent("samples/logs").path])
        #expect(report.failed == 0)
        return ws
    }

    @Test func aStatementThatWouldWriteIsRefusedAndChangesNothing() throws {
        let ws = try QueryTests.samplesStore()
        let before = try ws.count("SELECT count(*) FROM events")
        for sql in ["DELETE FROM events", "UPDATE events SET kind = 'x'", "DROP TABLE events",
                    "CREATE TABLE t (x)", "INSERT INTO devices (id, updated_at) VALUES ('x', 'y')"] {
            #expect(throws: QueryError.self) { try QueryRunner.run(sql, store: ws.store) }
        }
        #expect(try ws.count("SELECT count(*) FROM events") == before)
        #expect(throws: QueryError.self) { try QueryRunner.run("SELECT 1; DELETE FROM events", store: ws.store) }
        #expect(try ws.count("SELECT count(*) FROM events") == before)
    }

    @Test func parametersAreBoundNeverSpliced() throws {
        let ws = try QueryTests.samplesStore()
        let sql = "SELECT count(*) AS n FROM events WHERE bundle_id = :bundle"
        let hostile = try QueryRunner.run(sql, parameters: ["bundle": "x' OR '1'='1"], store: ws.store)
        #expect(hostile.rows.first?.first == 0.databaseValue)
        let runner = try QueryRunner.run(sql, parameters: ["bundle": "com.example.runner"], store: ws.store)
        #expect(runner.rows.first?.first == (try ws.count("SELECT count(*) FROM events WHERE bundle_id = 'com.example.runner'")).databaseValue)
        #expect { try QueryRunner.run(sql, store: ws.store) } throws: { "\($0)".contains("missing parameter 'bundle'") }
        #expect { try QueryRunner.run(sql, parameters: ["bundle": "a", "extra": "b"], store: ws.store) } throws: { "\($0)".contains("unknown parameter 'extra'") }
    }

    @Test func savedQueriesCarryTheirHeader() throws {
        let q = try SavedQuery.parse("""
            -- name: demo
            -- description: A demo.
            -- param: device = %   the device id
            -- param: bundle       the app
            SELECT :device, :bundle
            """)
        #expect(q.name == "demo")
        #expect(q.description == "A demo.")
        #expect(q.parameters == [.init(name: "device", defaultValue: "%", description: "the device id"),
                                 .init(name: "bundle", defaultValue: nil, description: "the app")])
        let dir = [packageRoot.appendingPathComponent("queries")]
        let names = SavedQuery.all(in: dir).map(\.name)
        #expect(names.count >= 8)
        #expect(Set(names).count == names.count)
        #expect(SavedQuery.all(in: dir).allSatisfy { !$0.description.isEmpty })
        #expect { try SavedQuery.find("nope", in: dir) } throws: { "\($0)".contains("--list") }
    }

    @Test func formatsEscapeWhatTheyMust() throws {
        let result = QueryResult(columns: ["a", "b"], rows: [["x,\"y\"\nz".databaseValue, DatabaseValue.null], [1.databaseValue, 2.5.databaseValue]])
        #expect(try QueryFormat.csv.render(result) == "a,b\r\n\"x,\"\"y\"\"\nz\",\r\n1,2.5\r\n")
        let json = try? JSONSerialization.jsonObject(with: Data(try QueryFormat.json.render(result).utf8)) as? [[String: Any]]
        #expect(json?.first?["a"] as? String == "x,\"y\"\nz")
        #expect(json?.first?["b"] is NSNull)
        #expect(json?.last?["b"] as? Double == 2.5)
        #expect(try QueryFormat.table.render(result).hasSuffix("(2 rows)\n"))
    }

    @Test func ingestOnlyQueriesAnswerOnTheSamples() throws {
        let ws = try QueryTests.samplesStore()
        let dir = [packageRoot.appendingPathComponent("queries")]
        let coverage = try QueryRunner.run(try SavedQuery.find("ios-coverage", in: dir), store: ws.store)
        #expect(coverage.rows.map { QueryFormat.text($0[0]) } == ["7.1.2", "8.4", "10.3.3", "12.5.7", "13.7", "14.8", "17.5.1", "18.1"])
        let skipped = try QueryRunner.run(try SavedQuery.find("sources-most-skipped", in: dir), parameters: ["limit": "1"], store: ws.store)
        #expect(skipped.rows.count == 1)
        #expect(QueryFormat.text(skipped.rows[0][0]).hasSuffix("qa-iphone14pro-17-2026-11-21.ndjson"))
        #expect(QueryFormat.text(skipped.rows[0][4]) == "27")
        let unlinked = try QueryRunner.run(try SavedQuery.find("unlinked-app-lines", in: dir), store: ws.store)
        #expect(unlinked.rows.isEmpty, "every sample app line is linked to its bundle")
    }
}

/// Every saved query, run on the audited samples, against its expected result.
@Suite struct SavedQueryResultTests {
    static let parameters: [String: [String: String]] = [
        "session-timeline": ["bundle": "com.example.weather", "pid": "1053"],
    ]

    static let store: Workspace = {
        let ws = try! QueryTests.samplesStore()
        _ = try! Auditor(databasePath: ws.store.path, options: AuditOptions()).run()
        return ws
    }()

    @Test("each saved query gives its expected result on the audited samples",
          arguments: SavedQuery.all(in: [packageRoot.appendingPathComponent("queries")]).map(\.name))
    func expectedResult(name: String) throws {
        let query = try SavedQuery.find(name, in: [packageRoot.appendingPathComponent("queries")])
        let result = try QueryRunner.run(query, parameters: SavedQueryResultTests.parameters[name] ?? [:], store: SavedQueryResultTests.store.store)
        // Paths are where this checkout is; the expected files say samples/...
        let actual = try QueryFormat.csv.render(result).replacingOccurrences(of: packageRoot.path + "/", with: "")
        let path = ReporterTests.expected.appendingPathComponent("queries/\(name).csv")
        if ProcessInfo.processInfo.environment["LOCAUDIT_UPDATE_EXPECTED"] == "1" { try Data(actual.utf8).write(to: path) }
        #expect(actual == (try String(contentsOf: path, encoding: .utf8)), "\(name): rerun with LOCAUDIT_UPDATE_EXPECTED=1 and review the diff")
        #expect(!result.rows.isEmpty || name == "unlinked-app-lines", "\(name) finds nothing on the samples: the test would not notice a broken query")
    }
}
