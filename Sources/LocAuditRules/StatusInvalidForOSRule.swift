import LocAuditModel
import LocAuditReplay

/// A status, accuracy or prompt option that the device's iOS version does not have.
struct StatusInvalidForOSRule: SessionRule {
    static let description = RuleDescription(
        identifier: "status-invalid-for-os",
        severity: .medium,
        scope: .session,
        firstVersion: nil,
        description: "A status, accuracy, prompt option or API that the device's iOS version does not have (WhenInUse before 8, Allow Once before 13, accuracy before 14; v2: a location-button grant before 15, CLLocationUpdate, CLBackgroundActivitySession or CLMonitor before 17, CLServiceSession before 18).",
        seed: "001 §1.2 (WhenInUse iOS 8+), §5.1 (Allow Once iOS 13); 003 §5 (accuracy iOS 14)",
        sources: [Apple.locationButton, Apple.backgroundActivitySession, Apple.serviceSession, Apple.wwdc23StreamlinedUpdates],
        rationale: """
            WhenInUse arrived in iOS 8, Allow Once and provisional Always in iOS 13, accuracy
            authorization and temporary full accuracy in iOS 14. Seeing one on an older device
            means the logs, the device facts or the system are wrong. Needs the iOS version.
            """,
        owner: .testSetup,
        remedy: "Check the device facts: the iOS version the store holds for the device (--os, the .ideviceinfo.txt sidecar, the inventory) must be the device's own, and the logs must come from that device. Only when both are right is it iOS's: report it to Apple with the evidence lines.",
        triggeringExamples: [
            RuleExample(os: "12.5.7", ExampleLog().foreground()
                .at(1).prompt("WhenInUse", options: "AllowOnce,WhenInUse,Deny")
                .at(2).answer("AllowOnce").status("AuthorizedWhenInUse", temporary: 1)),
            RuleExample(os: "7.1.2", ExampleLog().foreground()
                .at(1).told("AuthorizedWhenInUse", legacy: true)),
            RuleExample(os: "13.7", ExampleLog().foreground()
                .at(1).accuracy("Reduced", temporary: 0)),
            // v2: a background activity session on iOS 16, which has none.
            RuleExample(os: "16.7.2", ExampleLog().foreground()
                .at(1).told("AuthorizedWhenInUse")
                .at(2).activitySession()),
            // v2: a location-button grant on iOS 14.
            RuleExample(os: "14.8", ExampleLog().foreground()
                .at(1).locationButton()),
        ],
        nonTriggeringExamples: [
            RuleExample(os: "13.7", ExampleLog().foreground()
                .at(1).prompt("WhenInUse", options: "AllowOnce,WhenInUse,Deny")
                .at(2).answer("AllowOnce").status("AuthorizedWhenInUse", temporary: 1)),
            RuleExample(os: "14.8", ExampleLog().foreground()
                .at(1).accuracy("Reduced", temporary: 0)),
            RuleExample(os: "18.1", ExampleLog().foreground()
                .at(1).told("AuthorizedWhenInUse")
                .at(2).serviceSession("WhenInUse").activitySession().liveUpdates()),
        ],
        notEvaluableExamples: [
            // Neither the app nor locationd logs a status, prompt or accuracy line here.
            RuleExample(os: "12.5.7", plist: .complete, unknown: .appLines, ExampleLog().launch()
                .at(3).terminated()),
        ],
        facts: [.iosVersion, .appLines]
    )

    func check(_ session: ReplayedSession, _ settings: RuleSettings) -> RuleCheck {
        guard let version = session.version, let behaviour = session.behaviour else {
            return .unknown(.iosVersion)
        }
        // Statuses, prompts and accuracy show in the app's lines and in locationd's.
        let logs = session.initial.deviceLogs
        guard session.hasAppLines || logs.prompts || logs.answers || logs.statusChanges || logs.accuracyChanges else { return .unknown(.appLines) }
        var violations: [Violation] = []
        for step in session.steps {
            if let what = step.invalidFeature(behaviour) {
                violations.append(Violation(step, "\(what) on iOS \(version.text), which does not have it"))
            }
        }
        return .evaluated(violations)
    }
}

/// The first major version a row of the table stands for (the API rows start at a major).
private func session(_ behaviour: IOSBehaviour) -> Int { behaviour.from.major }

private extension ReplayStep {
    /// What this event shows that the iOS version lacks, in the user's terms.
    func invalidFeature(_ behaviour: IOSBehaviour) -> String? {
        let e = event
        if !behaviour.hasWhenInUse, e.kind == .authorization || e.kind == .statusChange, e.status == .authorizedWhenInUse {
            return "status \"authorizedWhenInUse\""
        }
        if !behaviour.hasWhenInUse, e.kind == .prompt, e.promptKind == .whenInUse || e.promptKind == .alwaysUpgrade {
            return "prompt \"\(e.promptKind!.rawValue)\""
        }
        if !behaviour.hasAllowOnce {
            if e.kind == .promptResponse, e.choice == .allowOnce { return "choice \"\(PromptChoice.allowOnce.rawValue)\"" }
            if e.kind == .prompt, e.promptOptions.contains(.allowOnce) { return "prompt option \"\(PromptChoice.allowOnce.rawValue)\"" }
            if e.kind == .statusChange, e.temporary == true { return "temporary (Allow Once) status" }
            if e.kind == .statusChange, e.provisional == true { return "provisional Always" }
        }
        if !behaviour.hasLocationButton, e.kind == .statusChange, e.changeReason == .locationButton {
            return "location-button grant"
        }
        if let call = e.managerCall, let first = call.firstVersion, session(behaviour) < first {
            return "call \"\(call.rawValue)\""
        }
        if !behaviour.hasAccuracy {
            if e.kind == .accuracyChange, let accuracy = e.accuracy { return "accuracy \"\(accuracy.rawValue)\"" }
            if e.kind == .authorization, e.accuracy == .reduced { return "accuracy \"reduced\"" }
            if e.kind == .prompt, e.promptKind == .temporaryFullAccuracy { return "prompt \"\(PromptKind.temporaryFullAccuracy.rawValue)\"" }
            if e.kind == .call, e.managerCall == .requestTemporaryFullAccuracy { return "call \"\(ManagerCall.requestTemporaryFullAccuracy.rawValue)\"" }
        }
        return nil
    }
}
