/// A background delivery that iOS should have announced with the blue bar (pill), and did not.
struct MissingBlueBarRule: SessionRule {
    static let description = RuleDescription(
        identifier: "missing-blue-bar",
        severity: .high,
        scope: .session,
        firstVersion: 8,
        description: "A background delivery under WhenInUse with no blue bar shown; on iOS 11+ also under Always with the indicator flag YES.",
        seed: "001 §4.2-4.3; 002 (iOS 11 GM update); 003 §2; 004",
        rationale: """
            Under WhenInUse a background delivery always shows the blue bar (iOS 8+, a pill on 13+;
            it cannot be hidden from 11). Under Always the bar shows only from iOS 11 and only with
            showsBackgroundLocationIndicator YES. iOS 13+ provisional Always reads Always but is
            WhenInUse in Settings: it counts as WhenInUse here.
            """,
        triggeringExamples: [
            RuleExample(os: "12.5.7", plist: .complete, #"""
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:01 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didChangeAuthorizationStatus:", "authorizationStatus":"AuthorizedWhenInUse"}
                Nov 20 09:00:02 iPhone App[501] <Notice>: {"msg":"state transition", "event":"state_transition", "state":"LocationManager", "property":"allowsBackgroundLocationUpdates", "old":0, "new":1}
                Nov 20 09:00:02 iPhone App[501] <Notice>: {"msg":"CLLocationManager", "event":"activity", "_cmd":"startUpdatingLocation"}
                Nov 20 09:00:03 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"BackgroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:04 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":{"horizontalAccuracy":10}}
                """#),
            RuleExample(os: "11.4", plist: .complete, #"""
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:01 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didChangeAuthorizationStatus:", "authorizationStatus":"AuthorizedAlways"}
                Nov 20 09:00:02 iPhone App[501] <Notice>: {"msg":"state transition", "event":"state_transition", "state":"LocationManager", "property":"allowsBackgroundLocationUpdates", "old":0, "new":1}
                Nov 20 09:00:02 iPhone App[501] <Notice>: {"msg":"state transition", "event":"state_transition", "state":"LocationManager", "property":"showsBackgroundLocationIndicator", "old":0, "new":1}
                Nov 20 09:00:02 iPhone App[501] <Notice>: {"msg":"CLLocationManager", "event":"activity", "_cmd":"startUpdatingLocation"}
                Nov 20 09:00:03 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"BackgroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:04 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":{"horizontalAccuracy":10}}
                """#),
        ],
        nonTriggeringExamples: [
            RuleExample(os: "10.3.3", plist: .complete, #"""
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:01 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didChangeAuthorizationStatus:", "authorizationStatus":"AuthorizedAlways"}
                Nov 20 09:00:02 iPhone App[501] <Notice>: {"msg":"state transition", "event":"state_transition", "state":"LocationManager", "property":"allowsBackgroundLocationUpdates", "old":0, "new":1}
                Nov 20 09:00:02 iPhone App[501] <Notice>: {"msg":"CLLocationManager", "event":"activity", "_cmd":"startUpdatingLocation"}
                Nov 20 09:00:03 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"BackgroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:04 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":{"horizontalAccuracy":10}}
                """#),
            RuleExample(os: "13.7", plist: .complete, #"""
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:01 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didChangeAuthorizationStatus:", "authorizationStatus":"AuthorizedWhenInUse"}
                Nov 20 09:00:02 iPhone App[501] <Notice>: {"msg":"state transition", "event":"state_transition", "state":"LocationManager", "property":"allowsBackgroundLocationUpdates", "old":0, "new":1}
                Nov 20 09:00:02 iPhone App[501] <Notice>: {"msg":"CLLocationManager", "event":"activity", "_cmd":"startUpdatingLocation"}
                Nov 20 09:00:03 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"BackgroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:03 iPhone locationd[60] <Notice>: {"msg":"#BackgroundIndicator visibility", "bundleId":"com.example.app", "visible":1}
                Nov 20 09:00:04 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":{"horizontalAccuracy":10}}
                """#),
        ]
    )

    func check(_ session: ReplayedSession, _ settings: RuleSettings) -> RuleCheck {
        guard let behaviour = session.behaviour else { return .notEvaluable("unknown iOS version") }
        var violations: [Violation] = []
        for step in session.deliveries where step.state.inBackground && !step.state.blueBarVisible {
            let state = step.state
            switch state.settingsStatus {
            case .authorizedWhenInUse? where behaviour.blueBarUnderWhenInUse:
                violations.append(Violation(step, "background delivery under WhenInUse with no blue bar"))
            case .authorizedAlways? where behaviour.blueBarUnderAlways == .ifIndicatorFlag && state.indicatorFlag:
                violations.append(Violation(step, "background delivery under Always with showsBackgroundLocationIndicator \"YES\" and no blue bar"))
            default:
                break
            }
        }
        return .evaluated(violations)
    }
}
