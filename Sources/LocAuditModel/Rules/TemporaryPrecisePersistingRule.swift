/// A temporary full-accuracy grant still in effect after the app was launched again.
struct TemporaryPrecisePersistingRule: SessionRule {
    static let description = RuleDescription(
        identifier: "temporary-precise-persisting",
        severity: .high,
        scope: .session,
        firstVersion: 14,
        description: "A temporary full-accuracy grant still in effect in a later session: full accuracy or precise deliveries without a new grant.",
        seed: "003 §5 (iOS 14: requestTemporaryFullAccuracyAuthorizationWithPurposeKey)",
        rationale: """
            A temporary full-accuracy grant (iOS 14+, by purpose key) lasts for the session only:
            at relaunch the app is back to reduced accuracy until it asks again. A later session
            told full accuracy, or getting locations more precise than the reduced-accuracy floor,
            with no new grant, kept it. Such deliveries are not also
            precise-delivery-under-reduced-accuracy.
            """,
        triggeringExamples: [
            RuleExample(os: "14.8", plist: .complete, ExampleLog().foreground()
                .at(1).told("AuthorizedWhenInUse", precision: 1)
                .at(2).call("requestTemporaryFullAccuracyAuthorizationWithPurposeKey:", purposeKey: "Delivery")
                .at(3).accuracy("Full", temporary: 1, purposeKey: "Delivery")
                .at(4).deliver(5)
                .at(9).terminated()
                .process(2).launch()
                .at(1).told("AuthorizedWhenInUse", precision: 0)
                .at(2).deliver(5)),
        ],
        nonTriggeringExamples: [
            RuleExample(os: "14.8", plist: .complete, ExampleLog().foreground()
                .at(1).told("AuthorizedWhenInUse", precision: 1)
                .at(3).accuracy("Full", temporary: 1, purposeKey: "Delivery")
                .at(4).deliver(5)
                .at(9).terminated()
                .process(2).launch().accuracy("Reduced", temporary: 0, reason: "Expired")
                .at(1).told("AuthorizedWhenInUse", precision: 1)
                .at(2).deliver(3000)),
        ],
        notEvaluableExamples: [
            // The device's logs carry no accuracy-change line: a temporary grant would not be in them.
            RuleExample(os: "14.8", plist: .complete, unknown: .authorizationLines, ExampleLog().launch()
                .at(1).told("AuthorizedWhenInUse", precision: 0)
                .at(2).deliver(5)
                .at(9).terminated()
                .process(2).launch()
                .at(1).told("AuthorizedWhenInUse", precision: 0)
                .at(2).deliver(5)),
        ],
        facts: [.iosVersion, .appLines, .authorizationLines, .accuracy, .locationAccuracy]
    )

    func check(_ session: ReplayedSession, _ settings: RuleSettings) -> RuleCheck {
        guard session.hasAppLines else { return .unknown(.appLines) }
        // A temporary grant is known only from accuracy-change lines; what the app held
        // before the session only from an earlier line.
        guard session.initial.deviceLogs.authorization else { return .unknown(.authorizationLines) }
        let known = session.initial.permanentAccuracy != nil || session.initial.temporaryPreciseLapsed
        var violations: [Violation] = []
        var unknown = FirstUnknown()
        for step in session.steps where !step.state.terminated {
            let e = step.event
            let full = e.kind == .authorization && e.accuracy == .full
            let precise = e.isDelivery && e.horizontalAccuracy.map { $0 < settings.reducedAccuracyFloor } != false
            guard full || precise else { continue }
            guard step.state.temporaryPreciseLapsed else {
                // No grant seen lapsing: none lapsed, unless the accuracy before the session is unknown
                // and no line of the session has said it yet.
                if !known, step.state.permanentAccuracy == nil, !step.state.temporaryFullAccuracy { unknown.note(.accuracy) }
                continue
            }
            if full {
                violations.append(Violation(step, "accuracy still \"full\" after relaunch with no new temporary grant"))
            } else if let accuracy = e.horizontalAccuracy {
                violations.append(Violation(step, "precise location (\(metres(accuracy))) after relaunch with no new temporary grant"))
            } else {
                unknown.note(.locationAccuracy)
            }
        }
        return .judged(violations, unknown: unknown.fact)
    }
}
