import LocAuditModel
import LocAuditReplay

/// iOS prompted for, or granted, an authorization whose usage key the app lacks.
struct GrantWithoutUsageDescriptionRule: SessionRule {
    static let description = RuleDescription(
        identifier: "grant-without-usage-description",
        severity: .high,
        scope: .session,
        firstVersion: 8,
        description: "A prompt or grant although the usage key that the request needs is missing.",
        seed: "001 §1 (否则调用该方法也不起作用); 002 items 3-4; 003 §3",
        sources: [Apple.requestingAuthorization, Apple.alwaysAndWhenInUseUsageKey, Apple.alwaysUsageKey],
        rationale: """
            A request whose usage key is missing from the Info.plist has no effect: no prompt, no
            change. The missing key itself is missing-usage-description (configuration); this rule
            flags the system going ahead anyway. Needs the Info.plist.
            """,
        owner: .iOS,
        remedy: "Report that iOS prompted or granted although the Info.plist lacks the usage key the request needs; add the key to the Info.plist as well (missing-usage-description names it).",
        triggeringExamples: [
            RuleExample(os: "12.5.7", plist: ExamplePlist(usageKeys: [UsageKey.whenInUse, UsageKey.always], sdk: "12.4"), ExampleLog().foreground()
                .at(1).call("requestAlwaysAuthorization").prompt("Always", options: "WhenInUse,Always,Deny")
                .at(2).answer("Always").status("AuthorizedAlways")),
        ],
        nonTriggeringExamples: [
            RuleExample(os: "10.3.3", plist: ExamplePlist(usageKeys: [UsageKey.whenInUse, UsageKey.always]), ExampleLog().foreground()
                .at(1).call("requestAlwaysAuthorization").prompt("Always", options: "Always,Deny")
                .at(2).answer("Always").status("AuthorizedAlways")),
            // A grant after a temporary full-accuracy prompt asks for no Always key.
            RuleExample(os: "14.8", plist: ExamplePlist(usageKeys: [UsageKey.whenInUse], temporaryPurposeKeys: ["Delivery"]), ExampleLog().launch()
                .at(1).call("requestWhenInUseAuthorization").prompt("WhenInUse", options: "AllowOnce,WhenInUse,Deny")
                .at(2).answer("WhenInUse").status("AuthorizedWhenInUse")
                .at(3).call("requestTemporaryFullAccuracyAuthorizationWithPurposeKey:", purposeKey: "Delivery").prompt("TemporaryFullAccuracy", options: "Allow,Deny")
                .at(4).answer("Allow").accuracy("Full", temporary: 1, purposeKey: "Delivery").status("AuthorizedWhenInUse")),
        ],
        notEvaluableExamples: [
            // The device's logs carry no prompt or authorization line: a prompt shown anyway would not be in them.
            RuleExample(os: "12.5.7", plist: ExamplePlist(usageKeys: [UsageKey.whenInUse, UsageKey.always], sdk: "12.4"), unknown: .grantLines, ExampleLog().foreground()
                .at(1).call("requestAlwaysAuthorization").app("This app has attempted to access privacy-sensitive data without a usage description. The app's Info.plist must contain both “NSLocationAlwaysAndWhenInUseUsageDescription” and “NSLocationWhenInUseUsageDescription” keys with string values explaining to the user how the app uses this data", level: "Fault")),
        ],
        facts: [.iosVersion, .infoPlist, .buildSDK, .grantLines]
    )

    func check(_ session: ReplayedSession, _ settings: RuleSettings) -> RuleCheck {
        guard let behaviour = session.behaviour else { return .unknown(.iosVersion) }
        guard let app = session.app else { return .unknown(.infoPlist) }
        guard session.initial.deviceLogs.prompts || session.initial.deviceLogs.statusChanges else { return .unknown(.grantLines) }
        var violations: [Violation] = []
        var unknown = FirstUnknown()
        for step in session.steps {
            let e = step.event
            let request: AuthorizationRequest
            switch e.kind {
            case .prompt:
                guard let asked = AuthorizationRequest(promptKind: e.promptKind) else { continue }
                request = asked
            case .statusChange where e.changeReason == .prompt && (e.status?.isAuthorized ?? false):
                // The authorization prompt that led to it; a temporary full-accuracy prompt asks for none.
                request = AuthorizationRequest(promptKind: step.state.lastPromptKind)
                    ?? step.state.lastRequest ?? (e.status == .authorizedAlways ? .always : .whenInUse)
            default:
                continue
            }
            let missing = behaviour.missingKeys(for: request, present: app.usageKeys)
            guard !missing.isEmpty else { continue }
            // On iOS 11+ an app built with an SDK before 11 keeps the old Always key (v2).
            if request == .always, behaviour.alwaysKeyDeprecated, app.buildSDK == nil, app.usageKeys.contains(UsageKey.always) {
                unknown.note(.buildSDK)
                continue
            }
            let what = e.kind == .prompt ? "prompt for \"\(e.promptKind!.rawValue)\"" : "grant of \"\(e.status!.rawValue)\""
            violations.append(Violation(step, "\(what) although \(session.plist!.label) lacks \(missing.map { "\"\($0)\"" }.joined(separator: " and "))"))
        }
        return .judged(violations, unknown: unknown.fact)
    }
}

extension AuthorizationRequest {
    /// The request an authorization prompt asks for; nil for other prompts (temporary full accuracy).
    init?(promptKind: PromptKind?) {
        switch promptKind {
        case .whenInUse?: self = .whenInUse
        case .always?, .alwaysUpgrade?: self = .always
        default: return nil
        }
    }
}
