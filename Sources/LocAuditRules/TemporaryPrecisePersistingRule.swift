import LocAuditModel
import LocAuditReplay

/// A temporary full-accuracy grant still in effect after the app was launched again.
struct TemporaryPrecisePersistingRule: StepRule {
    static let description = RuleDescription(
        identifier: "temporary-precise-persisting",
        severity: .high,
        scope: .session,
        firstVersion: 14,
        description: "A precise delivery, or full accuracy reported, after a temporary full-accuracy grant lapsed (the app stopped being in use, or a later session) and before a new grant.",
        seed: "003 §5 (iOS 14: requestTemporaryFullAccuracyAuthorizationWithPurposeKey; v1: lapsed only at relaunch)",
        sources: [Apple.requestTemporaryFullAccuracy, Apple.temporaryUsageDictionary],
        rationale: """
            A temporary full-accuracy grant (iOS 14+, by purpose key, or a service session's purpose
            key on iOS 18+) lasts while the app is in use (v2: it lapses when the app stops being in
            use, also inside one process, and at relaunch): then the app is back to reduced
            accuracy until it asks again. A later session
            told full accuracy, or getting locations more precise than the reduced-accuracy floor,
            with no new grant, kept it. Such deliveries are not also
            precise-delivery-under-reduced-accuracy.
            """,
        owner: .iOS,
        remedy: "Report that iOS kept a temporary full-accuracy grant after it lapsed (the app stopped being in use, or a later session) with no new grant.",
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
            // v2: in the same process, after the app stopped being in use (under Always, where the
            // background delivery itself is allowed).
            RuleExample(os: "17.5.1", plist: .complete, ExampleLog().launch()
                .at(1).told("AuthorizedAlways", precision: 1).status("AuthorizedAlways", reason: "Settings")
                .at(2).accuracy("Full", temporary: 1, purposeKey: "Delivery")
                .at(3).call("startUpdatingLocation").deliver(5)
                .at(4).background()
                .at(60).deliver(5)),
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
            // Updates started in use with the background flag YES keep the grant in the background.
            RuleExample(os: "17.5.1", plist: .complete, ExampleLog().launch()
                .at(1).told("AuthorizedWhenInUse", precision: 1).status("AuthorizedWhenInUse", reason: "Settings")
                .at(2).accuracy("Full", temporary: 1, purposeKey: "Delivery")
                .at(3).property("allowsBackgroundLocationUpdates").call("startUpdatingLocation")
                .at(4).background()
                .at(60).deliver(5)),
        ],
        notEvaluableExamples: [
            // The device's logs carry no accuracy-change or prompt-answer line: a temporary grant would not be in them.
            RuleExample(os: "14.8", plist: .complete, unknown: .accuracyGrantLines, ExampleLog().launch()
                .at(1).told("AuthorizedWhenInUse", precision: 0)
                .at(2).deliver(5)
                .at(9).terminated()
                .process(2).launch()
                .at(1).told("AuthorizedWhenInUse", precision: 0)
                .at(2).deliver(5)),
        ],
        facts: [.iosVersion, .appLines, .accuracyGrantLines, .accuracy, .appState, .inUse, .locationAccuracy]
    )

    static func precondition(_ session: ReplayedSession) -> Fact? {
        if session.behaviour == nil { return .iosVersion }
        if !session.hasAppLines { return .appLines }
        // A temporary grant is known from accuracy-change lines or a prompt answer.
        let logs = session.initial.deviceLogs
        return logs.accuracyChanges || logs.answers ? nil : .accuracyGrantLines
    }

    static func judge(_ step: ReplayStep, _ session: ReplayedSession, _ settings: RuleSettings) -> Judgement {
        let state = step.state, e = step.event
        guard !state.terminated else { return .clear }
        let full = e.kind == .authorization && e.accuracy == .full
        let precise = e.isDelivery && e.horizontalAccuracy.map { $0 < settings.reducedAccuracyFloor } != false
        guard full || precise else { return .clear }
        guard state.temporaryPreciseLapsed else {
            // No grant seen lapsing: none lapsed, unless the accuracy before the session is
            // unknown and no line of the session has said it yet.
            let known = session.initial.permanentAccuracy.value != nil || session.initial.temporaryPreciseLapsed
            if !known, state.permanentAccuracy.value == nil, !state.temporaryFullAccuracy { return .unknown(.accuracy) }
            return .clear
        }
        let when = state.temporaryLapseUS.map { "after the app stopped being in use at \(Timestamps.isoUTC($0))" } ?? "after relaunch"
        if full { return .violates("accuracy still \"full\" \(when) with no new temporary grant") }
        guard let accuracy = e.horizontalAccuracy else { return .unknown(.locationAccuracy) }
        return .violates("precise location (\(metres(accuracy))) \(when) with no new temporary grant")
    }
}
