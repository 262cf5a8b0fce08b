import ArgumentParser
import Foundation
import LocAuditKit

struct RulesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rules",
        abstract: "List the audit rules, explain one, or run their examples.",
        discussion: """
            Each rule is one file in Sources/LocAuditKit/Rules/ with triggering and \
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
            abstract: "List the rules: id, severity, iOS range, description.",
            discussion: """
                EXAMPLES:
                  locaudit rules list
                  # the README's rule table
                  locaudit rules list --markdown
                """)

        @Flag(help: "As a Markdown table (the README's rule table).")
        var markdown = false

        func run() throws {
            let rules = RuleRegistry.descriptions
            try Output.standardOutput(markdown ? RulesText.markdown(rules) : RulesText.table(rules))
        }
    }

    struct Explain: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a rule's rationale and examples.",
            discussion: """
                EXAMPLES:
                  locaudit rules explain missing-blue-bar
                """)

        @Argument(help: ArgumentHelp("The rule's identifier.", valueName: "id"))
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

        @Argument(help: ArgumentHelp("Only this rule.", valueName: "id"))
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
        return rules.map { r in
            r.identifier.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
                + r.severity.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0) + "  "
                + r.versionRange.padding(toLength: 8, withPad: " ", startingAt: 0) + "  " + r.description + "\n"
        }.joined()
    }

    static func markdown(_ rules: [RuleDescription]) -> String {
        "| id | severity | scope | iOS | flags |\n|---|---|---|---|---|\n"
            + rules.map { "| `\($0.identifier)` | \($0.severity.rawValue) | \($0.scope.rawValue) | \($0.versionRange) | \($0.description) |\n" }.joined()
    }

    static func explain(_ r: RuleDescription) -> String {
        var out = "\(r.identifier) (\(r.severity.rawValue), \(r.scope.rawValue) rule, \(r.versionRange))\n\n"
        out += r.description + "\n\n" + r.rationale + "\n\nSeed: \(r.seed)\n"
        func examples(_ title: String, _ list: [RuleExample]) {
            for (i, e) in list.enumerated() {
                out += "\n\(title) \(i + 1) (iOS \(e.os ?? "unknown")"
                if let p = e.plist {
                    out += "; Info.plist: \(p.usageKeys.joined(separator: ", ")); UIBackgroundModes [\(p.backgroundModes.joined(separator: ", "))]"
                    if let keys = p.temporaryPurposeKeys { out += "; purpose keys [\(keys.joined(separator: ", "))]" }
                    if let reduced = p.defaultAccuracyReducedXML { out += "; NSLocationDefaultAccuracyReduced \(reduced)" }
                } else {
                    out += "; no Info.plist"
                }
                out += "):\n" + e.log.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n") + "\n"
            }
        }
        examples("Triggers", r.triggeringExamples)
        examples("Does not trigger", r.nonTriggeringExamples)
        return out
    }
}
