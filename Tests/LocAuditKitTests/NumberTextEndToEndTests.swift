import Foundation
import Testing
@testable import LocAuditAudit
@testable import LocAuditModel
@testable import LocAuditRules
@testable import LocAuditUnitTests

/// NumberTextTests' checks that start a program (split from NumberTextTests.swift, whose other checks run in the test process).
@Suite(.tags(.endToEnd), .ownThreads) struct NumberTextEndToEndTests {
    @Test("audit --reduced-accuracy-floor 1e300 names the floor in its finding instead of trapping")
    func hugeFloorIsWritten() throws {
        let rule = try #require(RuleRegistry.descriptions.first { $0.identifier == "precise-delivery-under-reduced-accuracy" })
        let example = try #require(rule.triggeringExamples.first)
        let ws = try AuditWorkspace()
        try ws.ingest(example.log, os: example.os, plist: example.plist)
        // The binary: a trap ends the process, not the test run.
        let result = try run(locauditExecutable, ["audit", "--db", ws.dbPath, "--reduced-accuracy-floor", "1e300"])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stdout.contains("(floor 1e+300 m)"), "\(result.stdout)")
    }
}
