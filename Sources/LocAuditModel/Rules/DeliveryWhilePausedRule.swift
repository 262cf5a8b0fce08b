/// Locations delivered while updates were paused automatically.
struct DeliveryWhilePausedRule: SessionRule {
    static let description = RuleDescription(
        identifier: "delivery-while-paused",
        severity: .low,
        scope: .session,
        firstVersion: 6,
        description: "Deliveries after an automatic pause and before a resume.",
        seed: "001 §4.1 (pausesLocationUpdatesAutomatically, iOS 6)",
        rationale: """
            With pausesLocationUpdatesAutomatically (iOS 6+, default YES) the system stops updates
            when the user does not move and says so (locationManagerDidPauseLocationUpdates:);
            nothing is delivered until updates resume (locationManagerDidResumeLocationUpdates:,
            or the app starts updates again).
            """,
        triggeringExamples: [
            RuleExample(os: "18.1", #"""
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:01 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManagerDidChangeAuthorization:", "authorizationStatus":"AuthorizedWhenInUse"}
                Nov 20 09:00:02 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManagerDidPauseLocationUpdates:"}
                Nov 20 09:00:03 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":{"horizontalAccuracy":10}}
                """#),
        ],
        nonTriggeringExamples: [
            RuleExample(os: "18.1", #"""
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:01 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManagerDidChangeAuthorization:", "authorizationStatus":"AuthorizedWhenInUse"}
                Nov 20 09:00:02 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManagerDidPauseLocationUpdates:"}
                Nov 20 09:00:03 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManagerDidResumeLocationUpdates:"}
                Nov 20 09:00:04 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":{"horizontalAccuracy":10}}
                """#),
        ],
        notEvaluableExamples: [
            // The log starts mid-run: updates may have paused before it.
            RuleExample(os: "11.4", unknown: .paused, #"""
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:01 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManagerDidChangeAuthorization:", "authorizationStatus":"AuthorizedWhenInUse"}
                Nov 20 09:00:02 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":{"horizontalAccuracy":10}}
                """#),
        ],
        facts: [.iosVersion, .appLines, .paused]
    )

    func check(_ session: ReplayedSession, _ settings: RuleSettings) -> RuleCheck {
        guard session.hasAppLines else { return .unknown(.appLines) }
        var violations: [Violation] = []
        var unknown = FirstUnknown()
        for step in session.deliveries {
            switch step.state.paused {
            case true?: violations.append(Violation(step, "location delivered while updates are paused automatically"))
            case nil: unknown.note(.paused)
            case false?: break
            }
        }
        return .judged(violations, unknown: unknown.fact)
    }
}
