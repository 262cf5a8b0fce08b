import Foundation
import Testing

/// What an end-to-end test needs besides Swift, and how its absence shows. On a developer's
/// machine: a visible skip, with the reason and what installs it (`swift test` prints it).
/// Under `CI=true` (`.ci/run`, which runs `scripts/setup.sh --test` first): the test runs and
/// fails saying what is missing, so that CI never passes by skipping. No test installs
/// anything itself.
enum Requirement {
    static let underCI = ProcessInfo.processInfo.environment["CI"] == "true"

    /// The test runs when `available`, or under CI (where it then fails).
    static func trait(_ available: Bool, _ reason: Comment) -> ConditionTrait {
        .enabled(if: available || underCI, reason)
    }
}

extension Trait where Self == ConditionTrait {
    /// A throwaway PostgreSQL cluster (`PostgresCluster`).
    static var needsPostgres: Self {
        Requirement.trait(PostgresCluster.available, "PostgreSQL is not installed: scripts/setup.sh --test installs it (skipped outside CI)")
    }
    /// Headless Chromium (`Chromium`).
    static var needsChromium: Self {
        Requirement.trait(Chromium.find() != nil, "chromium is not installed: scripts/setup.sh --test installs it (skipped outside CI)")
    }
    /// Python's jsonschema, which validates SARIF against the official schema.
    static var needsJSONSchema: Self {
        Requirement.trait(ReportFormatsTests.SchemaValidator.available,
                          "python3's jsonschema is not installed: scripts/setup.sh --test installs it (skipped outside CI)")
    }
}
