/// Locations delivered while updates were paused automatically.
struct DeliveryWhilePausedRule: SessionRule {
    static let description = RuleDescription(
        identifier: "delivery-while-paused",
        severity: .low,
        scope: .session,
        firstVersion: 6,
        description: "Deliveries after an automatic pause and before a resume.",
        seed: "001 §4.1 (pausesLocationUpdatesAutomatically, iOS 6)",
        rationale: """
            With pausesLocationUpdatesAutomatically (iOS 6+, default YES) the system stops updates
            when the user does not move and says so (locationManagerDidPauseLocationUpdates:);
            nothing is delivered until updates resume (locationManagerDidResumeLocationUpdates:,
            or the app starts updates again).
            """,
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

    func check(_ session: ReplayedSession, _ settings: RuleSettings) -> RuleCheck {
        guard session.hasAppLines else { return .unknown(.appLines) }
        var violations: [Violation] = []
        var unknown = FirstUnknown()
        for step in session.deliveries {
            switch step.state.paused {
            case true?: violations.append(Violation(step, "location delivered while updates are paused automatically"))
            case nil: unknown.note(.paused)
            case false?: break
            }
        }
        return .judged(violations, unknown: unknown.fact)
    }
}
