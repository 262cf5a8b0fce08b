import LocAuditModel
import LocAuditReplay

/// Locations delivered while updates were paused automatically.
struct DeliveryWhilePausedRule: StepRule {
    static let description = RuleDescription(
        identifier: "delivery-while-paused",
        severity: .low,
        scope: .session,
        firstVersion: 6,
        versionDependent: false,
        description: "Deliveries after an automatic pause and before a resume.",
        seed: "001 §4.1 (pausesLocationUpdatesAutomatically, iOS 6)",
        sources: [Apple.pausesLocationUpdatesAutomatically],
        rationale: """
            With pausesLocationUpdatesAutomatically (iOS 6+, default YES) the system stops updates
            when the user does not move and says so (locationManagerDidPauseLocationUpdates:);
            nothing is delivered until updates resume (locationManagerDidResumeLocationUpdates:,
            or the app starts updates again).
            """,
        owner: .iOS,
        remedy: "Report that iOS delivered locations after it paused updates automatically (locationManagerDidPauseLocationUpdates) and before they resumed.",
        triggeringExamples: [
            RuleExample(os: "18.1", ExampleLog().foreground()
                .at(1).told("AuthorizedWhenInUse")
                .at(2).paused()
                .at(3).deliver()),
        ],
        nonTriggeringExamples: [
            RuleExample(os: "18.1", ExampleLog().foreground()
                .at(1).told("AuthorizedWhenInUse")
                .at(2).paused()
                .at(3).paused(false)
                .at(4).deliver()),
        ],
        notEvaluableExamples: [
            // The log starts mid-run: updates may have paused before it.
            RuleExample(os: "11.4", unknown: .paused, ExampleLog().foreground()
                .at(1).told("AuthorizedWhenInUse")
                .at(2).deliver()),
        ],
        facts: [.iosVersion, .appLines, .paused]
    )

    static func precondition(_ session: ReplayedSession) -> Fact? { session.hasAppLines ? nil : .appLines }

    static func judge(_ step: ReplayStep, _ session: ReplayedSession, _ settings: RuleSettings) -> Judgement {
        guard step.event.isDelivery, !step.state.terminated else { return .clear }
        switch step.state.paused.value {
        case true?: return .violates("location delivered while updates are paused automatically", also: [step.state.paused.event])
        case nil: return .unknown(.paused)
        case false?: return .clear
        }
    }
}
