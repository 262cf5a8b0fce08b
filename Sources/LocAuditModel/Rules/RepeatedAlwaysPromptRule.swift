/// An Always prompt the app is no longer owed.
struct RepeatedAlwaysPromptRule: SessionRule {
    static let description = RuleDescription(
        identifier: "repeated-always-prompt",
        severity: .medium,
        scope: .session,
        firstVersion: 8,
        description: "An Always prompt an app is no longer owed: a second upgrade prompt after WhenInUse, any Always prompt on iOS 11-12 after the user kept WhenInUse on a direct Always request, a second system upgrade prompt on iOS 13+.",
        seed: "001 §2 (第一次); 002 item 5; 004 (只提示一次)",
        rationale: """
            After WhenInUse, only the first requestAlways prompts (iOS 8+). On iOS 11-12 an app
            whose first request was Always and got WhenInUse may never prompt for Always again.
            On iOS 13+ the upgrade prompt (by requestAlways after WhenInUse, or by the system
            after provisional Always) is shown at most once. Prompts are counted across sessions.
            """,
        triggeringExamples: [
            RuleExample(os: "8.4", plist: .complete, #"""
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:01 iPhone locationd[60] <Notice>: {"msg":"#Authorization prompt", "bundleId":"com.example.app", "kind":"WhenInUse", "options":"WhenInUse,Deny"}
                Nov 20 09:00:02 iPhone locationd[60] <Notice>: {"msg":"#Authorization changed", "bundleId":"com.example.app", "status":"AuthorizedWhenInUse", "reason":"Prompt"}
                Nov 20 09:00:03 iPhone locationd[60] <Notice>: {"msg":"#Authorization prompt", "bundleId":"com.example.app", "kind":"AlwaysUpgrade", "options":"Always,KeepWhenInUse"}
                Nov 20 09:00:04 iPhone locationd[60] <Notice>: {"msg":"#Authorization prompt response", "bundleId":"com.example.app", "choice":"KeepWhenInUse"}
                Nov 20 09:00:09 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"Terminated", "pid":501, "bundleId":"com.example.app"}
                Nov 20 10:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":502, "bundleId":"com.example.app"}
                Nov 20 10:00:01 iPhone locationd[60] <Notice>: {"msg":"#Authorization prompt", "bundleId":"com.example.app", "kind":"AlwaysUpgrade", "options":"Always,KeepWhenInUse"}
                """#),
            RuleExample(os: "12.5.7", plist: .complete, #"""
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:01 iPhone locationd[60] <Notice>: {"msg":"#Authorization prompt", "bundleId":"com.example.app", "kind":"Always", "options":"WhenInUse,Always,Deny"}
                Nov 20 09:00:02 iPhone locationd[60] <Notice>: {"msg":"#Authorization prompt response", "bundleId":"com.example.app", "choice":"WhenInUse"}
                Nov 20 09:00:02 iPhone locationd[60] <Notice>: {"msg":"#Authorization changed", "bundleId":"com.example.app", "status":"AuthorizedWhenInUse", "reason":"Prompt"}
                Nov 20 09:00:05 iPhone locationd[60] <Notice>: {"msg":"#Authorization prompt", "bundleId":"com.example.app", "kind":"AlwaysUpgrade", "options":"Always,KeepWhenInUse"}
                """#),
        ],
        nonTriggeringExamples: [
            RuleExample(os: "12.5.7", plist: .complete, #"""
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:01 iPhone locationd[60] <Notice>: {"msg":"#Authorization prompt", "bundleId":"com.example.app", "kind":"WhenInUse", "options":"WhenInUse,Deny"}
                Nov 20 09:00:02 iPhone locationd[60] <Notice>: {"msg":"#Authorization prompt response", "bundleId":"com.example.app", "choice":"WhenInUse"}
                Nov 20 09:00:02 iPhone locationd[60] <Notice>: {"msg":"#Authorization changed", "bundleId":"com.example.app", "status":"AuthorizedWhenInUse", "reason":"Prompt"}
                Nov 20 09:00:05 iPhone locationd[60] <Notice>: {"msg":"#Authorization prompt", "bundleId":"com.example.app", "kind":"AlwaysUpgrade", "options":"Always,KeepWhenInUse"}
                """#),
            RuleExample(os: "10.3.3", plist: .complete, #"""
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:01 iPhone locationd[60] <Notice>: {"msg":"#Authorization prompt", "bundleId":"com.example.app", "kind":"Always", "options":"Always,Deny"}
                Nov 20 09:00:02 iPhone locationd[60] <Notice>: {"msg":"#Authorization prompt response", "bundleId":"com.example.app", "choice":"Deny"}
                Nov 20 09:00:02 iPhone locationd[60] <Notice>: {"msg":"#Authorization changed", "bundleId":"com.example.app", "status":"Denied", "reason":"Prompt"}
                Nov 20 09:00:05 iPhone locationd[60] <Notice>: {"msg":"#Authorization changed", "bundleId":"com.example.app", "status":"AuthorizedWhenInUse", "reason":"Settings"}
                Nov 20 09:00:07 iPhone locationd[60] <Notice>: {"msg":"#Authorization prompt", "bundleId":"com.example.app", "kind":"AlwaysUpgrade", "options":"Always,KeepWhenInUse"}
                """#),
            // Back to notDetermined (reset in Settings): the prompt history starts again, the new upgrade prompt is owed.
            RuleExample(os: "13.7", plist: .complete, #"""
                Nov 20 09:00:00 iPhone SpringBoard[50] <Notice>: Bootstrapping app<com.example.app> with intent foreground-interactive
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:01 iPhone locationd[60] <Notice>: {"msg":"#Authorization prompt", "bundleId":"com.example.app", "kind":"Always", "options":"AllowOnce,WhenInUse,Deny"}
                Nov 20 09:00:02 iPhone locationd[60] <Notice>: {"msg":"#Authorization prompt response", "bundleId":"com.example.app", "choice":"WhenInUse"}
                Nov 20 09:00:02 iPhone locationd[60] <Notice>: {"msg":"#Authorization changed", "bundleId":"com.example.app", "status":"AuthorizedAlways", "reason":"Prompt", "provisional":1, "temporary":0}
                Nov 20 09:00:03 iPhone locationd[60] <Notice>: {"msg":"#Authorization prompt", "bundleId":"com.example.app", "kind":"AlwaysUpgrade", "options":"Always,KeepWhenInUse"}
                Nov 20 09:00:04 iPhone locationd[60] <Notice>: {"msg":"#Authorization prompt response", "bundleId":"com.example.app", "choice":"KeepWhenInUse"}
                Nov 20 09:00:04 iPhone locationd[60] <Notice>: {"msg":"#Authorization changed", "bundleId":"com.example.app", "status":"AuthorizedWhenInUse", "reason":"Prompt", "provisional":0, "temporary":0}
                Nov 20 09:00:05 iPhone locationd[60] <Notice>: {"msg":"#Authorization changed", "bundleId":"com.example.app", "status":"NotDetermined", "reason":"Settings", "provisional":0, "temporary":0}
                Nov 20 09:00:06 iPhone locationd[60] <Notice>: {"msg":"#Authorization prompt", "bundleId":"com.example.app", "kind":"WhenInUse", "options":"AllowOnce,WhenInUse,Deny"}
                Nov 20 09:00:07 iPhone locationd[60] <Notice>: {"msg":"#Authorization prompt response", "bundleId":"com.example.app", "choice":"WhenInUse"}
                Nov 20 09:00:07 iPhone locationd[60] <Notice>: {"msg":"#Authorization changed", "bundleId":"com.example.app", "status":"AuthorizedWhenInUse", "reason":"Prompt", "provisional":0, "temporary":0}
                Nov 20 09:00:08 iPhone locationd[60] <Notice>: {"msg":"#Authorization prompt", "bundleId":"com.example.app", "kind":"AlwaysUpgrade", "options":"Always,KeepWhenInUse"}
                """#),
        ],
        notEvaluableExamples: [
            // The app was never seen notDetermined: an upgrade prompt before the log is unknown.
            RuleExample(os: "13.7", plist: .complete, unknown: .promptHistory, #"""
                Nov 20 09:00:00 iPhone SpringBoard[50] <Notice>: Bootstrapping app<com.example.app> with intent foreground-interactive
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:01 iPhone locationd[60] <Notice>: {"msg":"#Authorization changed", "bundleId":"com.example.app", "status":"AuthorizedWhenInUse", "reason":"Settings", "provisional":0, "temporary":0}
                Nov 20 09:00:02 iPhone locationd[60] <Notice>: {"msg":"#Authorization prompt", "bundleId":"com.example.app", "kind":"AlwaysUpgrade", "options":"Always,KeepWhenInUse"}
                """#),
        ],
        facts: [.iosVersion, .authorizationLines, .status, .promptHistory]
    )

    func check(_ session: ReplayedSession, _ settings: RuleSettings) -> RuleCheck {
        guard let behaviour = session.behaviour else { return .unknown(.iosVersion) }
        guard session.initial.deviceLogs.authorization else { return .unknown(.authorizationLines) }
        var violations: [Violation] = []
        var unknown = FirstUnknown()
        for step in session.steps where step.event.kind == .prompt {
            let state = step.state
            switch state.classify(prompt: step.event) {
            case .upgrade:
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
