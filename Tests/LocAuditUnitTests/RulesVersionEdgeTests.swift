import Testing
@testable import LocAuditAudit
@testable import LocAuditModel
@testable import LocAuditRules

/// The same log on both sides of an iOS version where a promise changes.
struct VersionEdge: Sendable, CustomTestStringConvertible {
    var rule: String
    var what: String
    var before: String
    var after: String
    /// Whether the rule fires before and after the edge.
    var firesBefore: Bool
    var firesAfter: Bool
    var plist: ExamplePlist?
    var log: String

    var testDescription: String { "\(rule): \(what), iOS \(before) vs \(after)" }
}

private let allKeys = ExamplePlist.complete
// Built with a current SDK (v2: one built before iOS 11 keeps the old key).
private let oldAlwaysKey = ExamplePlist(usageKeys: [UsageKey.whenInUse, UsageKey.always], backgroundModes: ["location"], sdk: "17.0")
private let noLocationMode = ExamplePlist(usageKeys: [UsageKey.whenInUse, UsageKey.always, UsageKey.alwaysAndWhenInUse], backgroundModes: ["audio"])

private func backgroundDelivery(_ status: String, flag: Bool = true, indicator: Bool = false, blueBar: Bool, wait: Int = 0) -> String {
    // The device's logs carry indicator lines (hidden at launch): the blue bar is known.
    let s = LogScript().launch().blueBar(false).told(status)
    if flag { s.property("allowsBackgroundLocationUpdates", 1) }
    if indicator { s.property("showsBackgroundLocationIndicator", 1) }
    s.call("startUpdatingLocation").state("BackgroundRunning")
    if blueBar { s.blueBar(true) }
    return s.wait(wait).deliver().text
}

let versionEdges: [VersionEdge] = [
    // v2: not in use under When In Use (past the grace, kept in use by nothing); Always is no finding.
    VersionEdge(rule: "background-delivery-without-capability", what: "WhenInUse, no location mode, past the grace", before: "7.1.2", after: "8.4",
                firesBefore: false, firesAfter: true, plist: noLocationMode, log: backgroundDelivery("AuthorizedWhenInUse", blueBar: false, wait: 30)),
    VersionEdge(rule: "background-delivery-without-capability", what: "capability, background flag NO, past the grace", before: "8.4", after: "9.3.5",
                firesBefore: false, firesAfter: true, plist: allKeys, log: backgroundDelivery("AuthorizedWhenInUse", flag: false, blueBar: true, wait: 30)),
    VersionEdge(rule: "missing-blue-bar", what: "WhenInUse in background, no blue bar", before: "7.1.2", after: "8.4",
                firesBefore: false, firesAfter: true, plist: allKeys, log: backgroundDelivery("AuthorizedWhenInUse", blueBar: false)),
    VersionEdge(rule: "missing-blue-bar", what: "Always in background, indicator YES, no blue bar", before: "10.3.3", after: "11.4",
                firesBefore: false, firesAfter: true, plist: allKeys, log: backgroundDelivery("AuthorizedAlways", indicator: true, blueBar: false)),
    VersionEdge(rule: "unexpected-blue-bar", what: "Always in background, indicator YES, blue bar", before: "10.3.3", after: "11.4",
                firesBefore: true, firesAfter: false, plist: allKeys, log: backgroundDelivery("AuthorizedAlways", indicator: true, blueBar: true)),
    VersionEdge(rule: "unexpected-blue-bar", what: "Always in background, indicator NO, blue bar", before: "7.1.2", after: "8.4",
                firesBefore: false, firesAfter: true, plist: allKeys, log: backgroundDelivery("AuthorizedAlways", blueBar: true)),
    VersionEdge(rule: "allow-once-persisting", what: "Allow Once then relaunch told WhenInUse", before: "12.5.7", after: "13.7",
                firesBefore: false, firesAfter: true, plist: allKeys,
                log: LogScript().launch().call("requestWhenInUseAuthorization").prompt("WhenInUse", options: "AllowOnce,WhenInUse,Deny")
                    .answer("AllowOnce").status("AuthorizedWhenInUse", temporary: 1).deliver().terminate()
                    .launch().told("AuthorizedWhenInUse").deliver().text),
    VersionEdge(rule: "temporary-precise-persisting", what: "temporary full accuracy then relaunch still full", before: "13.7", after: "14.8",
                firesBefore: false, firesAfter: true, plist: allKeys,
                log: LogScript().launch().told("AuthorizedWhenInUse", limitsPrecision: 1).accuracy("Full", temporary: 1, purposeKey: "Delivery")
                    .deliver(5).terminate().launch().told("AuthorizedWhenInUse", limitsPrecision: 0).deliver(5).text),
    VersionEdge(rule: "precise-delivery-under-reduced-accuracy", what: "5 m fix under reduced accuracy", before: "13.7", after: "14.8",
                firesBefore: false, firesAfter: true, plist: allKeys,
                log: LogScript().launch().told("AuthorizedWhenInUse", limitsPrecision: 1).deliver(5).text),
    VersionEdge(rule: "grant-without-usage-description", what: "Always prompt with only the old Always key", before: "10.3.3", after: "11.4",
                firesBefore: false, firesAfter: true, plist: oldAlwaysKey,
                log: LogScript().launch().call("requestAlwaysAuthorization").prompt("Always", options: "WhenInUse,Always,Deny")
                    .answer("Always").status("AuthorizedAlways").text),
    VersionEdge(rule: "grant-without-usage-description", what: "WhenInUse prompt without the WhenInUse key", before: "7.1.2", after: "8.4",
                firesBefore: false, firesAfter: true, plist: ExamplePlist(usageKeys: [UsageKey.always]),
                log: LogScript().launch().call("requestWhenInUseAuthorization").prompt("WhenInUse", options: "WhenInUse,Deny")
                    .answer("WhenInUse").status("AuthorizedWhenInUse").text),
    VersionEdge(rule: "direct-always-grant", what: "first requestAlways answered WhenInUse gives permanent Always", before: "12.5.7", after: "13.7",
                firesBefore: false, firesAfter: true, plist: allKeys,
                log: LogScript().launch().told("NotDetermined").call("requestAlwaysAuthorization").prompt("Always", options: "WhenInUse,Always,Deny")
                    .answer("WhenInUse").status("AuthorizedAlways").text),
    VersionEdge(rule: "repeated-always-prompt", what: "second upgrade prompt after WhenInUse", before: "7.1.2", after: "8.4",
                firesBefore: false, firesAfter: true, plist: allKeys,
                log: LogScript().launch().prompt("WhenInUse", options: "WhenInUse,Deny").answer("WhenInUse").status("AuthorizedWhenInUse")
                    .prompt("AlwaysUpgrade", options: "Always,KeepWhenInUse").answer("KeepWhenInUse")
                    .prompt("AlwaysUpgrade", options: "Always,KeepWhenInUse").text),
    VersionEdge(rule: "repeated-always-prompt", what: "upgrade prompt after WhenInUse kept on a direct requestAlways", before: "10.3.3", after: "11.4",
                firesBefore: false, firesAfter: true, plist: allKeys,
                log: LogScript().launch().prompt("Always", options: "WhenInUse,Always,Deny").answer("WhenInUse").status("AuthorizedWhenInUse")
                    .prompt("AlwaysUpgrade", options: "Always,KeepWhenInUse").text),
    VersionEdge(rule: "repeated-always-prompt", what: "upgrade prompt after WhenInUse kept on a direct requestAlways", before: "12.5.7", after: "13.7",
                firesBefore: true, firesAfter: false, plist: allKeys,
                log: LogScript().launch().prompt("Always", options: "WhenInUse,Always,Deny").answer("WhenInUse").status("AuthorizedWhenInUse")
                    .prompt("AlwaysUpgrade", options: "Always,KeepWhenInUse").text),
    VersionEdge(rule: "temporary-precise-without-authorization", what: "temporary full accuracy while denied", before: "13.7", after: "14.8",
                firesBefore: false, firesAfter: true, plist: allKeys,
                log: LogScript().launch().told("Denied").accuracy("Full", temporary: 1, purposeKey: "Delivery").text),
    VersionEdge(rule: "relaunch-without-always", what: "significant-change relaunch under WhenInUse", before: "7.1.2", after: "8.4",
                firesBefore: false, firesAfter: true, plist: allKeys,
                log: LogScript().launch().told("AuthorizedWhenInUse").call("startMonitoringSignificantLocationChanges").terminate()
                    .relaunch(for: "SignificantLocationChange").text),
    VersionEdge(rule: "delivery-while-paused", what: "delivery after an automatic pause", before: "5.1.1", after: "6.1.6",
                firesBefore: false, firesAfter: true, plist: nil,
                log: LogScript().launch().told("AuthorizedAlways").paused(true).deliver().text),
    VersionEdge(rule: "missing-usage-description", what: "requestAlways with only the old Always key", before: "10.3.3", after: "11.4",
                firesBefore: false, firesAfter: true, plist: oldAlwaysKey,
                log: LogScript().launch().call("requestAlwaysAuthorization").text),
    VersionEdge(rule: "missing-usage-description", what: "requestWhenInUse without the WhenInUse key", before: "7.1.2", after: "8.4",
                firesBefore: false, firesAfter: true, plist: ExamplePlist(usageKeys: [UsageKey.legacy]),
                log: LogScript().launch().call("requestWhenInUseAuthorization").text),
    VersionEdge(rule: "background-flag-without-capability", what: "background flag YES without the location mode", before: "8.4", after: "9.3.5",
                firesBefore: false, firesAfter: true, plist: noLocationMode,
                log: LogScript().launch().property("allowsBackgroundLocationUpdates", 1).text),
    VersionEdge(rule: "deprecated-usage-key", what: "only the old Always key", before: "10.3.3", after: "11.4",
                firesBefore: false, firesAfter: true, plist: oldAlwaysKey, log: LogScript().launch().text),
    VersionEdge(rule: "invalid-default-accuracy-reduced", what: "NSLocationDefaultAccuracyReduced as a string", before: "13.7", after: "14.8",
                firesBefore: false, firesAfter: true,
                plist: ExamplePlist(usageKeys: [UsageKey.whenInUse], defaultAccuracyReducedXML: "<string>YES</string>"),
                log: LogScript().launch().text),
    VersionEdge(rule: "status-invalid-for-os", what: "status WhenInUse", before: "7.1.2", after: "8.4",
                firesBefore: true, firesAfter: false, plist: nil, log: LogScript().launch().told("AuthorizedWhenInUse").text),
    VersionEdge(rule: "status-invalid-for-os", what: "Allow Once", before: "12.5.7", after: "13.7",
                firesBefore: true, firesAfter: false, plist: nil,
                log: LogScript().launch().prompt("WhenInUse", options: "AllowOnce,WhenInUse,Deny").answer("AllowOnce")
                    .status("AuthorizedWhenInUse", temporary: 1).text),
    VersionEdge(rule: "status-invalid-for-os", what: "reduced accuracy", before: "13.7", after: "14.8",
                firesBefore: true, firesAfter: false, plist: nil, log: LogScript().launch().told("AuthorizedWhenInUse", limitsPrecision: 1).text),
]

@Suite struct RulesVersionEdgeTests {
    @Test("a rule fires on the right side of its iOS version edge", arguments: versionEdges)
    func edge(_ edge: VersionEdge) throws {
        let before = try RuleExampleRunner.run(RuleExample(os: edge.before, plist: edge.plist, edge.log), rule: edge.rule)
        let after = try RuleExampleRunner.run(RuleExample(os: edge.after, plist: edge.plist, edge.log), rule: edge.rule)
        #expect(!before.findings.isEmpty == edge.firesBefore, "iOS \(edge.before): \(before.findings.map(\.message)) \(before.notEvaluable)")
        #expect(!after.findings.isEmpty == edge.firesAfter, "iOS \(edge.after): \(after.findings.map(\.message)) \(after.notEvaluable)")
        // The side that does not fire must have been judged (or be before the rule), never skipped for lack of evidence.
        for (outcome, fires) in [(before, edge.firesBefore), (after, edge.firesAfter)] where !fires {
            #expect(outcome.evaluated || outcome.beforeFirstVersion, "not evaluated: \(outcome.notEvaluable)")
        }
    }
}
