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
            RuleExample(os: "12.5.7", plist: .complete, ExampleLog().bootstrap().blueBar(false).foreground()
                .at(1).told("AuthorizedWhenInUse", legacy: true)
                .at(2).property("allowsBackgroundLocationUpdates").call("startUpdatingLocation")
                .at(3).background()
                .at(4).deliver()),
            RuleExample(os: "11.4", plist: .complete, ExampleLog().bootstrap().blueBar(false).foreground()
                .at(1).told("AuthorizedAlways", legacy: true)
                .at(2).property("allowsBackgroundLocationUpdates").property("showsBackgroundLocationIndicator").call("startUpdatingLocation")
                .at(3).background()
                .at(4).deliver()),
        ],
        nonTriggeringExamples: [
            RuleExample(os: "10.3.3", plist: .complete, ExampleLog().bootstrap().blueBar(false).foreground()
                .at(1).told("AuthorizedAlways", legacy: true)
                .at(2).property("allowsBackgroundLocationUpdates").call("startUpdatingLocation")
                .at(3).background()
                .at(4).deliver()),
            RuleExample(os: "13.7", plist: .complete, ExampleLog().foreground()
                .at(1).told("AuthorizedWhenInUse", legacy: true)
                .at(2).property("allowsBackgroundLocationUpdates").call("startUpdatingLocation")
                .at(3).background().blueBar(true)
                .at(4).deliver()),
        ],
        notEvaluableExamples: [
            // The device's logs carry no indicator line: a bar shown would not be in them.
            RuleExample(os: "12.5.7", plist: .complete, unknown: .indicatorLines, ExampleLog().launch()
                .at(1).told("AuthorizedWhenInUse")
                .at(2).property("allowsBackgroundLocationUpdates").call("startUpdatingLocation")
                .at(3).background()
                .at(4).deliver()),
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
