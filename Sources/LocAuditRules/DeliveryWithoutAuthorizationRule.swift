import LocAuditModel
import LocAuditReplay

/// A location reaches the app while its effective status is notDetermined, denied or
/// restricted: the user never agreed, or said no.
struct DeliveryWithoutAuthorizationRule: StepRule {
    static let description = RuleDescription(
        identifier: "delivery-without-authorization",
        severity: .critical,
        scope: .session,
        firstVersion: nil,
        versionDependent: false,
        description: "A location delivered (or, v2, an App Privacy Report access interval begun) while the effective status is notDetermined, denied or restricted.",
        seed: "001 §1, §3; 002 table (无/用户拒绝: 无任何定位)",
        sources: [Apple.requestingAuthorization, Apple.choosingAuthorization],
        rationale: """
            Whatever the app requested, the user's choice in Settings wins, and a denied, restricted
            or undecided app gets no location at all (Apple, requesting authorization). Deliveries after a relaunch
            under a lapsed Allow Once grant are allow-once-persisting instead; deliveries to a
            terminated process are delivery-after-termination.
            """,
        owner: .iOS,
        remedy: "Report that iOS delivered a location (or began an access interval) to an app whose status was notDetermined, denied or restricted: the evidence lines show the status and the delivery.",
        triggeringExamples: [
            RuleExample(os: "7.1.2", ExampleLog().launch()
                .at(1).call("startUpdatingLocation")
                .at(2).status("Denied", legacy: true)
                .at(3).deliver()),
            RuleExample(os: nil, ExampleLog().foreground()
                .at(1).told("NotDetermined")
                .at(2).deliverPrivate()),
        ],
        nonTriggeringExamples: [
            RuleExample(os: "17.5.1", ExampleLog().foreground()
                .at(1).told("AuthorizedWhenInUse")
                .at(2).deliver()),
            RuleExample(os: "17.5.1", ExampleLog().foreground()
                .at(1).told("Denied")
                .at(2).status("AuthorizedWhenInUse", reason: "Settings", legacy: true)
                .at(3).deliver()),
        ],
        notEvaluableExamples: [
            // No callback, status change, prompt answer or install says the status before the delivery.
            RuleExample(os: "17.5.1", plist: .complete, unknown: .status, ExampleLog().launch()
                .at(1).call("startUpdatingLocation")
                .at(2).deliver()),
        ],
        facts: [.appLines, .status]
    )

    static func precondition(_ session: ReplayedSession) -> Fact? { session.hasAppLines ? nil : .appLines }

    static func judge(_ step: ReplayStep, _ session: ReplayedSession, _ settings: RuleSettings) -> Judgement {
        let e = step.event
        guard e.isDelivery || e.kind == .accessBegin, !step.state.terminated else { return .clear }
        guard let status = step.state.status.value else { return .unknown(.status) }
        guard !status.isAuthorized else { return .clear }
        let what = e.isDelivery ? "location delivered" : "App Privacy Report location access"
        return .violates("\(what) while the status is \"\(status.rawValue)\"", also: [step.state.status.event])
    }
}
