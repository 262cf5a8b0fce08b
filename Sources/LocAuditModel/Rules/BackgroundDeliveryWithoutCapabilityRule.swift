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
            RuleExample(os: "10.3.3", plist: .complete, ExampleLog().launch()
                .at(1).told("AuthorizedWhenInUse", legacy: true)
                .at(2).call("startUpdatingLocation")
                .at(3).background().blueBar(true)
                .at(4).deliver()),
            RuleExample(os: "8.4", plist: ExamplePlist(usageKeys: [UsageKey.always]), ExampleLog().foreground()
                .at(1).told("AuthorizedAlways", legacy: true)
                .at(2).call("startUpdatingLocation")
                .at(3).background()
                .at(4).deliver()),
        ],
        nonTriggeringExamples: [
            RuleExample(os: "10.3.3", plist: .complete, ExampleLog().foreground()
                .at(1).told("AuthorizedWhenInUse", legacy: true)
                .at(2).property("allowsBackgroundLocationUpdates").call("startUpdatingLocation")
                .at(3).background().blueBar(true)
                .at(4).deliver()),
            RuleExample(os: "12.5.7", plist: ExamplePlist(usageKeys: [UsageKey.whenInUse, UsageKey.alwaysAndWhenInUse]), ExampleLog().launch()
                .at(1).told("AuthorizedAlways", legacy: true)
                .at(2).call("startMonitoringSignificantLocationChanges")
                .at(3).background()
                .at(4).deliver(500)),
        ],
        notEvaluableExamples: [
            // The log starts mid-run: the app may have set allowsBackgroundLocationUpdates before it.
            RuleExample(os: "15.8", plist: .complete, unknown: .backgroundFlag, ExampleLog().background()
                .at(1).told("AuthorizedWhenInUse")
                .at(2).call("startUpdatingLocation")
                .at(3).deliver()),
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
