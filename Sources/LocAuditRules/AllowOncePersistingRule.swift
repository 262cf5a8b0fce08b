import LocAuditModel
import LocAuditReplay

/// A temporary When In Use grant (Allow Once, a location-button tap) still in effect after it
/// lapsed: in a later session, or (v2) in the same process after the app stopped being in use.
struct AllowOncePersistingRule: StepRule {
    static let description = RuleDescription(
        identifier: "allow-once-persisting",
        severity: .high,
        scope: .session,
        firstVersion: 13,
        description: "A delivery, or a When In Use status report, after a temporary When In Use grant (Allow Once, a location-button tap) lapsed and before a new grant: in a later session, or in the same process after the app stopped being in use.",
        seed: "001 §5.1 (App 重启后, 定位权限会重新变成 NotDetermined); 003 §4; 004 (v1: the grant lapsed only at relaunch)",
        sources: [Apple.requestAlwaysAuthorization, Apple.locationButton],
        rationale: """
            Allow Once (iOS 13+) is a temporary When In Use grant that "expires when your app is no
            longer in use, reverting to kCLAuthorizationStatusNotDetermined" (Apple,
            requestAlwaysAuthorization); a CLLocationButton tap grants the same, "like Allow Once"
            (iOS 15+). Version 2: the grant lapses the moment the app stops being in use (the
            foreground, the grace, updates started in use, a background activity session), also
            inside one process, not only at relaunch. A delivery or a When In Use callback after
            that, with no new prompt answer or grant, kept it.
            """,
        owner: .iOS,
        remedy: "Report that iOS kept a temporary When In Use grant (Allow Once, a location-button tap) after the app stopped being in use: the evidence lines show the grant, the app leaving use, and the delivery or When In Use status after it with no new prompt answer.",
        triggeringExamples: [
            RuleExample(os: "13.7", plist: .complete, allowedOnce
                .process(2).launch()
                .at(1).told("AuthorizedWhenInUse", legacy: true)
                .at(2).deliver()),
            // v2: in the same process, the app left the foreground 30 s ago, with nothing keeping it in use.
            RuleExample(os: "17.5.1", plist: .complete, ExampleLog().launch()
                .at(1).call("requestWhenInUseAuthorization").prompt("WhenInUse", options: "AllowOnce,WhenInUse,Deny")
                .at(2).answer("AllowOnce").status("AuthorizedWhenInUse", temporary: 1)
                .at(3).call("startUpdatingLocation").deliver()
                .at(4).background()
                .at(34).foreground()
                .at(35).deliver()),
            // v2: a location-button grant lapses the same way.
            RuleExample(os: "15.8", plist: .complete, ExampleLog().launch()
                .at(1).told("NotDetermined").status("NotDetermined", reason: "Settings")
                .at(2).locationButton()
                .at(3).call("startUpdatingLocation").deliver()
                .at(4).background()
                .at(60).deliver()),
        ],
        nonTriggeringExamples: [
            RuleExample(os: "13.7", plist: .complete, allowedOnce
                .process(2).launch()
                .at(1).told("NotDetermined", legacy: true).call("requestWhenInUseAuthorization").prompt("WhenInUse", options: "AllowOnce,WhenInUse,Deny")
                .at(2).answer("WhenInUse").status("AuthorizedWhenInUse")
                .at(3).deliver()),
            // Back in the foreground within the grace: still in use, the grant holds.
            RuleExample(os: "17.5.1", plist: .complete, ExampleLog().launch()
                .at(1).call("requestWhenInUseAuthorization").prompt("WhenInUse", options: "AllowOnce,WhenInUse,Deny")
                .at(2).answer("AllowOnce").status("AuthorizedWhenInUse", temporary: 1)
                .at(3).call("startUpdatingLocation").deliver()
                .at(4).background()
                .at(9).foreground()
                .at(10).deliver()),
            // Updates started in use with the background flag YES keep the app in use in the background.
            RuleExample(os: "17.5.1", plist: .complete, ExampleLog().launch()
                .at(1).call("requestWhenInUseAuthorization").prompt("WhenInUse", options: "AllowOnce,WhenInUse,Deny")
                .at(2).answer("AllowOnce").status("AuthorizedWhenInUse", temporary: 1)
                .at(3).property("allowsBackgroundLocationUpdates").call("startUpdatingLocation").deliver()
                .at(4).background()
                .at(60).deliver()),
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
        facts: [.iosVersion, .appLines, .allowOnce, .appState, .inUse]
    )

    /// The examples' first run: the user answers Allow Once, the app gets a location, the process ends.
    static let allowedOnce = ExampleLog().launch()
        .at(1).call("requestWhenInUseAuthorization").prompt("WhenInUse", options: "AllowOnce,WhenInUse,Deny")
        .at(2).answer("AllowOnce").status("AuthorizedWhenInUse", temporary: 1)
        .at(3).deliver()
        .at(9).terminated()

    static func precondition(_ session: ReplayedSession) -> Fact? {
        session.behaviour == nil ? .iosVersion : session.hasAppLines ? nil : .appLines
    }

    static func judge(_ step: ReplayStep, _ session: ReplayedSession, _ settings: RuleSettings) -> Judgement {
        let state = step.state, e = step.event
        guard state.allowOnceLapsed != false, !state.terminated else { return .clear }
        let told = (e.kind == .authorization || (e.kind == .statusChange && e.reason == nil)) && e.status?.isAuthorized == true
        guard told || e.isDelivery else { return .clear }
        guard state.allowOnceLapsed == true else { return .unknown(.allowOnce) }
        let when = state.temporaryLapseUS.map { "after the app stopped being in use at \(Timestamps.isoUTC($0))" } ?? "after relaunch"
        // The finding rests on the grant, often in an earlier session: its line is evidence too.
        let grant = [state.lapsedGrantEvent]
        if told {
            return .violates("status still \"\(e.status!.rawValue)\" \(when) with no new prompt: the Allow Once (or location-button) grant should have lapsed", also: grant)
        }
        return .violates("location delivered \(when) under a lapsed Allow Once (or location-button) grant", also: grant)
    }
}
