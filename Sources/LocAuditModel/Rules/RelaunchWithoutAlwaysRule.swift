/// locationd launched the app for a location event it had no right to be launched for.
struct RelaunchWithoutAlwaysRule: SessionRule {
    static let description = RuleDescription(
        identifier: "relaunch-without-always",
        severity: .high,
        scope: .session,
        firstVersion: 8,
        description: "The system relaunched the app for significant-change, visits or region monitoring while not Always, or for a service that never relaunches.",
        seed: "004 (Launches app table; these services need always)",
        rationale: """
            Only significant-change, visits and region monitoring relaunch a suspended or terminated
            app, and only under Always; standard updates, beacon ranging and heading never do.
            The status at the relaunch is the one iOS persisted (an Allow Once grant has lapsed).
            Provisional Always reads Always and is accepted.
            """,
        triggeringExamples: [
            RuleExample(os: "12.5.7", plist: .complete, #"""
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:01 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didChangeAuthorizationStatus:", "authorizationStatus":"AuthorizedWhenInUse"}
                Nov 20 09:00:02 iPhone App[501] <Notice>: {"msg":"CLLocationManager", "event":"activity", "_cmd":"startMonitoringSignificantLocationChanges"}
                Nov 20 09:00:09 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"Terminated", "pid":501, "bundleId":"com.example.app"}
                Nov 20 10:00:00 iPhone SpringBoard[50] <Notice>: Bootstrapping app<com.example.app> with intent background
                Nov 20 10:00:00 iPhone locationd[60] <Notice>: {"msg":"#Launch client for location event", "bundleId":"com.example.app", "service":"SignificantLocationChange"}
                Nov 20 10:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"BackgroundRunning", "pid":502, "bundleId":"com.example.app"}
                """#),
            RuleExample(os: "18.1", plist: .complete, #"""
                Nov 20 10:00:00 iPhone SpringBoard[50] <Notice>: Bootstrapping app<com.example.app> with intent background
                Nov 20 10:00:00 iPhone locationd[60] <Notice>: {"msg":"#Launch client for location event", "bundleId":"com.example.app", "service":"Standard"}
                Nov 20 10:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"BackgroundRunning", "pid":502, "bundleId":"com.example.app"}
                """#),
        ],
        nonTriggeringExamples: [
            RuleExample(os: "12.5.7", plist: .complete, #"""
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:01 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didChangeAuthorizationStatus:", "authorizationStatus":"AuthorizedAlways"}
                Nov 20 09:00:02 iPhone App[501] <Notice>: {"msg":"CLLocationManager", "event":"activity", "_cmd":"startMonitoringSignificantLocationChanges"}
                Nov 20 09:00:09 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"Terminated", "pid":501, "bundleId":"com.example.app"}
                Nov 20 10:00:00 iPhone SpringBoard[50] <Notice>: Bootstrapping app<com.example.app> with intent background
                Nov 20 10:00:00 iPhone locationd[60] <Notice>: {"msg":"#Launch client for location event", "bundleId":"com.example.app", "service":"SignificantLocationChange"}
                Nov 20 10:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"BackgroundRunning", "pid":502, "bundleId":"com.example.app"}
                """#),
        ],
        notEvaluableExamples: [
            // No earlier line says the status the relaunch happened under.
            RuleExample(os: "12.5.7", plist: .complete, unknown: .status, #"""
                Nov 20 09:00:00 iPhone SpringBoard[50] <Notice>: Bootstrapping app<com.example.app> with intent background
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"#Launch client for location event", "bundleId":"com.example.app", "service":"SignificantLocationChange"}
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"BackgroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:02 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":{"horizontalAccuracy":500}}
                """#),
        ],
        facts: [.iosVersion, .appLines, .status, .services]
    )

    func check(_ session: ReplayedSession, _ settings: RuleSettings) -> RuleCheck {
        // A session that is no relaunch and shows nothing of the app's location use tells nothing.
        guard session.hasAppLines || session.session.relaunched else { return .unknown(.appLines) }
        var violations: [Violation] = []
        var unknown = FirstUnknown()
        for step in session.steps where step.event.kind == .relaunch {
            guard let service = step.event.service else { unknown.note(.services); continue }
            if !service.relaunchesApp {
                violations.append(Violation(step, "relaunched for \"\(service.rawValue)\", a service that never relaunches apps"))
            } else if let always = step.state.status(is: { $0 == .authorizedAlways }) {
                if !always {
                    let status = step.state.status?.rawValue ?? "authorizedWhenInUse\" or \"notDetermined"
                    violations.append(Violation(step, "relaunched for \"\(service.rawValue)\" while the status is \"\(status)\""))
                }
            } else {
                unknown.note(.status)
            }
        }
        return .judged(violations, unknown: unknown.fact)
    }
}
