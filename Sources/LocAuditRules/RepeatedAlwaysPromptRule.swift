import LocAuditModel
import LocAuditReplay

/// An Always prompt the app is no longer owed.
struct RepeatedAlwaysPromptRule: SessionRule {
    static let description = RuleDescription(
        identifier: "repeated-always-prompt",
        severity: .medium,
        scope: .session,
        firstVersion: 8,
        description: "An Always prompt an app is not owed: a second upgrade prompt after WhenInUse, any Always prompt on iOS 11-12 after the user kept WhenInUse on a direct Always request, a second upgrade prompt on iOS 13+, any Always prompt during an Allow Once grant (v2). Not the system's Always reminder, nor a service session asking again after a temporary grant lapsed.",
        seed: "001 §2 (第一次); 002 item 5; 004 (只提示一次)",
        sources: [Apple.requestAlwaysAuthorization, Apple.serviceSession, Apple.wwdc24LocationAuthorization],
        rationale: """
            After WhenInUse, only the first requestAlways prompts (iOS 8+). On iOS 11-12 an app
            whose first request was Always and got WhenInUse may never prompt for Always again.
            On iOS 13+ the upgrade prompt (by requestAlways after WhenInUse, or by the system
            after provisional Always) is shown at most once. Prompts are counted across sessions.
            Version 2: a requestAlwaysAuthorization during an Allow Once grant is ignored (Apple),
            so an Always prompt then is not owed; the system's periodic Always reminder is not
            an app's prompt; a service session (iOS 18+) that declares Always may ask again after
            a temporary grant lapsed.
            """,
        owner: .iOS,
        remedy: "Report that iOS showed an Always prompt the app was not owed (a second upgrade prompt, or one during an Allow Once grant). The app may also stop calling requestAlwaysAuthorization once the user answered it.",
        triggeringExamples: [
            RuleExample(os: "8.4", plist: .complete, ExampleLog().foreground()
                .at(1).prompt("WhenInUse", options: "WhenInUse,Deny")
                .at(2).status("AuthorizedWhenInUse", legacy: true)
                .at(3).prompt("AlwaysUpgrade", options: "Always,KeepWhenInUse")
                .at(4).answer("KeepWhenInUse")
                .at(9).terminated()
                .process(2).foreground()
                .at(1).prompt("AlwaysUpgrade", options: "Always,KeepWhenInUse")),
            RuleExample(os: "12.5.7", plist: .complete, ExampleLog().foreground()
                .at(1).prompt("Always", options: "WhenInUse,Always,Deny")
                .at(2).answer("WhenInUse").status("AuthorizedWhenInUse", legacy: true)
                .at(5).prompt("AlwaysUpgrade", options: "Always,KeepWhenInUse")),
            // v2: during Allow Once requestAlwaysAuthorization is ignored: no Always prompt is owed.
            RuleExample(os: "17.5.1", plist: .complete, ExampleLog().launch()
                .at(1).call("requestWhenInUseAuthorization").prompt("WhenInUse", options: "AllowOnce,WhenInUse,Deny")
                .at(2).answer("AllowOnce").status("AuthorizedWhenInUse", temporary: 1)
                .at(3).call("requestAlwaysAuthorization").prompt("AlwaysUpgrade", options: "Always,KeepWhenInUse")),
        ],
        nonTriggeringExamples: [
            RuleExample(os: "12.5.7", plist: .complete, ExampleLog().foreground()
                .at(1).prompt("WhenInUse", options: "WhenInUse,Deny")
                .at(2).answer("WhenInUse").status("AuthorizedWhenInUse", legacy: true)
                .at(5).prompt("AlwaysUpgrade", options: "Always,KeepWhenInUse")),
            RuleExample(os: "10.3.3", plist: .complete, ExampleLog().foreground()
                .at(1).prompt("Always", options: "Always,Deny")
                .at(2).answer("Deny").status("Denied", legacy: true)
                .at(5).status("AuthorizedWhenInUse", reason: "Settings", legacy: true)
                .at(7).prompt("AlwaysUpgrade", options: "Always,KeepWhenInUse")),
            // Back to notDetermined (reset in Settings): the prompt history starts again, the new upgrade prompt is owed.
            RuleExample(os: "13.7", plist: .complete, ExampleLog().launch()
                .at(1).prompt("Always", options: "AllowOnce,WhenInUse,Deny")
                .at(2).answer("WhenInUse").status("AuthorizedAlways", provisional: 1)
                .at(3).prompt("AlwaysUpgrade", options: "Always,KeepWhenInUse")
                .at(4).answer("KeepWhenInUse").status("AuthorizedWhenInUse")
                .at(5).status("NotDetermined", reason: "Settings")
                .at(6).prompt("WhenInUse", options: "AllowOnce,WhenInUse,Deny")
                .at(7).answer("WhenInUse").status("AuthorizedWhenInUse")
                .at(8).prompt("AlwaysUpgrade", options: "Always,KeepWhenInUse")),
            // v2: the system's Always reminder is not an app's prompt.
            RuleExample(os: "17.5.1", plist: .complete, ExampleLog().launch()
                .at(1).prompt("WhenInUse", options: "AllowOnce,WhenInUse,Deny")
                .at(2).answer("WhenInUse").status("AuthorizedWhenInUse")
                .at(3).prompt("AlwaysUpgrade", options: "Always,KeepWhenInUse")
                .at(4).answer("Always").status("AuthorizedAlways")
                .at(9).prompt("AlwaysReminder", options: "KeepAlways,WhenInUse")
                .at(10).answer("KeepAlways")),
        ],
        notEvaluableExamples: [
            // v2: an upgrade prompt during Allow Once when the grant's kind is unknown (only a callback said WhenInUse).
            RuleExample(os: "17.5.1", plist: .complete, unknown: .allowOnce, ExampleLog().launch()
                .at(1).told("AuthorizedWhenInUse")
                .at(2).call("requestAlwaysAuthorization").prompt("AlwaysUpgrade", options: "Always,KeepWhenInUse")),
            // The app was never seen notDetermined: an upgrade prompt before the log is unknown.
            RuleExample(os: "13.7", plist: .complete, unknown: .promptHistory, ExampleLog().launch()
                .at(1).status("AuthorizedWhenInUse", reason: "Settings")
                .at(2).prompt("AlwaysUpgrade", options: "Always,KeepWhenInUse")),
        ],
        facts: [.iosVersion, .promptLines, .status, .allowOnce, .promptHistory]
    )

    func check(_ session: ReplayedSession, _ settings: RuleSettings) -> RuleCheck {
        guard let behaviour = session.behaviour else { return .unknown(.iosVersion) }
        guard session.initial.deviceLogs.prompts else { return .unknown(.promptLines) }
        var violations: [Violation] = []
        var unknown = FirstUnknown()
        for step in session.steps where step.event.kind == .prompt {
            let state = step.state
            let place = state.classify(prompt: step.event)
            if place == .upgrade || place == .unknown || step.event.promptKind == .always {
                // v2: requestAlwaysAuthorization during Allow Once is ignored: no Always prompt is owed.
                switch state.holdsTemporaryWhenInUse {
                case true?:
                    violations.append(Violation(step, "Always prompt during an Allow Once grant, when requestAlwaysAuthorization is ignored"))
                    continue
                case nil where state.status.value == .authorizedWhenInUse && behaviour.hasAllowOnce:
                    unknown.note(.allowOnce)
                    continue
                default: break
                }
            }
            switch place {
            case .upgrade:
                // A service session declaring Always may ask again after a temporary grant lapsed.
                if state.serviceSession == .always, state.lapsedSinceUpgradePrompt { continue }
                guard state.promptHistoryKnown else { unknown.note(.promptHistory); continue }
                if state.upgradePrompts >= 1 {
                    violations.append(Violation(step, "upgrade prompt for Always shown again (\(state.upgradePrompts + 1) so far): the app was owed one"))
                } else if behaviour.upgrade == .onceIfFirstRequestWasWhenInUse, state.keptWhenInUseOnDirectAlways {
                    violations.append(Violation(step, "Always prompt after the user kept WhenInUse on the first requestAlways"))
                }
            case .unknown:
                unknown.note(.status)
            case .first, .other:
                break
            }
        }
        return .judged(violations, unknown: unknown.fact)
    }
}
