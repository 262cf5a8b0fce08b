import LocAuditModel
import LocAuditReplay

/// Locations delivered to a process that has already terminated.
struct DeliveryAfterTerminationRule: StepRule {
    static let description = RuleDescription(
        identifier: "delivery-after-termination",
        severity: .medium,
        scope: .session,
        firstVersion: nil,
        versionDependent: false,
        description: "Deliveries to a terminated app by a service that does not relaunch it.",
        seed: "004 (If your app is terminated, the delivery of new location events stops altogether)",
        sources: [Apple.backgroundUpdates],
        rationale: """
            When the app is terminated, standard updates stop altogether; only the relaunching
            services bring it back, as a new process (a new session). A delivery logged by the
            terminated process is this finding only, whatever the app state or blue bar.
            """,
        owner: .iOS,
        remedy: "Report that iOS delivered locations to a terminated process by a service that does not relaunch the app: the evidence lines show the termination and the delivery in the same process.",
        triggeringExamples: [
            RuleExample(os: "17.5.1", ExampleLog().foreground()
                .at(1).told("AuthorizedWhenInUse")
                .at(2).call("startUpdatingLocation")
                .at(3).terminated()
                .at(4).deliver()),
        ],
        nonTriggeringExamples: [
            RuleExample(os: "17.5.1", ExampleLog().foreground()
                .at(1).told("AuthorizedWhenInUse")
                .at(2).deliver()
                .at(3).terminated()),
        ],
        notEvaluableExamples: [
            // No CoreLocation line of the app: deliveries to it would not be in the log.
            RuleExample(os: "17.5.1", plist: .complete, unknown: .appLines, ExampleLog().launch()
                .at(3).terminated()),
        ],
        facts: [.appLines]
    )

    static func precondition(_ session: ReplayedSession) -> Fact? { session.hasAppLines ? nil : .appLines }

    static func judge(_ step: ReplayStep, _ session: ReplayedSession, _ settings: RuleSettings) -> Judgement {
        guard step.event.isDelivery, step.state.terminated else { return .clear }
        return .violates("location delivered to pid \(step.event.appPid.map(String.init) ?? "?") after it terminated")
    }
}
