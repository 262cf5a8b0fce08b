import LocAuditModel
import LocAuditReplay

/// A location more precise than reduced accuracy allows, with no temporary grant.
struct PreciseDeliveryUnderReducedAccuracyRule: StepRule {
    static let description = RuleDescription(
        identifier: "precise-delivery-under-reduced-accuracy",
        severity: .high,
        scope: .session,
        firstVersion: 14,
        description: "A delivery more precise than the reduced-accuracy floor (default 1000 m) while accuracy is reduced and no temporary grant is active.",
        seed: "003 §5 (iOS 14 精度权限)",
        sources: [Apple.accuracyAuthorization, Apple.defaultAccuracyReduced],
        rationale: """
            With reduced accuracy (the user turned Precise off, or NSLocationDefaultAccuracyReduced)
            iOS delivers approximate locations only; a precise one needs a temporary full-accuracy
            grant. The floor is a parameter (--reduced-accuracy-floor). `<private>` locations
            carry no accuracy, and a session that never says its accuracy authorization cannot
            be judged: both are counted as not evaluable.
            """,
        owner: .iOS,
        remedy: "Report that iOS delivered a location more precise than reduced accuracy allows while no temporary full-accuracy grant was active. If the floor does not suit the device, set --reduced-accuracy-floor instead.",
        triggeringExamples: [
            RuleExample(os: "17.5.1", plist: .complete, ExampleLog().foreground()
                .at(1).told("AuthorizedWhenInUse", precision: 1)
                .at(2).deliver(3000)
                .at(3).deliver(5)),
        ],
        nonTriggeringExamples: [
            RuleExample(os: "17.5.1", plist: .complete, ExampleLog().foreground()
                .at(1).told("AuthorizedWhenInUse", precision: 1)
                .at(2).deliver(3000)
                .at(3).accuracy("Full", temporary: 1, purposeKey: "Delivery")
                .at(4).deliver(5)),
        ],
        notEvaluableExamples: [
            // No limitsPrecision or accuracy line: the accuracy authorization is unknown.
            RuleExample(os: "14.8", plist: .complete, unknown: .accuracy, ExampleLog().launch()
                .at(1).told("AuthorizedWhenInUse")
                .at(2).deliver(5)),
        ],
        facts: [.iosVersion, .appLines, .accuracy, .locationAccuracy]
    )

    static func precondition(_ session: ReplayedSession) -> Fact? { session.hasAppLines ? nil : .appLines }

    static func judge(_ step: ReplayStep, _ session: ReplayedSession, _ settings: RuleSettings) -> Judgement {
        let state = step.state
        guard step.event.isDelivery, !state.terminated else { return .clear }
        guard let authorization = state.accuracy.value else { return .unknown(.accuracy) }
        guard authorization == .reduced, !state.temporaryFullAccuracy, !state.temporaryPreciseLapsed else { return .clear }
        guard let accuracy = step.event.horizontalAccuracy else { return .unknown(.locationAccuracy) }
        guard accuracy < settings.reducedAccuracyFloor else { return .clear }
        return .violates("location with horizontal accuracy \"\(metres(accuracy))\" while accuracy is reduced (floor \(metres(settings.reducedAccuracyFloor)))")
    }
}
