/// The blue bar shows for a background Always delivery where iOS promises none.
struct UnexpectedBlueBarRule: SessionRule {
    static let description = RuleDescription(
        identifier: "unexpected-blue-bar",
        severity: .low,
        scope: .session,
        firstVersion: 8,
        description: "A blue bar for a background Always delivery where none is due (iOS 8-10, or iOS 11+ with the indicator flag NO).",
        seed: "002 (iOS 11 GM update, items 1-3); 003 §3 (iOS 10 and before: indicator always NO)",
        rationale: """
            Under permanent Always the blue bar is not shown on iOS 8-10, and from iOS 11 only when
            showsBackgroundLocationIndicator is YES (default NO). Provisional Always counts as
            WhenInUse, where the bar is due.
            """,
        triggeringExamples: [
            RuleExample(os: "10.3.3", plist: .complete, #"""
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:01 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didChangeAuthorizationStatus:", "authorizationStatus":"AuthorizedAlways"}
                Nov 20 09:00:02 iPhone App[501] <Notice>: {"msg":"state transition", "event":"state_transition", "state":"LocationManager", "property":"allowsBackgroundLocationUpdates", "old":0, "new":1}
                Nov 20 09:00:02 iPhone App[501] <Notice>: {"msg":"CLLocationManager", "event":"activity", "_cmd":"startUpdatingLocation"}
                Nov 20 09:00:03 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"BackgroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:03 iPhone locationd[60] <Notice>: {"msg":"#BackgroundIndicator visibility", "bundleId":"com.example.app", "visible":1}
                Nov 20 09:00:04 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":{"horizontalAccuracy":10}}
                """#),
        ],
        nonTriggeringExamples: [
            RuleExample(os: "11.4", plist: .complete, #"""
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:01 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didChangeAuthorizationStatus:", "authorizationStatus":"AuthorizedAlways"}
                Nov 20 09:00:02 iPhone App[501] <Notice>: {"msg":"state transition", "event":"state_transition", "state":"LocationManager", "property":"allowsBackgroundLocationUpdates", "old":0, "new":1}
                Nov 20 09:00:02 iPhone App[501] <Notice>: {"msg":"state transition", "event":"state_transition", "state":"LocationManager", "property":"showsBackgroundLocationIndicator", "old":0, "new":1}
                Nov 20 09:00:02 iPhone App[501] <Notice>: {"msg":"CLLocationManager", "event":"activity", "_cmd":"startUpdatingLocation"}
                Nov 20 09:00:03 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"BackgroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:03 iPhone locationd[60] <Notice>: {"msg":"#BackgroundIndicator visibility", "bundleId":"com.example.app", "visible":1}
                Nov 20 09:00:04 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":{"horizontalAccuracy":10}}
                """#),
        ],
        notEvaluableExamples: [
            // Only a callback says Always: provisional Always (where the bar is due) or permanent is unknown.
            RuleExample(os: "16.7.2", plist: .complete, unknown: .provisionalAlways, #"""
                Nov 20 09:00:00 iPhone SpringBoard[50] <Notice>: Bootstrapping app<com.example.app> with intent foreground-interactive
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:01 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManagerDidChangeAuthorization:", "authorizationStatus":"AuthorizedAlways"}
                Nov 20 09:00:02 iPhone App[501] <Notice>: {"msg":"state transition", "event":"state_transition", "state":"LocationManager", "property":"allowsBackgroundLocationUpdates", "old":0, "new":1}
                Nov 20 09:00:02 iPhone App[501] <Notice>: {"msg":"CLLocationManager", "event":"activity", "_cmd":"startUpdatingLocation"}
                Nov 20 09:00:03 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"BackgroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:03 iPhone locationd[60] <Notice>: {"msg":"#BackgroundIndicator visibility", "bundleId":"com.example.app", "visible":1}
                Nov 20 09:00:04 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":{"horizontalAccuracy":10}}
                """#),
        ],
        facts: [.iosVersion, .appLines, .indicatorLines, .appState, .blueBar, .status, .provisionalAlways, .indicatorFlag]
    )

    func check(_ session: ReplayedSession, _ settings: RuleSettings) -> RuleCheck {
        guard let behaviour = session.behaviour else { return .unknown(.iosVersion) }
        guard session.hasAppLines else { return .unknown(.appLines) }
        guard session.initial.deviceLogs.indicator else { return .unknown(.indicatorLines) }
        var violations: [Violation] = []
        var unknown = FirstUnknown()
        var shownBy: Int64?
        for step in session.steps {
            if step.event.kind == .blueBar, step.event.visible == true { shownBy = step.event.id }
            let state = step.state
            guard step.event.isDelivery, !state.terminated else { continue }
            var unexpected = Conditions()
            unexpected.require(state.inBackground, .appState)
            unexpected.require(state.blueBarVisible, .blueBar)
            unexpected.require(state.status(is: { $0 == .authorizedAlways }), .status)
            unexpected.require(state.provisionalAlways.map(!), .provisionalAlways)
            let due: Bool? = behaviour.blueBarUnderAlways == .never ? false : state.indicatorFlag
            unexpected.require(due.map(!), .indicatorFlag)
            guard unexpected.violates else { unknown.note(unexpected.unknown); continue }
            let why = behaviour.blueBarUnderAlways == .never
                ? "iOS \(session.version!.major) shows none under Always"
                : "showsBackgroundLocationIndicator is \"NO\""
            violations.append(Violation(step, "blue bar shown for a background Always delivery: \(why)", also: [shownBy]))
        }
        return .judged(violations, unknown: unknown.fact)
    }
}
