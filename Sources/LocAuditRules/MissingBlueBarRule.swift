import LocAuditModel
import LocAuditReplay

/// A background delivery that iOS should have announced with the blue bar (pill), and did not.
struct MissingBlueBarRule: StepRule {
    static let description = RuleDescription(
        identifier: "missing-blue-bar",
        severity: .high,
        scope: .session,
        firstVersion: 8,
        description: "A background delivery to an app kept in use by updates started with the capability and the background flag YES, or by a background activity session (17+), with no blue bar: under When In Use; under Always when the indicator flag is YES (11+) or a session is held (17+).",
        seed: "001 §4.2-4.3; 002 (iOS 11 GM update; the bar only with the flag YES); 003 §2; 004",
        sources: [Apple.allowsBackgroundLocationUpdates, Apple.showsBackgroundLocationIndicator, Apple.backgroundActivitySession, Apple.wwdc23StreamlinedUpdates],
        rationale: """
            When updates keep a When In Use app running in the background, Core Location "arranges
            to show the background location indicator" (Apple, allowsBackgroundLocationUpdates);
            a background activity session shows it too (iOS 17+). Under Always the bar shows from
            iOS 11 only with showsBackgroundLocationIndicator YES, or while a session is held.
            iOS 13+ provisional Always counts as When In Use. Version 2: a delivery with the
            background flag NO (not kept in use) is no missing bar: it is
            background-delivery-without-capability, if anything.
            """,
        owner: .iOS,
        remedy: "Report that iOS showed no blue bar (the background location indicator) while it delivered locations in the background to an app kept in use by its updates or a background activity session: the evidence lines show the delivery and the indicator state.",
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
            // v2: a background activity session (iOS 17+) under Always shows the bar too.
            RuleExample(os: "17.5.1", plist: .complete, ExampleLog().bootstrap().blueBar(false).foreground()
                .at(1).told("AuthorizedAlways").status("AuthorizedAlways", reason: "Settings")
                .at(2).activitySession().liveUpdates()
                .at(3).background()
                .at(30).liveUpdate()),
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
            // v2: the background flag NO keeps nothing in use: no bar is due (v1 called it missing).
            RuleExample(os: "16.7.2", plist: .complete, ExampleLog().bootstrap().blueBar(false).foreground()
                .at(1).told("AuthorizedWhenInUse").status("AuthorizedWhenInUse", reason: "Settings")
                .at(2).call("startUpdatingLocation")
                .at(3).background()
                .at(5).deliver()),
        ],
        notEvaluableExamples: [
            // The device's logs carry no indicator line: a bar shown would not be in them.
            RuleExample(os: "12.5.7", plist: .complete, unknown: .indicatorLines, ExampleLog().launch()
                .at(1).told("AuthorizedWhenInUse")
                .at(2).property("allowsBackgroundLocationUpdates").call("startUpdatingLocation")
                .at(3).background()
                .at(4).deliver()),
            // v2: the log starts in the background with updates running: whether they were started in use is unknown.
            RuleExample(os: "17.5.1", plist: .complete, unknown: .inUse, ExampleLog().blueBar(false).background()
                .at(1).told("AuthorizedWhenInUse").status("AuthorizedWhenInUse", reason: "Settings")
                .at(2).property("allowsBackgroundLocationUpdates")
                .at(4).deliver()),
        ],
        facts: [.iosVersion, .appLines, .indicatorLines, .appState, .status, .provisionalAlways, .inUse, .indicatorFlag, .blueBar]
    )

    static func precondition(_ session: ReplayedSession) -> Fact? {
        if session.behaviour == nil { return .iosVersion }
        if !session.hasAppLines { return .appLines }
        return session.initial.deviceLogs.indicator ? nil : .indicatorLines
    }

    static func judge(_ step: ReplayStep, _ session: ReplayedSession, _ settings: RuleSettings) -> Judgement {
        let state = step.state
        guard step.event.isDelivery, !state.terminated, let behaviour = session.behaviour else { return .clear }
        var missing = Conditions()
        missing.require(state.inBackground, .appState)
        let (due, fact) = barDue(state, behaviour)
        missing.require(due, fact)
        missing.require(state.blueBarVisible.value.map(!), .blueBar)
        guard missing.violates else { return missing.unknown.map(Judgement.unknown) ?? .clear }
        if state.underWhenInUse.0 == true {
            return .violates("background delivery under WhenInUse, kept in use by \(state.keptBy), with no blue bar")
        }
        if state.activitySessionsHeld > 0 {
            return .violates("background delivery under Always while a background activity session is held, with no blue bar")
        }
        return .violates("background delivery under Always with showsBackgroundLocationIndicator \"YES\" and no blue bar")
    }

    /// Whether iOS shows the blue bar for a background delivery in `state`, and the fact that
    /// leaves it unknown (rules-model.md v2): under When In Use (provisional Always included)
    /// while something keeps the app in use; under permanent Always on iOS 11+ with the
    /// indicator flag YES and updates that run in the background, or while a session is held.
    static func barDue(_ state: ReplayState, _ behaviour: IOSBehaviour) -> (Bool?, Fact) {
        let session: Bool? = behaviour.hasBackgroundActivitySession
            ? (state.activitySessionsHeld > 0 ? true : (state.activitySessionsFromBefore ? nil : false)) : false
        let flagged: Bool? = behaviour.blueBarUnderAlways == .never ? false : ReplayState.and(state.indicatorFlag.value, state.updatesKeepInUse)
        let underAlways: Bool? = flagged == true || session == true ? true : (flagged == false && session == false ? false : nil)
        switch state.status.value {
        case nil: return (nil, .status)
        case .authorizedWhenInUse?: return (behaviour.blueBarUnderWhenInUse ? state.keptInUse : false, .inUse)
        case .authorizedAlways?:
            switch state.provisionalAlways.value {
            case true?: return (behaviour.blueBarUnderWhenInUse ? state.keptInUse : false, .inUse)
            case false?: return (underAlways, state.indicatorFlag.value == nil ? .indicatorFlag : .inUse)
            case nil: return underAlways == true && state.keptInUse == true ? (true, .status) : (nil, .provisionalAlways)
            }
        default: return (false, .status)
        }
    }
}
