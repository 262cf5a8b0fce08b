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
                Nov 20 09:00:00 iPhone SpringBoard[50] <Notice>: Bootstrapping app<com.example.app> with intent foreground-interactive
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"#BackgroundIndicator visibility", "bundleId":"com.example.app", "visible":0}
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:01 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didChangeAuthorizationStatus:", "authorizationStatus":"AuthorizedWhenInUse"}
                Nov 20 09:00:02 iPhone App[501] <Notice>: {"msg":"state transition", "event":"state_transition", "state":"LocationManager", "property":"allowsBackgroundLocationUpdates", "old":0, "new":1}
                Nov 20 09:00:02 iPhone App[501] <Notice>: {"msg":"CLLocationManager", "event":"activity", "_cmd":"startUpdatingLocation"}
                Nov 20 09:00:03 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"BackgroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:04 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":{"horizontalAccuracy":10}}
                """#),
            RuleExample(os: "11.4", plist: .complete, #"""
                Nov 20 09:00:00 iPhone SpringBoard[50] <Notice>: Bootstrapping app<com.example.app> with intent foreground-interactive
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"#BackgroundIndicator visibility", "bundleId":"com.example.app", "visible":0}
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
                Nov 20 09:00:00 iPhone SpringBoard[50] <Notice>: Bootstrapping app<com.example.app> with intent foreground-interactive
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"#BackgroundIndicator visibility", "bundleId":"com.example.app", "visible":0}
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
        ],
        notEvaluableExamples: [
            // The device's logs carry no indicator line: a bar shown would not be in them.
            RuleExample(os: "12.5.7", plist: .complete, unknown: .indicatorLines, #"""
                Nov 20 09:00:00 iPhone SpringBoard[50] <Notice>: Bootstrapping app<com.example.app> with intent foreground-interactive
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:01 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManagerDidChangeAuthorization:", "authorizationStatus":"AuthorizedWhenInUse"}
                Nov 20 09:00:02 iPhone App[501] <Notice>: {"msg":"state transition", "event":"state_transition", "state":"LocationManager", "property":"allowsBackgroundLocationUpdates", "old":0, "new":1}
                Nov 20 09:00:02 iPhone App[501] <Notice>: {"msg":"CLLocationManager", "event":"activity", "_cmd":"startUpdatingLocation"}
                Nov 20 09:00:03 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"BackgroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:04 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":{"horizontalAccuracy":10}}
                """#),
        ],
        facts: [.iosVersion, .appLines, .indicatorLines, .appState, .status, .provisionalAlways, .indicatorFlag, .blueBar]
    )

    func check(_ session: ReplayedSession, _ settings: RuleSettings) -> RuleCheck {
        guard let behaviour = session.behaviour else { return .unknown(.iosVersion) }
        guard session.hasAppLines else { return .unknown(.appLines) }
        guard session.initial.deviceLogs.indicator else { return .unknown(.indicatorLines) }
        var violations: [Violation] = []
        var unknown = FirstUnknown()
        for step in session.deliveries {
            let state = step.state
            var missing = Conditions()
            missing.require(state.inBackground, .appState)
            let (due, fact) = Self.barDue(state, behaviour)
            missing.require(due, fact)
            missing.require(state.blueBarVisible.map(!), .blueBar)
            guard missing.violates else { unknown.note(missing.unknown); continue }
            if state.settingsStatus == .authorizedWhenInUse {
                violations.append(Violation(step, "background delivery under WhenInUse with no blue bar"))
            } else {
                violations.append(Violation(step, "background delivery under Always with showsBackgroundLocationIndicator \"YES\" and no blue bar"))
            }
        }
        return .judged(violations, unknown: unknown.fact)
    }

    /// Whether iOS shows the blue bar for a background delivery in `state`, and the fact
    /// that leaves it unknown: under WhenInUse (provisional Always included) always, under
    /// permanent Always on iOS 11+ with the indicator flag YES.
    static func barDue(_ state: ReplayState, _ behaviour: IOSBehaviour) -> (Bool?, Fact) {
        let underAlways: Bool? = behaviour.blueBarUnderAlways == .never ? false : state.indicatorFlag
        switch state.status {
        case nil: return (nil, .status)
        case .authorizedWhenInUse?: return (behaviour.blueBarUnderWhenInUse, .status)
        case .authorizedAlways?:
            switch state.provisionalAlways {
            case true?: return (behaviour.blueBarUnderWhenInUse, .status)
            case false?: return (underAlways, .indicatorFlag)
            case nil: return underAlways == true ? (true, .status) : (nil, .provisionalAlways)
            }
        default: return (false, .status)
        }
    }
}
