/// A location reaches the app while its effective status is notDetermined, denied or
/// restricted: the user never agreed, or said no.
struct DeliveryWithoutAuthorizationRule: SessionRule {
    static let description = RuleDescription(
        identifier: "delivery-without-authorization",
        severity: .critical,
        scope: .session,
        firstVersion: nil,
        description: "A location delivered while the effective status is notDetermined, denied or restricted.",
        seed: "001 §1, §3; 002 table (无/用户拒绝: 无任何定位)",
        rationale: """
            Whatever the app requested, the user's choice in Settings wins (001 §3), and a denied
            or undecided app gets no location at all (002's table). Deliveries after a relaunch
            under a lapsed Allow Once grant are allow-once-persisting instead; deliveries to a
            terminated process are delivery-after-termination.
            """,
        triggeringExamples: [
            RuleExample(os: "7.1.2", #"""
                Nov 20 09:00:00 iPhone SpringBoard[50] <Notice>: Bootstrapping app<com.example.app> with intent foreground-interactive
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:01 iPhone App[501] <Notice>: {"msg":"CLLocationManager", "event":"activity", "_cmd":"startUpdatingLocation"}
                Nov 20 09:00:02 iPhone locationd[60] <Notice>: {"msg":"#Authorization changed", "bundleId":"com.example.app", "status":"Denied", "reason":"Prompt"}
                Nov 20 09:00:03 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":{"horizontalAccuracy":10}}
                """#),
            RuleExample(os: nil, #"""
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:01 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManagerDidChangeAuthorization:", "authorizationStatus":"NotDetermined"}
                Nov 20 09:00:02 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":<private>}
                """#),
        ],
        nonTriggeringExamples: [
            RuleExample(os: "17.5.1", #"""
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:01 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManagerDidChangeAuthorization:", "authorizationStatus":"AuthorizedWhenInUse"}
                Nov 20 09:00:02 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":{"horizontalAccuracy":10}}
                """#),
            RuleExample(os: "17.5.1", #"""
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:01 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManagerDidChangeAuthorization:", "authorizationStatus":"Denied"}
                Nov 20 09:00:02 iPhone locationd[60] <Notice>: {"msg":"#Authorization changed", "bundleId":"com.example.app", "status":"AuthorizedWhenInUse", "reason":"Settings"}
                Nov 20 09:00:03 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":{"horizontalAccuracy":10}}
                """#),
        ],
        notEvaluableExamples: [
            // No callback, status change, prompt answer or install says the status before the delivery.
            RuleExample(os: "17.5.1", plist: .complete, unknown: .status, #"""
                Nov 20 09:00:00 iPhone SpringBoard[50] <Notice>: Bootstrapping app<com.example.app> with intent foreground-interactive
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:01 iPhone App[501] <Notice>: {"msg":"CLLocationManager", "event":"activity", "_cmd":"startUpdatingLocation"}
                Nov 20 09:00:02 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":{"horizontalAccuracy":10}}
                """#),
        ],
        facts: [.appLines, .status]
    )

    func check(_ session: ReplayedSession, _ settings: RuleSettings) -> RuleCheck {
        guard session.hasAppLines else { return .unknown(.appLines) }
        var violations: [Violation] = []
        var unknown = FirstUnknown()
        // Deliveries under a lapsed Allow Once grant are allow-once-persisting only.
        for step in session.deliveries where step.state.allowOnceLapsed != true {
            guard let status = step.state.status else { unknown.note(.status); continue }
            if !status.isAuthorized {
                violations.append(Violation(step, "location delivered while the status is \"\(status.rawValue)\""))
            }
        }
        return .judged(violations, unknown: unknown.fact)
    }
}
