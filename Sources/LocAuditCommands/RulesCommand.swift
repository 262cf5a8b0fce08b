import ArgumentParser
import Foundation
import LocAuditAudit
import LocAuditModel
import LocAuditRules
import LocAuditRead

struct RulesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rules",
        abstract: "List the audit rules, explain one, or run their examples.",
        discussion: """
            Each rule is one file in Sources/LocAuditRules/ with triggering and \
            non-triggering examples written as log snippets: they are its documentation \
            and its tests.

            EXAMPLES:
              locaudit rules
              locaudit rules explain allow-once-persisting
              locaudit rules test
            """,
        subcommands: [List.self, Explain.self, Test.self],
        defaultSubcommand: List.self
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the rules: id, severity, iOS range, description, and the facts each reads.",
            discussion: """
                Each fact a rule reads is observed (a line says it), implied by the model, or \
                unknown; a rule that needs an unknown fact counts the session as not evaluable, \
                never as a pass. The list ends with how each fact is known.

                EXAMPLES:
                  locaudit rules list
                  # docs/audit.md's rule table
                  locaudit rules list --markdown
                """)

        @Flag(help: "As a Markdown table (docs/audit.md's rule table).")
        var markdown = false

        func run() throws {
            let rules = RuleRegistry.descriptions
            try Output.standardOutput(markdown ? RulesText.markdown(rules) : RulesText.table(rules))
        }
    }

    struct Explain: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a rule's rationale, who owns a finding and what to do, its Apple sources and examples.",
            discussion: """
                EXAMPLES:
                  locaudit rules explain missing-blue-bar
                """)

        @Argument(help: ArgumentHelp("The rule's identifier.", valueName: "id"), completion: Complete.rules)
        var id: String

        func validate() throws {
            if RuleRegistry.description(of: id) == nil {
                throw ValidationError("Unknown rule '\(id)'; `locaudit rules` lists them.")
            }
        }

        func run() throws {
            try Output.standardOutput(RulesText.explain(RuleRegistry.description(of: id)!))
        }
    }

    struct Test: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run every rule's examples through ingest and audit; exit 1 on any drift.",
            discussion: """
                EXAMPLES:
                  locaudit rules test
                  locaudit rules test delivery-without-authorization
                """)

        @Argument(help: ArgumentHelp("Only this rule.", valueName: "id"), completion: Complete.rules)
        var id: String?

        func validate() throws {
            if let id, RuleRegistry.description(of: id) == nil {
                throw ValidationError("Unknown rule '\(id)'; `locaudit rules` lists them.")
            }
        }

        func run() throws {
            let drifts = try RuleExampleRunner.check(only: id)
            let rules = RuleRegistry.descriptions.filter { id == nil || $0.identifier == id }
            let examples = rules.reduce(0) { $0 + $1.triggeringExamples.count + $1.nonTriggeringExamples.count }
            try Output.standardOutput(drifts.map { "DRIFT \($0)\n" }.joined()
                + "\(rules.count) rules, \(examples) examples, \(drifts.count) drift\(drifts.count == 1 ? "" : "s").\n")
            if !drifts.isEmpty { throw ExitCode(1) }
        }
    }
}

/// The text of `locaudit rules` and `rules explain`.
enum RulesText {
    static func table(_ rules: [RuleDescription]) -> String {
        let width = rules.map(\.identifier.count).max() ?? 0
        let indent = String(repeating: " ", count: width + 2)
        var out = rules.map { r in
            r.identifier.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
                + r.severity.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0) + "  "
                + r.versionRange.padding(toLength: 8, withPad: " ", startingAt: 0) + "  " + r.description + "\n"
                + indent + "reads: " + r.facts.map(\.name).joined(separator: ", ") + "\n"
                + indent + "owner: " + r.owner.label + "\n"
        }.joined()
        out += "\nFacts: observed (a line says it), implied (the model says it without a line), else unknown:\n"
        out += "a rule that needs an unknown fact is not evaluable for that session, never a pass.\n"
        for fact in usedFacts(rules) {
            out += "\n\(fact.name)\n  observed: \(fact.observed)\n"
            if let implied = fact.implied { out += "  implied: \(implied)\n" }
            out += "  unknown: \(fact.unknown)\n"
        }
        return out
    }

    /// docs/audit.md's rule table, and how each fact is known.
    static func markdown(_ rules: [RuleDescription]) -> String {
        "| id | severity | scope | iOS | flags | reads | owner |\n|---|---|---|---|---|---|---|\n"
            + rules.map { "| `\($0.identifier)` | \($0.severity.rawValue) | \($0.scope.rawValue) | \($0.versionRange) | \($0.description) | \($0.facts.map(\.name).joined(separator: ", ")) | \($0.owner.label) |\n" }.joined()
            + "\n| fact | observed from | implied | not evaluable when unknown: the coverage says |\n|---|---|---|---|\n"
            + usedFacts(rules).map { "| \($0.name) | \($0.observed) | \($0.implied ?? "-") | \($0.unknown) |\n" }.joined()
    }

    /// The facts the rules read, in `Fact` order.
    static func usedFacts(_ rules: [RuleDescription]) -> [Fact] {
        let used = Set(rules.flatMap(\.facts))
        return Fact.allCases.filter(used.contains)
    }

    static func explain(_ r: RuleDescription) -> String {
        var out = "\(r.identifier) (\(r.severity.rawValue), \(r.scope.rawValue) rule, \(r.versionRange))\n\n"
        out += r.description + "\n\n" + r.rationale + "\n\n"
        out += "Owner: \(r.owner.label) (\(r.owner.rawValue))\n"
        out += "What to do: \(r.whatToDo)\n\n"
        out += "Sources:\n"
        for source in r.sources { out += "  \(source)\n" }
        out += "  locaudit's rules model: docs/rules-model.md, `\(r.identifier)`\n"
        if !r.facts.isEmpty {
            out += "\nReads (else not evaluable):\n"
            for fact in r.facts {
                out += "  \(fact.name): observed from \(fact.observed)"
                if let implied = fact.implied { out += "; implied: \(implied)" }
                out += "\n"
            }
        }
        func examples(_ title: String, _ list: [RuleExample]) {
            for (i, e) in list.enumerated() {
                out += "\n\(title) \(i + 1) (iOS \(e.os ?? "unknown")"
                if let fact = e.unknown { out += "; unknown: \(fact.name)" }
                if let p = e.plist {
                    out += "; Info.plist: \(p.usageKeys.joined(separator: ", ")); UIBackgroundModes [\(p.backgroundModes.joined(separator: ", "))]"
                    if let keys = p.temporaryPurposeKeys { out += "; purpose keys [\(keys.joined(separator: ", "))]" }
                    if let reduced = p.defaultAccuracyReducedXML { out += "; NSLocationDefaultAccuracyReduced \(reduced)" }
                    if let sdk = p.sdk { out += "; DTPlatformVersion \(sdk)" }
                } else {
                    out += "; no Info.plist"
                }
                out += "):\n" + e.log.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n") + "\n"
            }
        }
        examples("Triggers", r.triggeringExamples)
        examples("Does not trigger", r.nonTriggeringExamples)
        examples("Not evaluable", r.notEvaluableExamples)
        return out
    }
}
