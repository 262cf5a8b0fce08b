/// An Allow Once grant still in effect after the app was launched again.
struct AllowOncePersistingRule: SessionRule {
    static let description = RuleDescription(
        identifier: "allow-once-persisting",
        severity: .high,
        scope: .session,
        firstVersion: 13,
        description: "An Allow Once grant still in effect in a later session: status WhenInUse or deliveries without a new grant after relaunch.",
        seed: "001 §5.1 (App 重启后, 定位权限会重新变成 NotDetermined); 003 §4; 004",
        rationale: """
            Allow Once (iOS 13+) is a temporary WhenInUse grant: after the app is launched again
            the status is NotDetermined and the app must ask again. A later session that is told
            WhenInUse, or gets locations, with no new prompt or Settings change, kept the grant.
            """,
        triggeringExamples: [
            RuleExample(os: "13.7", plist: .complete, #"""
                Nov 20 09:00:00 iPhone SpringBoard[50] <Notice>: Bootstrapping app<com.example.app> with intent foreground-interactive
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:01 iPhone App[501] <Notice>: {"msg":"CLLocationManager", "event":"activity", "_cmd":"requestWhenInUseAuthorization"}
                Nov 20 09:00:01 iPhone locationd[60] <Notice>: {"msg":"#Authorization prompt", "bundleId":"com.example.app", "kind":"WhenInUse", "options":"AllowOnce,WhenInUse,Deny"}
                Nov 20 09:00:02 iPhone locationd[60] <Notice>: {"msg":"#Authorization prompt response", "bundleId":"com.example.app", "choice":"AllowOnce"}
                Nov 20 09:00:02 iPhone locationd[60] <Notice>: {"msg":"#Authorization changed", "bundleId":"com.example.app", "status":"AuthorizedWhenInUse", "reason":"Prompt", "provisional":0, "temporary":1}
                Nov 20 09:00:03 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":{"horizontalAccuracy":10}}
                Nov 20 09:00:09 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"Terminated", "pid":501, "bundleId":"com.example.app"}
                Nov 20 10:00:00 iPhone SpringBoard[50] <Notice>: Bootstrapping app<com.example.app> with intent foreground-interactive
                Nov 20 10:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":502, "bundleId":"com.example.app"}
                Nov 20 10:00:01 iPhone App[502] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didChangeAuthorizationStatus:", "authorizationStatus":"AuthorizedWhenInUse"}
                Nov 20 10:00:02 iPhone App[502] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":{"horizontalAccuracy":10}}
                """#),
        ],
        nonTriggeringExamples: [
            RuleExample(os: "13.7", plist: .complete, #"""
                Nov 20 09:00:00 iPhone SpringBoard[50] <Notice>: Bootstrapping app<com.example.app> with intent foreground-interactive
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:01 iPhone App[501] <Notice>: {"msg":"CLLocationManager", "event":"activity", "_cmd":"requestWhenInUseAuthorization"}
                Nov 20 09:00:01 iPhone locationd[60] <Notice>: {"msg":"#Authorization prompt", "bundleId":"com.example.app", "kind":"WhenInUse", "options":"AllowOnce,WhenInUse,Deny"}
                Nov 20 09:00:02 iPhone locationd[60] <Notice>: {"msg":"#Authorization prompt response", "bundleId":"com.example.app", "choice":"AllowOnce"}
                Nov 20 09:00:02 iPhone locationd[60] <Notice>: {"msg":"#Authorization changed", "bundleId":"com.example.app", "status":"AuthorizedWhenInUse", "reason":"Prompt", "provisional":0, "temporary":1}
                Nov 20 09:00:03 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":{"horizontalAccuracy":10}}
                Nov 20 09:00:09 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"Terminated", "pid":501, "bundleId":"com.example.app"}
                Nov 20 10:00:00 iPhone SpringBoard[50] <Notice>: Bootstrapping app<com.example.app> with intent foreground-interactive
                Nov 20 10:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":502, "bundleId":"com.example.app"}
                Nov 20 10:00:01 iPhone App[502] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didChangeAuthorizationStatus:", "authorizationStatus":"NotDetermined"}
                Nov 20 10:00:01 iPhone App[502] <Notice>: {"msg":"CLLocationManager", "event":"activity", "_cmd":"requestWhenInUseAuthorization"}
                Nov 20 10:00:01 iPhone locationd[60] <Notice>: {"msg":"#Authorization prompt", "bundleId":"com.example.app", "kind":"WhenInUse", "options":"AllowOnce,WhenInUse,Deny"}
                Nov 20 10:00:02 iPhone locationd[60] <Notice>: {"msg":"#Authorization prompt response", "bundleId":"com.example.app", "choice":"WhenInUse"}
                Nov 20 10:00:02 iPhone locationd[60] <Notice>: {"msg":"#Authorization changed", "bundleId":"com.example.app", "status":"AuthorizedWhenInUse", "reason":"Prompt", "provisional":0, "temporary":0}
                Nov 20 10:00:03 iPhone App[502] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":{"horizontalAccuracy":10}}
                """#),
        ],
        notEvaluableExamples: [
            // Only callbacks say WhenInUse: whether the first grant was Allow Once is unknown.
            RuleExample(os: "13.7", plist: .complete, unknown: .allowOnce, #"""
                Nov 20 09:00:00 iPhone SpringBoard[50] <Notice>: Bootstrapping app<com.example.app> with intent foreground-interactive
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:01 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManagerDidChangeAuthorization:", "authorizationStatus":"AuthorizedWhenInUse"}
                Nov 20 09:00:02 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":{"horizontalAccuracy":10}}
                Nov 20 09:00:09 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"Terminated", "pid":501, "bundleId":"com.example.app"}
                Nov 20 10:00:00 iPhone SpringBoard[50] <Notice>: Bootstrapping app<com.example.app> with intent foreground-interactive
                Nov 20 10:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":502, "bundleId":"com.example.app"}
                Nov 20 10:00:01 iPhone App[502] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManagerDidChangeAuthorization:", "authorizationStatus":"AuthorizedWhenInUse"}
                Nov 20 10:00:02 iPhone App[502] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":{"horizontalAccuracy":10}}
                """#),
        ],
        facts: [.iosVersion, .appLines, .allowOnce]
    )

    func check(_ session: ReplayedSession, _ settings: RuleSettings) -> RuleCheck {
        guard session.hasAppLines else { return .unknown(.appLines) }
        var violations: [Violation] = []
        var unknown = FirstUnknown()
        for step in session.steps where step.state.allowOnceLapsed != false && !step.state.terminated {
            let e = step.event
            let told = (e.kind == .authorization || (e.kind == .statusChange && e.reason == nil)) && e.status?.isAuthorized == true
            guard told || e.isDelivery else { continue }
            guard step.state.allowOnceLapsed == true else { unknown.note(.allowOnce); continue }
            if told {
                violations.append(Violation(step, "status still \"\(e.status!.rawValue)\" after relaunch with no new prompt: the Allow Once grant should have lapsed"))
            } else {
                violations.append(Violation(step, "location delivered after relaunch under a lapsed Allow Once grant"))
            }
        }
        return .judged(violations, unknown: unknown.fact)
    }
}
