import LocAuditModel
import LocAuditReplay

/// Under When In Use, background updates or a background activity session started while the
/// app was not in use: Core Location keeps an app in use only for what it started in use (v2, new).
struct BackgroundUpdatesStartedInBackgroundRule: StepRule {
    static let description = RuleDescription(
        identifier: "background-updates-started-in-background",
        severity: .medium,
        scope: .session,
        firstVersion: 9,
        description: "Under When In Use, standard updates with the background flag YES, or a background activity session (17+), started while the app was not in use: they stop at suspension and no indicator shows.",
        seed: "none (rules model v2, from Apple's pages)",
        sources: [Apple.allowsBackgroundLocationUpdates, Apple.backgroundActivitySession, Apple.authorizedWhenInUse, Apple.wwdc23StreamlinedUpdates],
        rationale: """
            Core Location keeps a When In Use app running in the background only for updates it
            started while in use ("start the services while the app is in use", Apple,
            authorizedWhenInUse), and a CLBackgroundActivitySession must be created in use to keep
            it in use (WWDC23). Started from the background past the grace (after a background
            launch, a relaunch, a background task), they do not keep the app in use: the
            updates stop at suspension, no indicator shows, and the app's background location
            silently fails. A programming error the app can fix; medium.
            """,
        owner: .appCode,
        remedy: "Start the updates (allowsBackgroundLocationUpdates YES) or create the CLBackgroundActivitySession while the app is in use, in the foreground; for locations from the background, ask for Always or use a service that relaunches the app (significant-change, visits, regions, CLMonitor).",
        triggeringExamples: [
            // Relaunched in the background, the app starts updates with the flag YES under When In Use.
            RuleExample(os: "17.5.1", plist: .complete, ExampleLog().bootstrap(intent: "background").background()
                .at(1).told("AuthorizedWhenInUse").status("AuthorizedWhenInUse", reason: "Settings")
                .at(2).property("allowsBackgroundLocationUpdates").call("startUpdatingLocation")),
            RuleExample(os: "17.5.1", plist: .complete, ExampleLog().launch()
                .at(1).told("AuthorizedWhenInUse").status("AuthorizedWhenInUse", reason: "Settings")
                .at(2).background()
                .at(40).activitySession()),
        ],
        nonTriggeringExamples: [
            // Started in the foreground.
            RuleExample(os: "17.5.1", plist: .complete, ExampleLog().launch()
                .at(1).told("AuthorizedWhenInUse").status("AuthorizedWhenInUse", reason: "Settings")
                .at(2).activitySession().property("allowsBackgroundLocationUpdates").call("startUpdatingLocation")
                .at(3).background()),
            // Under Always an app may start updates in the background.
            RuleExample(os: "17.5.1", plist: .complete, ExampleLog().bootstrap(intent: "background").background()
                .at(1).told("AuthorizedAlways").status("AuthorizedAlways", reason: "Settings")
                .at(2).property("allowsBackgroundLocationUpdates").call("startUpdatingLocation")),
        ],
        notEvaluableExamples: [
            // The log starts in the background: when the app left the foreground is unknown.
            RuleExample(os: "17.5.1", plist: .complete, unknown: .inUse, ExampleLog().background()
                .at(1).told("AuthorizedWhenInUse").status("AuthorizedWhenInUse", reason: "Settings")
                .at(2).property("allowsBackgroundLocationUpdates").call("startUpdatingLocation")),
        ],
        facts: [.iosVersion, .appLines, .status, .provisionalAlways, .appState, .inUse, .backgroundFlag]
    )

    static func precondition(_ session: ReplayedSession) -> Fact? {
        session.behaviour == nil ? .iosVersion : session.hasAppLines ? nil : .appLines
    }

    static func judge(_ step: ReplayStep, _ session: ReplayedSession, _ settings: RuleSettings) -> Judgement {
        let state = step.state, e = step.event
        guard e.kind == .call || e.kind == .property, !state.terminated, let behaviour = session.behaviour else { return .clear }
        let startsUpdates = !state.services.contains(.standard)
            && ((e.kind == .call && e.startsService == true && e.callService == .standard)
                || (e.kind == .property && e.property == .updatingLocation && e.value == 1))
        let startsSession = e.managerCall == .backgroundActivitySession && behaviour.hasBackgroundActivitySession
        guard startsUpdates || startsSession else { return .clear }
        var broken = Conditions()
        let (whenInUse, fact) = state.underWhenInUse
        broken.require(whenInUse, fact)
        if startsUpdates { broken.require(behaviour.backgroundNeedsFlag ? state.backgroundFlag.value : false, .backgroundFlag) }
        broken.require(state.inUse(at: e.timeUS).map(!), state.appState.value == nil ? .appState : .inUse)
        guard broken.violates else { return broken.unknown.map(Judgement.unknown) ?? .clear }
        let what = startsSession ? "background activity session created" : "standard updates with allowsBackgroundLocationUpdates \"YES\" started"
        return .violates("\(what) under WhenInUse while the app was not in use (\(state.notInUseReason(at: e.timeUS))): they will not keep it in use")
    }
}
