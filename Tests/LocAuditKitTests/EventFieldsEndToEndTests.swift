import Foundation
import GRDB
import LocAuditModel
import LocAuditNormalise
import Testing
@testable import LocAuditCentral
@testable import LocAuditStore
@testable import LocAuditUnitTests

/// EventFieldsTests' checks that start a program (split from EventFieldsTests.swift, whose other checks run in the test process).
@Suite(.needsPostgres, .tags(.endToEnd), .ownThreads) struct EventFieldsEndToEndTests {
    @Test("the central store's events view has every field, in order, with its PostgreSQL type")
    func postgresMigrationsMatch() async throws {
        try await PostgresCluster.with { cluster in
            let migrate = try run(locauditExecutable, ["push", "--migrate-only", "--to", cluster.url()],
                                  environment: ["PGPASSWORD": cluster.password, "HOME": "/nonexistent"])
            #expect(migrate.status == 0, "\(migrate.stderr)")
            let text = try cluster.psql("""
                SELECT column_name || ' ' || data_type FROM information_schema.columns
                WHERE table_schema = 'locaudit' AND table_name = 'events' ORDER BY ordinal_position
                """)
            let columns = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            #expect(columns == EventFields.all.map { "\($0.name) \($0.name == "time" ? "text" : $0.postgresType)" })
        }
    }
}
