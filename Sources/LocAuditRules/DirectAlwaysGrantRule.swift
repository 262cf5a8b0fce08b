import LocAuditModel
import LocAuditReplay

/// iOS 13+ gave a permanent Always straight from notDetermined with one prompt.
struct DirectAlwaysGrantRule: SessionRule {
    static let description = RuleDescription(
        identifier: "direct-always-grant",
        severity: .medium,
        scope: .session,
        firstVersion: 13,
        description: "notDetermined straight to a permanent Always from a single prompt (iOS 13+ can only give WhenInUse, Allow Once or provisional Always first).",
        seed: "001 §5.1; 003 §4 (iOS 13: 不能直接申请后台定位权限); 004 (Request Always Authorization Directly)",
        sources: [Apple.requestAlwaysAuthorization, Apple.choosingAuthorization],
        rationale: """
            From iOS 13 the first prompt of requestAlways offers Allow Once, While Using and Don't
            Allow; While Using gives provisional Always (status Always, Settings WhenInUse), and
            permanent Always needs a second, upgrade prompt.
            """,
        owner: .iOS,
        remedy: "Report that iOS 13 or later granted permanent Always from the app's first prompt, which offers only Allow Once, While Using and Don't Allow (Always needs a second, upgrade prompt).",
        triggeringExamples: [
            RuleExample(os: "13.7", plist: .complete, ExampleLog().foreground()
                .at(1).told("NotDetermined", legacy: true).call("requestAlwaysAuthorization").prompt("Always", options: "AllowOnce,WhenInUse,Deny")
                .at(2).answer("WhenInUse").status("AuthorizedAlways")),
        ],
        nonTriggeringExamples: [
            RuleExample(os: "13.7", plist: .complete, ExampleLog().foreground()
                .at(1).told("NotDetermined", legacy: true).call("requestAlwaysAuthorization").prompt("Always", options: "AllowOnce,WhenInUse,Deny")
                .at(2).answer("WhenInUse").status("AuthorizedAlways", provisional: 1)),
            RuleExample(os: "12.5.7", plist: .complete, ExampleLog().foreground()
                .at(1).told("NotDetermined", legacy: true).call("requestAlwaysAuthorization").prompt("Always", options: "WhenInUse,Always,Deny")
                .at(2).answer("Always").status("AuthorizedAlways")),
        ],
        notEvaluableExamples: [
            // No prompt line and no status before the grant: it may come from WhenInUse.
            RuleExample(os: "14.8", plist: .complete, unknown: .status, ExampleLog().launch()
                .at(2).status("AuthorizedAlways")),
        ],
        facts: [.iosVersion, .statusChangeLines, .status, .provisionalAlways]
    )

    func check(_ session: ReplayedSession, _ settings: RuleSettings) -> RuleCheck {
        guard session.initial.deviceLogs.statusChanges else { return .unknown(.statusChangeLines) }
        let hasProvisional = session.behaviour?.hasProvisionalAlways ?? true
        var violations: [Violation] = []
        var unknown = FirstUnknown()
        for step in session.steps {
            let e = step.event, state = step.state
            guard e.kind == .statusChange, e.status == .authorizedAlways, e.changeReason == .prompt,
                  state.lastPromptKind != .alwaysUpgrade else { continue }
            var direct = Conditions()
            direct.require(e.provisional.map(!) ?? (hasProvisional ? nil : true), .provisionalAlways)
            // From notDetermined: the prompt that led to it was a first prompt (or, with none
            // in the session, the status before it was notDetermined).
            switch state.lastPromptPlace {
            case .first?: break
            case .upgrade?, .other?: direct.require(false, .status)
            case .unknown?: direct.require(nil, .status)
            case nil: direct.require(state.status.value.map { $0 == .notDetermined }, .status)
            }
            guard direct.violates else { unknown.note(direct.unknown); continue }
            violations.append(Violation(step, "\"notDetermined\" to a permanent \"authorizedAlways\" from one prompt", also: [state.lastPromptEvent]))
        }
        return .judged(violations, unknown: unknown.fact)
    }
}
