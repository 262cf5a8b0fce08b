/// Locations delivered to a process that has already terminated.
struct DeliveryAfterTerminationRule: SessionRule {
    static let description = RuleDescription(
        identifier: "delivery-after-termination",
        severity: .medium,
        scope: .session,
        firstVersion: nil,
        description: "Deliveries to a terminated app by a service that does not relaunch it.",
        seed: "004 (If your app is terminated, the delivery of new location events stops altogether)",
        rationale: """
            When the app is terminated, standard updates stop altogether; only the relaunching
            services bring it back, as a new process (a new session). A delivery logged by the
            terminated process is this finding only, whatever the app state or blue bar.
            """,
        triggeringExamples: [
            RuleExample(os: "17.5.1", #"""
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:01 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManagerDidChangeAuthorization:", "authorizationStatus":"AuthorizedWhenInUse"}
                Nov 20 09:00:02 iPhone App[501] <Notice>: {"msg":"CLLocationManager", "event":"activity", "_cmd":"startUpdatingLocation"}
                Nov 20 09:00:03 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"Terminated", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:04 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":{"horizontalAccuracy":10}}
                """#),
        ],
        nonTriggeringExamples: [
            RuleExample(os: "17.5.1", #"""
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:01 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManagerDidChangeAuthorization:", "authorizationStatus":"AuthorizedWhenInUse"}
                Nov 20 09:00:02 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":{"horizontalAccuracy":10}}
                Nov 20 09:00:03 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"Terminated", "pid":501, "bundleId":"com.example.app"}
                """#),
        ],
        notEvaluableExamples: [
            // No CoreLocation line of the app: deliveries to it would not be in the log.
            RuleExample(os: "17.5.1", plist: .complete, unknown: .appLines, #"""
                Nov 20 09:00:00 iPhone SpringBoard[50] <Notice>: Bootstrapping app<com.example.app> with intent foreground-interactive
                Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":501, "bundleId":"com.example.app"}
                Nov 20 09:00:03 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"Terminated", "pid":501, "bundleId":"com.example.app"}
                """#),
        ],
        facts: [.appLines]
    )

    func check(_ session: ReplayedSession, _ settings: RuleSettings) -> RuleCheck {
        guard session.hasAppLines else { return .unknown(.appLines) }
        let late = session.steps.filter { $0.event.isDelivery && $0.state.terminated }
        return .evaluated(late.map { Violation($0, "location delivered to pid \($0.event.appPid.map(String.init) ?? "?") after it terminated") })
    }
}
