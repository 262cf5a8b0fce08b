import Foundation
import GRDB
import Testing
@testable import LocAuditStore
@testable import LocAuditUnitTests

/// EventLayoutTests' checks that start a program (split from EventLayoutTests.swift, whose other checks run in the test process).
@Suite(.tags(.endToEnd), .ownThreads) struct EventLayoutEndToEndTests {
    @Test("migration v11 keeps every event: SELECT * FROM events gives the same rows before and after, and the audit finds the same")
    func migrationKeepsEveryEvent() throws {
        let ws = try Workspace()
        let lines = LogScript().launch().told("Denied").deliver(5).deliver(5).terminate().lines
        _ = try TimeZoneTests.ingest(ws, "dev-2026-11-20.log", lines.joined(separator: "\n") + "\n", zone: "Europe/Paris")
        func rules() throws -> [String] {
            let audit = try run(locauditExecutable, ["audit", "--db", ws.store.path, "--format", "json"])
            let json = try JSONSerialization.jsonObject(with: Data(audit.stdout.utf8)) as? [String: Any]
            return ((json?["findings"] as? [[String: Any]]) ?? []).compactMap { $0["rule"] as? String }
        }
        let found = try rules()
        #expect(!found.isEmpty)
        let before = try ws.rows("SELECT * FROM events ORDER BY id").map(\.description)
        #expect(before.count == lines.count)
        try EventLayoutTests.downgradeToV10(ws.store.path)
        #expect(try ws.rows("SELECT * FROM events ORDER BY id").map(\.description) != before, "the v10 table has no `time` column")
        _ = try Store(path: ws.store.path)
        #expect(try ws.rows("SELECT * FROM events ORDER BY id").map(\.description) == before)
        #expect(try ws.count("SELECT count(*) FROM sqlite_master WHERE name = 'events' AND type = 'view'") == 1)
        #expect(try rules() == found)
    }
}
