import Foundation
import Testing
@testable import LocAuditUnitTests
@testable import LocAuditRead

/// The harness of the tests that need a PostgreSQL server (PostgresSupport.swift).
@Suite(.needsPostgres, .tags(.endToEnd), .ownThreads)
struct PostgresHarnessTests {
    @Test("the harness's cluster answers over its socket, and is stopped and removed when the test body throws")
    func harnessStopsOnFailure() async throws {
        struct Boom: Error {}
        let seen = Locked<(dir: URL, answer: String)?>(nil)
        await #expect(throws: Boom.self) {
            try await PostgresCluster.with { cluster in
                seen.withLock { $0 = (cluster.dir, try! cluster.psql("SELECT 40 + 2")) }
                throw Boom()
            }
        }
        let (dir, answer) = try #require(seen.withLock { $0 })
        #expect(answer == "42")
        #expect(!FileManager.default.fileExists(atPath: dir.path), "the cluster's folder is removed")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent(".s.PGSQL").path))
    }
}
