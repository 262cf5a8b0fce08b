import LocAuditModel
import LocAuditReplay

/// The app requests an authorization without the Info.plist keys it needs on that iOS version.
struct MissingUsageDescriptionRule: ConfigurationRule {
    static let description = RuleDescription(
        identifier: "missing-usage-description",
        severity: .high,
        scope: .configuration,
        firstVersion: 8,
        description: "The app requests WhenInUse or Always (directly or, v2, by a service session's declared authorization) without the keys that request needs on that iOS version for the app's build SDK.",
        seed: "001 §1, §3.2; 002 items 2-4; 003 §1-3",
        sources: [Apple.requestWhenInUseAuthorization, Apple.requestAlwaysAuthorization, Apple.whenInUseUsageKey, Apple.alwaysAndWhenInUseUsageKey, Apple.alwaysUsageKey, Apple.serviceSession],
        rationale: """
            requestWhenInUseAuthorization needs NSLocationWhenInUseUsageDescription (iOS 8+).
            requestAlwaysAuthorization needs NSLocationAlwaysUsageDescription on iOS 8-10, and both
            NSLocationAlwaysAndWhenInUseUsageDescription and NSLocationWhenInUseUsageDescription
            from iOS 11, except for an app built with an SDK before 11 (DTPlatformVersion), which
            keeps the iOS 10 key (v2). A CLServiceSession (iOS 18+) requests what it declares.
            Without the keys the request does nothing. Read from the Info.plist; without it, only
            the system's own missing-key message can show it.
            """,
        owner: .infoPlist,
        remedy: "Add the usage keys the request needs to the Info.plist: NSLocationWhenInUseUsageDescription for When In Use, and for Always NSLocationAlwaysAndWhenInUseUsageDescription too from iOS 11 (NSLocationAlwaysUsageDescription on iOS 10 and earlier). Without them the request does nothing.",
        triggeringExamples: [
            RuleExample(os: "12.5.7", plist: ExamplePlist(usageKeys: [UsageKey.whenInUse, UsageKey.always], sdk: "12.4"), ExampleLog().foreground()
                .at(1).call("requestAlwaysAuthorization")),
            // v2: a service session declaring Always is an Always request.
            RuleExample(os: "18.1", plist: ExamplePlist(usageKeys: [UsageKey.whenInUse], sdk: "18.0"), ExampleLog().foreground()
                .at(1).serviceSession("Always")),
            RuleExample(os: "17.5.1", ExampleLog().foreground()
                .at(1).call("requestAlwaysAuthorization").app("This app has attempted to access privacy-sensitive data without a usage description. The app's Info.plist must contain both “NSLocationAlwaysAndWhenInUseUsageDescription” and “NSLocationWhenInUseUsageDescription” keys with string values explaining to the user how the app uses this data", level: "Fault")),
        ],
        nonTriggeringExamples: [
            RuleExample(os: "10.3.3", plist: ExamplePlist(usageKeys: [UsageKey.whenInUse, UsageKey.always]), ExampleLog().foreground()
                .at(1).call("requestAlwaysAuthorization")),
            // v2: built with the iOS 10 SDK, the app keeps the iOS 10 key on iOS 11 (seed 002 item 2).
            RuleExample(os: "11.4", plist: ExamplePlist(usageKeys: [UsageKey.whenInUse, UsageKey.always], sdk: "10.3"), ExampleLog().foreground()
                .at(1).call("requestAlwaysAuthorization")),
        ],
        notEvaluableExamples: [
            // No Info.plist: the keys the request needs are unknown.
            RuleExample(os: "15.8", unknown: .infoPlist, ExampleLog().foreground()
                .at(1).call("requestAlwaysAuthorization")),
            // v2: only the iOS 10 key, and the Info.plist does not say its SDK.
            RuleExample(os: "15.8", plist: ExamplePlist(usageKeys: [UsageKey.whenInUse, UsageKey.always]), unknown: .buildSDK, ExampleLog().foreground()
                .at(1).call("requestAlwaysAuthorization")),
        ],
        facts: [.iosVersion, .infoPlist, .buildSDK, .appLines]
    )

    func check(_ app: AppOnVersion, _ settings: RuleSettings) -> RuleCheck {
        let steps = app.steps
        let refusals = steps.filter { $0.event.kind == .usageKeyMissing }.map(\.event.id)
        let requests = app.requests
        guard let facts = app.app else {
            if !refusals.isEmpty {
                return .evaluated([Violation(timeUS: steps.first { $0.event.kind == .usageKeyMissing }!.event.timeUS,
                                             message: "iOS refused a request for lack of a usage description",
                                             events: refusals)])
            }
            return .unknown(.infoPlist)
        }
        // The app's requests are its own lines.
        guard app.hasAppLines else { return .unknown(.appLines) }
        var violations: [Violation] = []
        var unknown: Fact?
        for request in [AuthorizationRequest.whenInUse, .always] {
            guard let ids = requests[request] else { continue }
            if request == .always, app.alwaysKeyNeedsSDK { unknown = .buildSDK; continue }
            let missing = app.behaviour.missingKeys(for: request, present: facts.usageKeys)
            guard !missing.isEmpty else { continue }
            let call = ManagerCall(request).rawValue
            let time = steps.first { $0.event.id == ids[0] }!.event.timeUS
            violations.append(Violation(timeUS: time,
                message: "\(call) on iOS \(app.version.major) needs \(missing.map { "\"\($0)\"" }.joined(separator: " and ")), absent from \(app.plistLabel)",
                events: ids + refusals, infoPlist: true))
        }
        return .judged(violations, unknown: unknown)
    }
}
