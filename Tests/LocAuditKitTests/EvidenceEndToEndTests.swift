import Foundation
import Testing
@testable import LocAuditUnitTests
@testable import LocAuditRules

/// EvidenceTests' checks that run the built `locaudit` (split from EvidenceTests.swift, whose other checks run in the test process).
@Suite(.tags(.endToEnd), .ownThreads) struct EvidenceEndToEndTests {
    @Test("locaudit rules lists, for each rule, the facts it reads, and how each fact is known")
    func rulesListFacts() throws {
        let result = try run(locauditExecutable, ["rules"])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for rule in RuleRegistry.descriptions {
            let i = try #require(lines.firstIndex { $0.hasPrefix(rule.identifier + " ") }, "\(rule.identifier)")
            #expect(lines[i + 1].trimmingCharacters(in: .whitespaces).hasPrefix("reads: "), "\(rule.identifier)")
            #expect(!rule.facts.isEmpty, "\(rule.identifier) names no fact")
        }
        for fact in ["app state", "blue bar", "background flag", "authorization status"] {
            #expect(lines.contains(fact), "the legend explains \(fact)")
        }
        #expect(result.stdout.contains("  unknown: app state unknown (no app-state or launch line)"))
    }
}
