import LocAuditModel
import LocAuditReplay

/// The blue bar shows for a background Always delivery where iOS promises none.
struct UnexpectedBlueBarRule: SessionRule {
    static let description = RuleDescription(
        identifier: "unexpected-blue-bar",
        severity: .low,
        scope: .session,
        firstVersion: 8,
        description: "A blue bar for a background Always delivery where none is due (iOS 8-10, or iOS 11+ with the indicator flag NO and no background activity session held).",
        seed: "002 (iOS 11 GM update, items 1-3); 003 §3 (iOS 10 and before: indicator always NO)",
        sources: [Apple.showsBackgroundLocationIndicator, Apple.backgroundActivitySession],
        rationale: """
            Under permanent Always the blue bar is not shown on iOS 8-10, and from iOS 11 only when
            showsBackgroundLocationIndicator is YES (default NO). Provisional Always counts as
            WhenInUse, where the bar is due.
            """,
        owner: .iOS,
        remedy: "Report that iOS showed the blue bar for a background delivery under permanent Always where none is due (iOS 8-10, or iOS 11+ with showsBackgroundLocationIndicator NO and no background activity session held).",
        triggeringExamples: [
            RuleExample(os: "10.3.3", plist: .complete, ExampleLog().foreground()
                .at(1).told("AuthorizedAlways", legacy: true)
                .at(2).property("allowsBackgroundLocationUpdates").call("startUpdatingLocation")
                .at(3).background().blueBar(true)
                .at(4).deliver()),
        ],
        nonTriggeringExamples: [
            RuleExample(os: "11.4", plist: .complete, ExampleLog().foreground()
                .at(1).told("AuthorizedAlways", legacy: true)
                .at(2).property("allowsBackgroundLocationUpdates").property("showsBackgroundLocationIndicator").call("startUpdatingLocation")
                .at(3).background().blueBar(true)
                .at(4).deliver()),
        ],
        notEvaluableExamples: [
            // Only a callback says Always: provisional Always (where the bar is due) or permanent is unknown.
            RuleExample(os: "16.7.2", plist: .complete, unknown: .provisionalAlways, ExampleLog().launch()
                .at(1).told("AuthorizedAlways")
                .at(2).property("allowsBackgroundLocationUpdates").call("startUpdatingLocation")
                .at(3).background().blueBar(true)
                .at(4).deliver()),
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
            unexpected.require(state.blueBarVisible.value, .blueBar)
            unexpected.require(state.status(is: { $0 == .authorizedAlways }), .status)
            unexpected.require(state.provisionalAlways.value.map(!), .provisionalAlways)
            let flagged: Bool? = behaviour.blueBarUnderAlways == .never ? false : state.indicatorFlag.value
            // v2: a background activity session (iOS 17+) shows the bar under Always too.
            let held: Bool? = !behaviour.hasBackgroundActivitySession ? false
                : state.activitySessionsHeld > 0 ? true : (state.activitySessionsFromBefore ? nil : false)
            unexpected.require(flagged.map(!), .indicatorFlag)
            unexpected.require(held.map(!), .inUse)
            guard unexpected.violates else { unknown.note(unexpected.unknown); continue }
            let why = behaviour.blueBarUnderAlways == .never
                ? "iOS \(session.version!.major) shows none under Always"
                : "showsBackgroundLocationIndicator is \"NO\""
            violations.append(Violation(step, "blue bar shown for a background Always delivery: \(why)", also: [shownBy]))
        }
        return .judged(violations, unknown: unknown.fact)
    }
}
