/// Standard location updates reach an app in the background although it lacks the
/// `location` background mode or (iOS 9+) left `allowsBackgroundLocationUpdates` NO.
struct BackgroundDeliveryWithoutCapabilityRule: SessionRule {
    static let description = RuleDescription(
        identifier: "background-delivery-without-capability",
        severity: .critical,
        scope: .session,
        firstVersion: 8,
        description: "A background delivery by the standard service without the location background mode, or (iOS 9+) with the background flag NO.",
        seed: "003 §2 (iOS 8, 9-10); 004 (the background mode decides, not the status); 002 table",
        rationale: """
            From iOS 8 background standard updates need Background Modes > Location updates; from
            iOS 9 also allowsBackgroundLocationUpdates = YES (on iOS 8 it behaves as always YES).
            The status does not matter: an Always app without the mode gets no background
            standard updates (004). Services that relaunch apps (significant-change, visits,
            regions) are not standard updates. Without the Info.plist the mode is unknown and
            the rule says so.
            """,
        triggeringExamples: [
            RuleExample(os: "10.3.3", plist: .complete, #"""
                Nov 20 09:00:00 iPhone SpringBoard[50] <Notice>: Bootstrapping app<com.example.app> with intent foreground-interactive
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:01 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didChangeAuthorizationStatus:", "authorizationStatus":"AuthorizedWhenInUse"}
                Nov 20 09:00:02 iPhone App[501] <Notice>: {"msg":"CLLocationManager", "event":"activity", "_cmd":"startUpdatingLocation"}
                Nov 20 09:00:03 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"BackgroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:03 iPhone locationd[60] <Notice>: {"msg":"#BackgroundIndicator visibility", "bundleId":"com.example.app", "visible":1}
                Nov 20 09:00:04 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":{"horizontalAccuracy":10}}
                """#),
            RuleExample(os: "8.4", plist: ExamplePlist(usageKeys: [UsageKey.always]), #"""
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:01 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didChangeAuthorizationStatus:", "authorizationStatus":"AuthorizedAlways"}
                Nov 20 09:00:02 iPhone App[501] <Notice>: {"msg":"CLLocationManager", "event":"activity", "_cmd":"startUpdatingLocation"}
                Nov 20 09:00:03 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"BackgroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:04 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":{"horizontalAccuracy":10}}
                """#),
        ],
        nonTriggeringExamples: [
            RuleExample(os: "10.3.3", plist: .complete, #"""
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:01 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didChangeAuthorizationStatus:", "authorizationStatus":"AuthorizedWhenInUse"}
                Nov 20 09:00:02 iPhone App[501] <Notice>: {"msg":"state transition", "event":"state_transition", "state":"LocationManager", "property":"allowsBackgroundLocationUpdates", "old":0, "new":1}
                Nov 20 09:00:02 iPhone App[501] <Notice>: {"msg":"CLLocationManager", "event":"activity", "_cmd":"startUpdatingLocation"}
                Nov 20 09:00:03 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"BackgroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:03 iPhone locationd[60] <Notice>: {"msg":"#BackgroundIndicator visibility", "bundleId":"com.example.app", "visible":1}
                Nov 20 09:00:04 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":{"horizontalAccuracy":10}}
                """#),
            RuleExample(os: "12.5.7", plist: ExamplePlist(usageKeys: [UsageKey.whenInUse, UsageKey.alwaysAndWhenInUse]), #"""
                Nov 20 09:00:00 iPhone SpringBoard[50] <Notice>: Bootstrapping app<com.example.app> with intent foreground-interactive
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:01 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didChangeAuthorizationStatus:", "authorizationStatus":"AuthorizedAlways"}
                Nov 20 09:00:02 iPhone App[501] <Notice>: {"msg":"CLLocationManager", "event":"activity", "_cmd":"startMonitoringSignificantLocationChanges"}
                Nov 20 09:00:03 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"BackgroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:04 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":{"horizontalAccuracy":500}}
                """#),
        ],
        notEvaluableExamples: [
            // The log starts mid-run: the app may have set allowsBackgroundLocationUpdates before it.
            RuleExample(os: "15.8", plist: .complete, unknown: .backgroundFlag, #"""
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"BackgroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:01 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManagerDidChangeAuthorization:", "authorizationStatus":"AuthorizedWhenInUse"}
                Nov 20 09:00:02 iPhone App[501] <Notice>: {"msg":"CLLocationManager", "event":"activity", "_cmd":"startUpdatingLocation"}
                Nov 20 09:00:03 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":{"horizontalAccuracy":10}}
                """#),
        ],
        facts: [.iosVersion, .appLines, .appState, .services, .infoPlist, .backgroundFlag]
    )

    func check(_ session: ReplayedSession, _ settings: RuleSettings) -> RuleCheck {
        guard let behaviour = session.behaviour else { return .unknown(.iosVersion) }
        guard session.hasAppLines else { return .unknown(.appLines) }
        var violations: [Violation] = []
        var unknown = FirstUnknown()
        for step in session.deliveries {
            let state = step.state
            var background = Conditions()
            background.require(state.inBackground, .appState)
            background.require(step.deliveringService.map { $0 == .standard }, .services)
            guard background.violates else { unknown.note(background.unknown); continue }
            if state.capability == false {
                violations.append(Violation(step, "background delivery without the \"location\" background mode"))
            } else if behaviour.backgroundNeedsFlag, state.backgroundFlag == false {
                violations.append(Violation(step, "background delivery with allowsBackgroundLocationUpdates \"NO\""))
            } else if state.capability == nil {
                unknown.note(.infoPlist)
            } else if behaviour.backgroundNeedsFlag, state.backgroundFlag == nil {
                unknown.note(.backgroundFlag)
            }
        }
        return .judged(violations, unknown: unknown.fact)
    }
}
