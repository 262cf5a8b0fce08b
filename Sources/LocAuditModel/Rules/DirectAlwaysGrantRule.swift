/// iOS 13+ gave a permanent Always straight from notDetermined with one prompt.
struct DirectAlwaysGrantRule: SessionRule {
    static let description = RuleDescription(
        identifier: "direct-always-grant",
        severity: .medium,
        scope: .session,
        firstVersion: 13,
        description: "notDetermined straight to a permanent Always from a single prompt (iOS 13+ can only give WhenInUse, Allow Once or provisional Always first).",
        seed: "001 §5.1; 003 §4 (iOS 13: 不能直接申请后台定位权限); 004 (Request Always Authorization Directly)",
        rationale: """
            From iOS 13 the first prompt of requestAlways offers Allow Once, While Using and Don't
            Allow; While Using gives provisional Always (status Always, Settings WhenInUse), and
            permanent Always needs a second, upgrade prompt.
            """,
        triggeringExamples: [
            RuleExample(os: "13.7", plist: .complete, #"""
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:01 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didChangeAuthorizationStatus:", "authorizationStatus":"NotDetermined"}
                Nov 20 09:00:01 iPhone App[501] <Notice>: {"msg":"CLLocationManager", "event":"activity", "_cmd":"requestAlwaysAuthorization"}
                Nov 20 09:00:01 iPhone locationd[60] <Notice>: {"msg":"#Authorization prompt", "bundleId":"com.example.app", "kind":"Always", "options":"AllowOnce,WhenInUse,Deny"}
                Nov 20 09:00:02 iPhone locationd[60] <Notice>: {"msg":"#Authorization prompt response", "bundleId":"com.example.app", "choice":"WhenInUse"}
                Nov 20 09:00:02 iPhone locationd[60] <Notice>: {"msg":"#Authorization changed", "bundleId":"com.example.app", "status":"AuthorizedAlways", "reason":"Prompt", "provisional":0, "temporary":0}
                """#),
        ],
        nonTriggeringExamples: [
            RuleExample(os: "13.7", plist: .complete, #"""
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:01 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didChangeAuthorizationStatus:", "authorizationStatus":"NotDetermined"}
                Nov 20 09:00:01 iPhone App[501] <Notice>: {"msg":"CLLocationManager", "event":"activity", "_cmd":"requestAlwaysAuthorization"}
                Nov 20 09:00:01 iPhone locationd[60] <Notice>: {"msg":"#Authorization prompt", "bundleId":"com.example.app", "kind":"Always", "options":"AllowOnce,WhenInUse,Deny"}
                Nov 20 09:00:02 iPhone locationd[60] <Notice>: {"msg":"#Authorization prompt response", "bundleId":"com.example.app", "choice":"WhenInUse"}
                Nov 20 09:00:02 iPhone locationd[60] <Notice>: {"msg":"#Authorization changed", "bundleId":"com.example.app", "status":"AuthorizedAlways", "reason":"Prompt", "provisional":1, "temporary":0}
                """#),
            RuleExample(os: "12.5.7", plist: .complete, #"""
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:01 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didChangeAuthorizationStatus:", "authorizationStatus":"NotDetermined"}
                Nov 20 09:00:01 iPhone App[501] <Notice>: {"msg":"CLLocationManager", "event":"activity", "_cmd":"requestAlwaysAuthorization"}
                Nov 20 09:00:01 iPhone locationd[60] <Notice>: {"msg":"#Authorization prompt", "bundleId":"com.example.app", "kind":"Always", "options":"WhenInUse,Always,Deny"}
                Nov 20 09:00:02 iPhone locationd[60] <Notice>: {"msg":"#Authorization prompt response", "bundleId":"com.example.app", "choice":"Always"}
                Nov 20 09:00:02 iPhone locationd[60] <Notice>: {"msg":"#Authorization changed", "bundleId":"com.example.app", "status":"AuthorizedAlways", "reason":"Prompt", "provisional":0, "temporary":0}
                """#),
        ],
        notEvaluableExamples: [
            // No prompt line and no status before the grant: it may come from WhenInUse.
            RuleExample(os: "14.8", plist: .complete, unknown: .status, #"""
                Nov 20 09:00:00 iPhone SpringBoard[50] <Notice>: Bootstrapping app<com.example.app> with intent foreground-interactive
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:02 iPhone locationd[60] <Notice>: {"msg":"#Authorization changed", "bundleId":"com.example.app", "status":"AuthorizedAlways", "reason":"Prompt", "provisional":0, "temporary":0}
                """#),
        ],
        facts: [.iosVersion, .authorizationLines, .status, .provisionalAlways]
    )

    func check(_ session: ReplayedSession, _ settings: RuleSettings) -> RuleCheck {
        guard session.initial.deviceLogs.authorization else { return .unknown(.authorizationLines) }
        let hasProvisional = session.behaviour?.hasProvisionalAlways ?? true
        var violations: [Violation] = []
        var unknown = FirstUnknown()
        for step in session.steps {
            let e = step.event, state = step.state
            guard e.kind == .statusChange, e.status == .authorizedAlways, e.changeReason == .prompt,
                  state.lastPromptKind != .alwaysUpgrade else { continue }
            var direct = Conditions()
            direct.require(e.provisional.map(!) ?? (hasProvisional ? nil : true), .provisionalAlways)
            // From notDetermined: the prompt that led to it was a first prompt (or, with none
            // in the session, the status before it was notDetermined).
            switch state.lastPromptPlace {
            case .first?: break
            case .upgrade?, .other?: direct.require(false, .status)
            case .unknown?: direct.require(nil, .status)
            case nil: direct.require(state.status.map { $0 == .notDetermined }, .status)
            }
            guard direct.violates else { unknown.note(direct.unknown); continue }
            violations.append(Violation(step, "\"notDetermined\" to a permanent \"authorizedAlways\" from one prompt", also: [state.lastPromptEvent]))
        }
        return .judged(violations, unknown: unknown.fact)
    }
}
