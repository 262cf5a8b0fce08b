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
            RuleExample(os: "12.5.7", plist: .complete, ExampleLog().foreground()
                .at(1).told("AuthorizedWhenInUse", legacy: true)
                .at(2).call("startMonitoringSignificantLocationChanges")
                .at(9).terminated()
                .process(2).relaunch("SignificantLocationChange")),
            RuleExample(os: "18.1", plist: .complete, ExampleLog()
                .process(2).relaunch("Standard")),
        ],
        nonTriggeringExamples: [
            RuleExample(os: "12.5.7", plist: .complete, ExampleLog().foreground()
                .at(1).told("AuthorizedAlways", legacy: true)
                .at(2).call("startMonitoringSignificantLocationChanges")
                .at(9).terminated()
                .process(2).relaunch("SignificantLocationChange")),
        ],
        notEvaluableExamples: [
            // No earlier line says the status the relaunch happened under.
            RuleExample(os: "12.5.7", plist: .complete, unknown: .status, ExampleLog().relaunch("SignificantLocationChange")
                .at(2).deliver(500)),
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
