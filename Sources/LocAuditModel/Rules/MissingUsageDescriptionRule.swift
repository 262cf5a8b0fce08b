/// The app requests an authorization without the Info.plist keys it needs on that iOS version.
struct MissingUsageDescriptionRule: ConfigurationRule {
    static let description = RuleDescription(
        identifier: "missing-usage-description",
        severity: .high,
        scope: .configuration,
        firstVersion: 8,
        description: "The app requests WhenInUse or Always without the keys that request needs on that iOS version.",
        seed: "001 §1, §3.2; 002 items 3-4; 003 §1-3",
        rationale: """
            requestWhenInUseAuthorization needs NSLocationWhenInUseUsageDescription (iOS 8+).
            requestAlwaysAuthorization needs NSLocationAlwaysUsageDescription on iOS 8-10, and both
            NSLocationAlwaysAndWhenInUseUsageDescription and NSLocationWhenInUseUsageDescription
            from iOS 11. Without them the request does nothing. Read from the Info.plist; without
            it, only the system's own missing-key message can show it.
            """,
        triggeringExamples: [
            RuleExample(os: "12.5.7", plist: ExamplePlist(usageKeys: [UsageKey.whenInUse, UsageKey.always]), ExampleLog().foreground()
                .at(1).call("requestAlwaysAuthorization")),
            RuleExample(os: "17.5.1", ExampleLog().foreground()
                .at(1).call("requestAlwaysAuthorization").app("This app has attempted to access privacy-sensitive data without a usage description. The app's Info.plist must contain both “NSLocationAlwaysAndWhenInUseUsageDescription” and “NSLocationWhenInUseUsageDescription” keys with string values explaining to the user how the app uses this data", level: "Fault")),
        ],
        nonTriggeringExamples: [
            RuleExample(os: "10.3.3", plist: ExamplePlist(usageKeys: [UsageKey.whenInUse, UsageKey.always]), ExampleLog().foreground()
                .at(1).call("requestAlwaysAuthorization")),
        ],
        notEvaluableExamples: [
            // No Info.plist: the keys the request needs are unknown.
            RuleExample(os: "15.8", unknown: .infoPlist, ExampleLog().foreground()
                .at(1).call("requestAlwaysAuthorization")),
        ],
        facts: [.iosVersion, .infoPlist, .appLines]
    )

    func check(_ app: AppOnVersion, _ settings: RuleSettings) -> RuleCheck {
        let steps = app.steps
        let refusals = steps.filter { $0.event.kind == .usageKeyMissing }.map(\.event.id)
        var requests: [AuthorizationRequest: [Int64]] = [:]
        for step in steps where step.event.kind == .call {
            if let request = step.event.managerCall?.request { requests[request, default: []].append(step.event.id) }
        }
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
        for request in [AuthorizationRequest.whenInUse, .always] {
            guard let ids = requests[request] else { continue }
            let missing = app.behaviour.missingKeys(for: request, present: facts.usageKeys)
            guard !missing.isEmpty else { continue }
            let call = ManagerCall(request).rawValue
            let time = steps.first { $0.event.id == ids[0] }!.event.timeUS
            violations.append(Violation(timeUS: time,
                message: "\(call) on iOS \(app.version.major) needs \(missing.map { "\"\($0)\"" }.joined(separator: " and ")), absent from \(app.plistLabel)",
                events: ids + refusals, infoPlist: true))
        }
        return .evaluated(violations)
    }
}
