import LocAuditModel
import LocAuditReplay

/// A location reaches an app under When In Use while it is not in use (v2): in the background
/// past the grace, kept in use by neither updates started in use nor a background activity session.
struct BackgroundDeliveryWithoutCapabilityRule: StepRule {
    static let description = RuleDescription(
        identifier: "background-delivery-without-capability",
        severity: .critical,
        scope: .session,
        firstVersion: 8,
        description: "A delivery, by any service, under When In Use while the app is not in use (background past the grace, kept in use by nothing). Under Always a background delivery is no finding.",
        seed: "003 §2; 004; 002 table (v1: any background delivery without the mode or flag, also under Always)",
        sources: [Apple.authorizedWhenInUse, Apple.allowsBackgroundLocationUpdates, Apple.choosingAuthorization, Apple.wwdc23StreamlinedUpdates],
        rationale: """
            When In Use authorizes location "while the app is in use" (Apple): in the foreground,
            for a short grace after it leaves it (locaudit: 10 s, --background-grace), and in the
            background while updates it started in use with the location background mode and
            allowsBackgroundLocationUpdates YES keep running, or while it holds a background
            activity session created in use (iOS 17+). A delivery outside all of that breaks the
            promise. Version 2: under Always a background delivery is no finding (Apple: with the
            flag NO, updates "may or may not continue in the background depending on other
            factors"); deliveries another rule already takes (a lapsed Allow Once, no
            authorization) are that rule's.
            """,
        owner: .iOS,
        remedy: "Report that iOS delivered a location to a When In Use app that was not in use: not in the foreground or its grace, kept in use neither by updates started in use with the location background mode and allowsBackgroundLocationUpdates YES nor by a background activity session.",
        triggeringExamples: [
            // Updates started in the foreground with the flag NO: in the background past the grace, not in use.
            RuleExample(os: "17.5.1", plist: .complete, ExampleLog().launch()
                .at(1).told("AuthorizedWhenInUse").status("AuthorizedWhenInUse", reason: "Settings")
                .at(2).call("startUpdatingLocation")
                .at(3).background()
                .at(30).deliver()),
            // A live update (iOS 17) after the background activity session was invalidated.
            RuleExample(os: "18.1", plist: .complete, ExampleLog().launch()
                .at(1).told("AuthorizedWhenInUse").status("AuthorizedWhenInUse", reason: "Settings")
                .at(2).activitySession().liveUpdates()
                .at(3).background()
                .at(20).invalidateActivitySession()
                .at(40).liveUpdate()),
        ],
        nonTriggeringExamples: [
            // v2: under Always the flag NO is no finding.
            RuleExample(os: "17.5.1", plist: .complete, ExampleLog().launch()
                .at(1).told("AuthorizedAlways").status("AuthorizedAlways", reason: "Settings")
                .at(2).call("startUpdatingLocation")
                .at(3).background()
                .at(30).deliver()),
            // Within the grace after leaving the foreground.
            RuleExample(os: "17.5.1", plist: .complete, ExampleLog().launch()
                .at(1).told("AuthorizedWhenInUse").status("AuthorizedWhenInUse", reason: "Settings")
                .at(2).call("startUpdatingLocation")
                .at(3).background()
                .at(8).deliver()),
            // A background activity session created in the foreground keeps the app in use (iOS 17+).
            RuleExample(os: "17.5.1", plist: .complete, ExampleLog().launch()
                .at(1).told("AuthorizedWhenInUse").status("AuthorizedWhenInUse", reason: "Settings")
                .at(2).activitySession().liveUpdates()
                .at(3).background()
                .at(60).liveUpdate()),
            RuleExample(os: "10.3.3", plist: .complete, ExampleLog().foreground()
                .at(1).told("AuthorizedWhenInUse", legacy: true)
                .at(2).property("allowsBackgroundLocationUpdates").call("startUpdatingLocation")
                .at(3).background().blueBar(true)
                .at(40).deliver()),
        ],
        notEvaluableExamples: [
            // The log starts in the background: when the app left the foreground, and whether it
            // started its updates in use, is not in the log.
            RuleExample(os: "17.5.1", plist: .complete, unknown: .inUse, ExampleLog().background()
                .at(1).told("AuthorizedWhenInUse").status("AuthorizedWhenInUse", reason: "Settings")
                .at(30).deliver()),
        ],
        facts: [.iosVersion, .appLines, .status, .provisionalAlways, .appState, .inUse]
    )

    static func precondition(_ session: ReplayedSession) -> Fact? {
        session.behaviour == nil ? .iosVersion : session.hasAppLines ? nil : .appLines
    }

    static func judge(_ step: ReplayStep, _ session: ReplayedSession, _ settings: RuleSettings) -> Judgement {
        let state = step.state
        guard step.event.isDelivery, !state.terminated else { return .clear }
        var broken = Conditions()
        let (whenInUse, fact) = state.underWhenInUse
        broken.require(whenInUse, fact)
        let inUse = state.inUse(at: step.event.timeUS)
        broken.require(inUse.map(!), state.appState.value == nil ? .appState : .inUse)
        guard broken.violates else { return broken.unknown.map(Judgement.unknown) ?? .clear }
        return .violates("location delivered under WhenInUse while the app was not in use: \(state.notInUseReason(at: step.event.timeUS))",
                         also: [state.status.event])
    }
}

extension ReplayState {
    /// Whether the app holds When In Use as Settings shows it (provisional Always included),
    /// and the fact that leaves it unknown.
    var underWhenInUse: (Bool?, Fact) {
        switch status.value {
        case nil: return (nil, .status)
        case .authorizedWhenInUse?: return (true, .status)
        case .authorizedAlways?: return (provisionalAlways.value, .provisionalAlways)
        default: return (false, .status)
        }
    }

    /// Why the app is not in use at `timeUS`, in the user's terms.
    func notInUseReason(at timeUS: Int64) -> String {
        let since: String
        if startedInBackground {
            since = "launched in the background"
        } else if let left = backgroundSinceUS {
            since = "in the background for \(oneDecimal((Double(timeUS) - Double(left)) / 1_000_000)) s, past the \(oneDecimal(Double(graceUS) / 1_000_000)) s grace"
        } else {
            since = "in the background"
        }
        return "\(since), kept in use by neither updates started in use with allowsBackgroundLocationUpdates \"YES\" nor a background activity session"
    }
}
