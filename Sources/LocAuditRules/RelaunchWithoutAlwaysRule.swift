import LocAuditModel
import LocAuditReplay

/// locationd launched the app for a location event it had no right to be launched for.
struct RelaunchWithoutAlwaysRule: StepRule {
    static let description = RuleDescription(
        identifier: "relaunch-without-always",
        severity: .high,
        scope: .session,
        firstVersion: 8,
        description: "The system relaunched the app for significant-change, visits, region monitoring or (v2) a CLMonitor condition while not Always, or for a service that never relaunches.",
        seed: "004 (Launches app table; these services need always)",
        sources: [Apple.backgroundUpdates, Apple.startMonitoringSignificantLocationChanges],
        rationale: """
            Only significant-change, visits, region monitoring and (iOS 17+, v2) CLMonitor
            conditions relaunch a suspended or terminated app, and only under Always; standard updates, beacon ranging and heading never do.
            The status at the relaunch is the one iOS persisted (an Allow Once grant has lapsed).
            Provisional Always reads Always and is accepted.
            """,
        owner: .iOS,
        remedy: "Report that iOS relaunched the app for a location event without Always, or for a service that never relaunches an app.",
        triggeringExamples: [
            RuleExample(os: "12.5.7", plist: .complete, ExampleLog().foreground()
                .at(1).told("AuthorizedWhenInUse", legacy: true)
                .at(2).call("startMonitoringSignificantLocationChanges")
                .at(9).terminated()
                .process(2).relaunch("SignificantLocationChange")),
            RuleExample(os: "18.1", plist: .complete, ExampleLog()
                .process(2).relaunch("Standard")),
            // v2: a CLMonitor condition (iOS 17+) relaunches only under Always.
            RuleExample(os: "17.5.1", plist: .complete, ExampleLog().launch()
                .at(1).told("AuthorizedWhenInUse").status("AuthorizedWhenInUse", reason: "Settings")
                .at(2).monitor()
                .at(9).terminated()
                .process(2).relaunch("Monitor")),
        ],
        nonTriggeringExamples: [
            RuleExample(os: "12.5.7", plist: .complete, ExampleLog().foreground()
                .at(1).told("AuthorizedAlways", legacy: true)
                .at(2).call("startMonitoringSignificantLocationChanges")
                .at(9).terminated()
                .process(2).relaunch("SignificantLocationChange")),
            RuleExample(os: "17.5.1", plist: .complete, ExampleLog().launch()
                .at(1).told("AuthorizedAlways").status("AuthorizedAlways", reason: "Settings")
                .at(2).monitor()
                .at(9).terminated()
                .process(2).relaunch("Monitor")),
        ],
        notEvaluableExamples: [
            // No earlier line says the status the relaunch happened under.
            RuleExample(os: "12.5.7", plist: .complete, unknown: .status, ExampleLog().relaunch("SignificantLocationChange")
                .at(2).deliver(500)),
        ],
        facts: [.iosVersion, .relaunchLines, .appLines, .status, .services]
    )

    static func precondition(_ session: ReplayedSession) -> Fact? {
        if session.behaviour == nil { return .iosVersion }
        // A session that is no relaunch and shows nothing of the app's location use tells nothing.
        guard session.hasAppLines || session.session.relaunched else { return .appLines }
        // A relaunch shows only where the device's logs carry relaunch lines.
        return session.initial.deviceLogs.relaunches ? nil : .relaunchLines
    }

    static func judge(_ step: ReplayStep, _ session: ReplayedSession, _ settings: RuleSettings) -> Judgement {
        guard step.event.kind == .relaunch else { return .clear }
        guard let service = step.event.service else { return .unknown(.services) }
        if !service.relaunchesApp {
            return .violates("relaunched for \"\(service.rawValue)\", a service that never relaunches apps")
        }
        guard let always = step.state.status(is: { $0 == .authorizedAlways }) else { return .unknown(.status) }
        guard !always else { return .clear }
        let status = step.state.status.value?.rawValue ?? "authorizedWhenInUse\" or \"notDetermined"
        return .violates("relaunched for \"\(service.rawValue)\" while the status is \"\(status)\"", also: [step.state.status.event])
    }

    /// One cause, one finding: the deliveries after a relaunch this rule flags are its own.
    static func claims(_ step: ReplayStep, _ session: ReplayedSession, _ settings: RuleSettings) -> Bool {
        guard step.event.isDelivery, precondition(session) == nil else { return false }
        return session.steps.contains { relaunch in
            guard relaunch.event.kind == .relaunch, relaunch.event.timeUS <= step.event.timeUS else { return false }
            if case .violates = judge(relaunch, session, settings) { return true }
            return false
        }
    }
}
