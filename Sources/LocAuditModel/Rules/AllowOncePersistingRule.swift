/// An Allow Once grant still in effect after the app was launched again.
struct AllowOncePersistingRule: SessionRule {
    static let description = RuleDescription(
        identifier: "allow-once-persisting",
        severity: .high,
        scope: .session,
        firstVersion: 13,
        description: "An Allow Once grant still in effect in a later session: status WhenInUse or deliveries without a new grant after relaunch.",
        seed: "001 §5.1 (App 重启后, 定位权限会重新变成 NotDetermined); 003 §4; 004",
        rationale: """
            Allow Once (iOS 13+) is a temporary WhenInUse grant: after the app is launched again
            the status is NotDetermined and the app must ask again. A later session that is told
            WhenInUse, or gets locations, with no new prompt or Settings change, kept the grant.
            """,
        triggeringExamples: [
            RuleExample(os: "13.7", plist: .complete, allowedOnce
                .process(2).launch()
                .at(1).told("AuthorizedWhenInUse", legacy: true)
                .at(2).deliver()),
        ],
        nonTriggeringExamples: [
            RuleExample(os: "13.7", plist: .complete, allowedOnce
                .process(2).launch()
                .at(1).told("NotDetermined", legacy: true).call("requestWhenInUseAuthorization").prompt("WhenInUse", options: "AllowOnce,WhenInUse,Deny")
                .at(2).answer("WhenInUse").status("AuthorizedWhenInUse")
                .at(3).deliver()),
        ],
        notEvaluableExamples: [
            // Only callbacks say WhenInUse: whether the first grant was Allow Once is unknown.
            RuleExample(os: "13.7", plist: .complete, unknown: .allowOnce, ExampleLog().launch()
                .at(1).told("AuthorizedWhenInUse")
                .at(2).deliver()
                .at(9).terminated()
                .process(2).launch()
                .at(1).told("AuthorizedWhenInUse")
                .at(2).deliver()),
        ],
        facts: [.iosVersion, .appLines, .allowOnce]
    )

    /// The examples' first run: the user answers Allow Once, the app gets a location, the process ends.
    static let allowedOnce = ExampleLog().launch()
        .at(1).call("requestWhenInUseAuthorization").prompt("WhenInUse", options: "AllowOnce,WhenInUse,Deny")
        .at(2).answer("AllowOnce").status("AuthorizedWhenInUse", temporary: 1)
        .at(3).deliver()
        .at(9).terminated()

    func check(_ session: ReplayedSession, _ settings: RuleSettings) -> RuleCheck {
        guard session.hasAppLines else { return .unknown(.appLines) }
        var violations: [Violation] = []
        var unknown = FirstUnknown()
        for step in session.steps where step.state.allowOnceLapsed != false && !step.state.terminated {
            let e = step.event
            let told = (e.kind == .authorization || (e.kind == .statusChange && e.reason == nil)) && e.status?.isAuthorized == true
            guard told || e.isDelivery else { continue }
            guard step.state.allowOnceLapsed == true else { unknown.note(.allowOnce); continue }
            if told {
                violations.append(Violation(step, "status still \"\(e.status!.rawValue)\" after relaunch with no new prompt: the Allow Once grant should have lapsed"))
            } else {
                violations.append(Violation(step, "location delivered after relaunch under a lapsed Allow Once grant"))
            }
        }
        return .judged(violations, unknown: unknown.fact)
    }
}
