/// Only the pre-iOS 11 Always key, on iOS 11+.
struct DeprecatedUsageKeyRule: ConfigurationRule {
    static let description = RuleDescription(
        identifier: "deprecated-usage-key",
        severity: .low,
        scope: .configuration,
        firstVersion: 11,
        description: "Only NSLocationAlwaysUsageDescription for Always on iOS 11+.",
        seed: "002 item 4 (NSLocationAlwaysUsageDescription 字段被废弃); 001 §3.2",
        rationale: """
            iOS 11 replaced NSLocationAlwaysUsageDescription with
            NSLocationAlwaysAndWhenInUseUsageDescription; an app that still has only the old key
            cannot get Always there. Needs the Info.plist.
            """,
        triggeringExamples: [
            RuleExample(os: "12.5.7", plist: ExamplePlist(usageKeys: [UsageKey.whenInUse, UsageKey.always]), ExampleLog().foreground()),
        ],
        nonTriggeringExamples: [
            RuleExample(os: "10.3.3", plist: ExamplePlist(usageKeys: [UsageKey.whenInUse, UsageKey.always]), ExampleLog().foreground()),
            RuleExample(os: "12.5.7", plist: .complete, ExampleLog().foreground()),
        ],
        notEvaluableExamples: [
            // No Info.plist.
            RuleExample(os: "11.4", unknown: .infoPlist, ExampleLog().foreground()
                .at(1).call("requestAlwaysAuthorization")),
        ],
        facts: [.iosVersion, .infoPlist]
    )

    func check(_ app: AppOnVersion, _ settings: RuleSettings) -> RuleCheck {
        guard let facts = app.app else { return .unknown(.infoPlist) }
        guard app.behaviour.alwaysKeyDeprecated, facts.usageKeys.contains(UsageKey.always),
              !facts.usageKeys.contains(UsageKey.alwaysAndWhenInUse) else { return .evaluated([]) }
        let requests = app.steps.filter { $0.event.managerCall == .requestAlwaysAuthorization }.map(\.event.id)
        return .evaluated([Violation(timeUS: app.sessions[0].session.startUS,
            message: "only \"\(UsageKey.always)\" for Always on iOS \(app.version.major): \"\(UsageKey.alwaysAndWhenInUse)\" is missing from \(app.plistLabel)",
            events: requests, infoPlist: true)])
    }
}
