import Foundation
import Testing
@testable import LocAuditAudit
@testable import LocAuditModel
@testable import LocAuditRules

/// One example of one rule, for the parameterised test.
struct ExampleCase: Sendable, CustomTestStringConvertible {
    enum Expectation: String, Sendable {
        case triggers = "triggers"
        case doesNotTrigger = "does not trigger"
        case notEvaluable = "is not evaluable"
    }
    var rule: RuleDescription
    var example: RuleExample
    var expectation: Expectation
    var testDescription: String {
        "\(rule.identifier) \(expectation.rawValue) (\(URL(fileURLWithPath: example.file).lastPathComponent):\(example.line))"
    }

    static var all: [ExampleCase] {
        RuleRegistry.descriptions.flatMap { rule in
            rule.triggeringExamples.map { ExampleCase(rule: rule, example: $0, expectation: .triggers) }
                + rule.nonTriggeringExamples.map { ExampleCase(rule: rule, example: $0, expectation: .doesNotTrigger) }
                + rule.notEvaluableExamples.map { ExampleCase(rule: rule, example: $0, expectation: .notEvaluable) }
        }
    }
}

@Suite struct RulesTests {
    @Test("every rule example behaves as documented, through the real parser and replay", arguments: ExampleCase.all)
    func example(_ c: ExampleCase) throws {
        let outcome = try RuleExampleRunner.run(c.example, rule: c.rule.identifier)
        let at = SourceLocation(fileID: "LocAuditKit/\(URL(fileURLWithPath: c.example.file).lastPathComponent)",
                                filePath: c.example.file, line: c.example.line, column: 1)
        switch c.expectation {
        case .triggers:
            #expect(!outcome.findings.isEmpty, "triggering example did not fire (not evaluable: \(outcome.notEvaluable))", sourceLocation: at)
            for finding in outcome.findings {
                #expect(!finding.evidence.isEmpty, "a finding without evidence", sourceLocation: at)
            }
        case .doesNotTrigger:
            #expect(outcome.findings.isEmpty, "non-triggering example fired: \(outcome.findings.map(\.message))", sourceLocation: at)
            #expect(outcome.evaluated || outcome.beforeFirstVersion, "non-triggering example was never evaluated: \(outcome.notEvaluable)", sourceLocation: at)
        case .notEvaluable:
            // Unknown is never a pass and never a finding, and the coverage names the missing fact.
            let fact = try #require(c.example.unknown, "a not-evaluable example names its unknown fact", sourceLocation: at)
            #expect(outcome.findings.isEmpty, "not-evaluable example fired: \(outcome.findings.map(\.message))", sourceLocation: at)
            #expect(!outcome.evaluated, "not-evaluable example was evaluated", sourceLocation: at)
            #expect(outcome.notEvaluable == [fact.unknown], "not evaluable for \(outcome.notEvaluable), not for \(fact.name)", sourceLocation: at)
        }
    }

    /// rules-model.md's tables: id, severity, first iOS version (nil = all), scope.
    static let documented: [(String, Severity, Int?, RuleScope)] = [
        ("delivery-without-authorization", .critical, nil, .session),
        ("background-delivery-without-capability", .critical, 8, .session),
        ("missing-blue-bar", .high, 8, .session),
        ("unexpected-blue-bar", .low, 8, .session),
        ("allow-once-persisting", .high, 13, .session),
        ("temporary-precise-persisting", .high, 14, .session),
        ("precise-delivery-under-reduced-accuracy", .high, 14, .session),
        ("grant-without-usage-description", .high, 8, .session),
        ("direct-always-grant", .medium, 13, .session),
        ("repeated-always-prompt", .medium, 8, .session),
        ("temporary-precise-without-authorization", .medium, 14, .session),
        ("relaunch-without-always", .high, 8, .session),
        ("delivery-after-termination", .medium, nil, .session),
        ("delivery-while-paused", .low, 6, .session),
        ("status-invalid-for-os", .medium, nil, .session),
        ("background-updates-started-in-background", .medium, 9, .session),
        ("missing-usage-description", .high, 8, .configuration),
        ("background-flag-without-capability", .critical, 9, .configuration),
        ("deprecated-usage-key", .low, 11, .configuration),
        ("invalid-default-accuracy-reduced", .low, 14, .configuration),
    ]

    @Test("the registry holds exactly the 20 rules of rules-model.md, ids unique")
    func registry() {
        let ids = RuleRegistry.descriptions.map(\.identifier)
        #expect(ids.count == Set(ids).count, "duplicate rule ids")
        #expect(ids == RulesTests.documented.map(\.0))
        for (id, severity, first, scope) in RulesTests.documented {
            let rule = RuleRegistry.description(of: id)
            #expect(rule?.severity == severity, "\(id) severity")
            #expect(rule?.firstVersion == first, "\(id) first iOS version")
            #expect(rule?.scope == scope, "\(id) scope")
        }
    }

    @Test("every rule has a one-sentence description, a seed, the facts it reads, and examples on both sides and not evaluable")
    func documentation() {
        for rule in RuleRegistry.descriptions {
            #expect(rule.description.hasSuffix("."), "\(rule.identifier)")
            #expect(!rule.seed.isEmpty, "\(rule.identifier)")
            #expect(!rule.triggeringExamples.isEmpty, "\(rule.identifier) has no triggering example")
            #expect(!rule.nonTriggeringExamples.isEmpty, "\(rule.identifier) has no non-triggering example")
            #expect(!rule.notEvaluableExamples.isEmpty, "\(rule.identifier) has no not-evaluable example")
            #expect(!rule.facts.isEmpty, "\(rule.identifier) names no fact it reads")
            for example in rule.notEvaluableExamples {
                #expect(example.unknown.map(rule.facts.contains) == true, "\(rule.identifier): a not-evaluable example leaves unknown a fact the rule does not list")
            }
        }
    }

    @Test("rules test reports drift when an example stops behaving")
    func driftIsReported() throws {
        var rule = DeliveryWhilePausedRule.description
        // The resumed example is moved to the triggering side: it must now be a drift.
        rule.triggeringExamples = rule.nonTriggeringExamples
        let drifts = try RuleExampleRunner.check(rule)
        #expect(drifts.count == 1)
        #expect(drifts.first?.problem.contains("did not fire") == true)
    }
}
