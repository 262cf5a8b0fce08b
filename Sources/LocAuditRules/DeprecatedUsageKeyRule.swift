import LocAuditModel
import LocAuditReplay

/// Only the pre-iOS 11 Always key, on iOS 11+.
struct DeprecatedUsageKeyRule: ConfigurationRule {
    static let description = RuleDescription(
        identifier: "deprecated-usage-key",
        severity: .low,
        scope: .configuration,
        firstVersion: 11,
        description: "Only NSLocationAlwaysUsageDescription for Always on iOS 11+, when the app is not already missing-usage-description for it (v2) and was not built with an SDK before 11.",
        seed: "002 items 2 and 4 (NSLocationAlwaysUsageDescription 字段被废弃); 001 §3.2",
        sources: [Apple.alwaysUsageKey, Apple.alwaysAndWhenInUseUsageKey],
        rationale: """
            iOS 11 replaced NSLocationAlwaysUsageDescription with
            NSLocationAlwaysAndWhenInUseUsageDescription; an app that still has only the old key
            cannot get Always there. Version 2, one cause, one finding: an app that requests Always
            with only the old key is missing-usage-description, not this too; an app built with
            an SDK before 11 keeps the old key (DTPlatformVersion). Needs the Info.plist.
            """,
        owner: .infoPlist,
        remedy: "Add NSLocationAlwaysAndWhenInUseUsageDescription and NSLocationWhenInUseUsageDescription to the Info.plist, each saying why in the user's words; NSLocationAlwaysUsageDescription serves only iOS 10 and earlier.",
        triggeringExamples: [
            RuleExample(os: "12.5.7", plist: ExamplePlist(usageKeys: [UsageKey.whenInUse, UsageKey.always], sdk: "12.4"), ExampleLog().foreground()
                .at(1).call("requestWhenInUseAuthorization")),
        ],
        nonTriggeringExamples: [
            RuleExample(os: "10.3.3", plist: ExamplePlist(usageKeys: [UsageKey.whenInUse, UsageKey.always]), ExampleLog().foreground()),
            RuleExample(os: "12.5.7", plist: .complete, ExampleLog().foreground()),
            // v2: the app requests Always with only the old key: missing-usage-description alone.
            RuleExample(os: "12.5.7", plist: ExamplePlist(usageKeys: [UsageKey.whenInUse, UsageKey.always], sdk: "12.4"), ExampleLog().foreground()
                .at(1).call("requestAlwaysAuthorization")),
            // v2: built with the iOS 10 SDK.
            RuleExample(os: "12.5.7", plist: ExamplePlist(usageKeys: [UsageKey.whenInUse, UsageKey.always], sdk: "10.3"), ExampleLog().foreground()),
        ],
        notEvaluableExamples: [
            // No Info.plist.
            RuleExample(os: "11.4", unknown: .infoPlist, ExampleLog().foreground()
                .at(1).call("requestAlwaysAuthorization")),
            RuleExample(os: "17.5.1", plist: ExamplePlist(usageKeys: [UsageKey.whenInUse, UsageKey.always]), unknown: .buildSDK, ExampleLog().foreground()),
        ],
        facts: [.iosVersion, .infoPlist, .buildSDK]
    )

    func check(_ app: AppOnVersion, _ settings: RuleSettings) -> RuleCheck {
        guard let facts = app.app else { return .unknown(.infoPlist) }
        guard IOSBehaviour.of(app.version).alwaysKeyDeprecated, facts.usageKeys.contains(UsageKey.always),
              !facts.usageKeys.contains(UsageKey.alwaysAndWhenInUse) else { return .evaluated([]) }
        guard !app.alwaysKeyNeedsSDK else { return .unknown(.buildSDK) }
        // Built with an SDK before 11 the old key serves; requested, the missing key is missing-usage-description.
        guard app.behaviour.alwaysKeyDeprecated, app.requests[.always] == nil else { return .evaluated([]) }
        let requests = app.steps.filter { $0.event.managerCall == .requestAlwaysAuthorization }.map(\.event.id)
        return .evaluated([Violation(timeUS: app.sessions[0].session.startUS,
            message: "only \"\(UsageKey.always)\" for Always on iOS \(app.version.major): \"\(UsageKey.alwaysAndWhenInUse)\" is missing from \(app.plistLabel)",
            events: requests, infoPlist: true)])
    }
}
