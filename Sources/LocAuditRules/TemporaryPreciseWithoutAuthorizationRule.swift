import LocAuditModel
import LocAuditReplay

/// A temporary full-accuracy grant that iOS should not have given.
struct TemporaryPreciseWithoutAuthorizationRule: SessionRule {
    static let description = RuleDescription(
        identifier: "temporary-precise-without-authorization",
        severity: .medium,
        scope: .session,
        firstVersion: 14,
        description: "A temporary full-accuracy grant while not authorized, or for a purpose key (from the manager or, v2, a service session) absent from the dictionary.",
        seed: "003 §5 (如果没有获得定位权限, 直接调用此API无效; purposeKey 既为 plist 中配置字典中的 key)",
        sources: [Apple.requestTemporaryFullAccuracy, Apple.temporaryUsageDictionary, Apple.serviceSession],
        rationale: """
            requestTemporaryFullAccuracyAuthorization only upgrades an authorized app from reduced
            to full accuracy, and only for a purpose key of NSLocationTemporaryUsageDescriptionDictionary.
            The purpose-key half needs the Info.plist.
            """,
        owner: .iOS,
        remedy: "Report that iOS granted temporary full accuracy to an app not authorized for location, or for a purpose key its NSLocationTemporaryUsageDescriptionDictionary does not have; when the key is missing, add it to the Info.plist as well.",
        triggeringExamples: [
            RuleExample(os: "14.8", plist: ExamplePlist(usageKeys: [UsageKey.whenInUse]), ExampleLog().foreground()
                .at(1).told("AuthorizedWhenInUse", precision: 1)
                .at(2).call("requestTemporaryFullAccuracyAuthorizationWithPurposeKey:", purposeKey: "Radar")
                .at(3).accuracy("Full", temporary: 1, purposeKey: "Radar")),
            RuleExample(os: "14.8", ExampleLog().foreground()
                .at(1).told("Denied", precision: 1)
                .at(3).accuracy("Full", temporary: 1, purposeKey: "Delivery")),
            // v2, Apple's wording (iOS 26.1 locationd): the answer to the temporary precise
            // prompt while the app is denied.
            RuleExample(os: "26.1", plist: .complete, ExampleLog().foreground()
                .at(1).told("Denied", precision: 1)
                .at(3).system(#"{"msg":"Temporary relief from #compensation response", "ClientKey":"icom.example.app:", "TempPrecise":"YES"}"#)),
            // v2: a service session asks for a purpose key the dictionary lacks.
            RuleExample(os: "18.1", plist: .complete, ExampleLog().launch()
                .at(1).told("AuthorizedWhenInUse", precision: 1).status("AuthorizedWhenInUse", reason: "Settings")
                .at(2).serviceSession("WhenInUse", purposeKey: "Radar")
                .at(3).accuracy("Full", temporary: 1)),
        ],
        nonTriggeringExamples: [
            // v2: a service session's full-accuracy purpose key is the request (iOS 18+).
            RuleExample(os: "18.1", plist: .complete, ExampleLog().launch()
                .at(1).told("AuthorizedWhenInUse", precision: 1).status("AuthorizedWhenInUse", reason: "Settings")
                .at(2).serviceSession("WhenInUse", purposeKey: "Delivery")
                .at(3).accuracy("Full", temporary: 1)),
            RuleExample(os: "14.8", plist: .complete, ExampleLog().foreground()
                .at(1).told("AuthorizedWhenInUse", precision: 1)
                .at(2).call("requestTemporaryFullAccuracyAuthorizationWithPurposeKey:", purposeKey: "Delivery")
                .at(3).accuracy("Full", temporary: 1, purposeKey: "Delivery")),
        ],
        notEvaluableExamples: [
            // v2, Apple's wording: locationd's answer line names no purpose key, and the app's
            // request line is not in the log: which key was granted is unknown.
            RuleExample(os: "26.1", plist: .complete, unknown: .purposeKey, ExampleLog().foreground()
                .at(1).told("AuthorizedWhenInUse", precision: 1)
                .at(3).system(#"{"msg":"Temporary relief from #compensation response", "ClientKey":"icom.example.app:", "TempPrecise":"YES"}"#)),
            // No status before the grant: whether the app was authorized is unknown.
            RuleExample(os: "14.8", plist: .complete, unknown: .status, ExampleLog().launch()
                .at(3).accuracy("Full", temporary: 1, purposeKey: "Delivery")),
        ],
        facts: [.iosVersion, .accuracyChangeLines, .status, .infoPlist, .purposeKey]
    )

    func check(_ session: ReplayedSession, _ settings: RuleSettings) -> RuleCheck {
        guard session.initial.deviceLogs.accuracyChanges else { return .unknown(.accuracyChangeLines) }
        var violations: [Violation] = []
        var unknown = FirstUnknown()
        for step in session.steps {
            let e = step.event, state = step.state
            guard e.kind == .accuracyChange, e.accuracy == .full, e.temporary == true else { continue }
            if let status = state.status.value, !status.isAuthorized {
                violations.append(Violation(step, "temporary full accuracy granted while the status is \"\(status.rawValue)\"",
                                            also: [state.status.event]))
                continue
            }
            if let app = session.app {
                // locationd's own answer line names no key: the app's request (or the service
                // session's) must, else which key was granted is unknown.
                guard let key = e.purposeKey ?? state.temporaryPurposeKey else { unknown.note(.purposeKey); continue }
                if !(app.temporaryPurposeKeys ?? []).contains(key) {
                    let where_ = app.temporaryPurposeKeys == nil
                        ? "\(session.plist!.label) has no NSLocationTemporaryUsageDescriptionDictionary"
                        : "absent from NSLocationTemporaryUsageDescriptionDictionary of \(session.plist!.label)"
                    violations.append(Violation(step, "temporary full accuracy for purpose key \"\(key)\": \(where_)"))
                    continue
                }
            }
            unknown.note(state.status.value == nil ? .status : session.app == nil ? .infoPlist : nil)
        }
        return .judged(violations, unknown: unknown.fact)
    }
}
