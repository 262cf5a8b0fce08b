import LocAuditModel
import LocAuditReplay

/// `NSLocationDefaultAccuracyReduced` of a type iOS ignores.
struct InvalidDefaultAccuracyReducedRule: ConfigurationRule {
    static let description = RuleDescription(
        identifier: "invalid-default-accuracy-reduced",
        severity: .low,
        scope: .configuration,
        firstVersion: 14,
        description: "NSLocationDefaultAccuracyReduced present but not a Boolean.",
        seed: "003 §5 (需要注意该字段类型为Boolean, 如果为其他类型则不起效)",
        sources: [Apple.defaultAccuracyReduced, Apple.accuracyAuthorization],
        rationale: """
            NSLocationDefaultAccuracyReduced (iOS 14+) must be a Boolean; a string such as "YES"
            is ignored and the app asks for precise location after all. Needs the Info.plist.
            """,
        owner: .infoPlist,
        remedy: "Make NSLocationDefaultAccuracyReduced a Boolean (<true/> or <false/> in the Info.plist), or remove it: a string or a number is ignored.",
        triggeringExamples: [
            RuleExample(os: "17.5.1", plist: ExamplePlist(usageKeys: [UsageKey.whenInUse], defaultAccuracyReducedXML: "<string>YES</string>"), ExampleLog().foreground()),
        ],
        nonTriggeringExamples: [
            RuleExample(os: "17.5.1", plist: ExamplePlist(usageKeys: [UsageKey.whenInUse], defaultAccuracyReducedXML: "<true/>"), ExampleLog().foreground()),
        ],
        notEvaluableExamples: [
            // No Info.plist.
            RuleExample(os: "14.8", unknown: .infoPlist, ExampleLog().foreground()
                .at(1).told("AuthorizedWhenInUse")),
        ],
        facts: [.iosVersion, .infoPlist]
    )

    func check(_ app: AppOnVersion, _ settings: RuleSettings) -> RuleCheck {
        guard let facts = app.app else { return .unknown(.infoPlist) }
        guard let type = facts.defaultAccuracyReducedType, AppFacts.PlistType(rawValue: type) != .boolean else { return .evaluated([]) }
        return .evaluated([Violation(timeUS: app.sessions[0].session.startUS,
            message: "NSLocationDefaultAccuracyReduced of \(app.plistLabel) is a \"\(type)\" (\"\(facts.defaultAccuracyReduced ?? "")\"), not a Boolean: iOS ignores it",
            events: [], infoPlist: true)])
    }
}
