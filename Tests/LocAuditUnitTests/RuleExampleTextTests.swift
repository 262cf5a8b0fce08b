import Foundation
import Testing
@testable import LocAuditModel
@testable import LocAuditRules

/// Every rule example's log, as `locaudit rules explain` and the runner read it: the text
/// the examples had as literal strings before `ExampleLog` wrote them.
@Suite struct RuleExampleTextTests {
    static var allExampleText: String {
        RuleRegistry.descriptions.map { rule in
            [("triggers", rule.triggeringExamples), ("does not trigger", rule.nonTriggeringExamples),
             ("is not evaluable", rule.notEvaluableExamples)].map { kind, examples in
                examples.enumerated().map { i, e in "== \(rule.identifier) \(kind) \(i + 1) (iOS \(e.os ?? "unknown"))\n\(e.log)\n" }.joined()
            }.joined()
        }.joined()
    }

    @Test("every rule example's log is the text in Expected/rule-examples.txt, byte for byte (LOCAUDIT_WRITE_EXPECTED=1 rewrites it)")
    func examplesText() throws {
        let text = Self.allExampleText
        let name = "Expected/rule-examples.txt"
        if ProcessInfo.processInfo.environment["LOCAUDIT_WRITE_EXPECTED"] == "1" {
            try text.write(to: testFiles.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        let expected = try String(contentsOf: testFiles.appendingPathComponent(name), encoding: .utf8)
        guard text != expected else { return }
        let actual = FileManager.default.temporaryDirectory.appendingPathComponent("locaudit-rule-examples-actual.txt")
        try text.write(to: actual, atomically: true, encoding: .utf8)
        Issue.record("the rule examples' logs differ from \(name): diff it with \(actual.path)")
    }

    @Test("the builder writes each line of a log in the words of the examples, with the process's pid and hour")
    func builderLines() {
        let log = ExampleLog().launch().at(1).told("AuthorizedWhenInUse", precision: 1)
            .at(9).terminated().process(2).at(2).relaunch("Visits").deliver(5)
        #expect(log.lines == [
            "Nov 20 09:00:00 iPhone SpringBoard[50] <Notice>: Bootstrapping app<com.example.app> with intent foreground-interactive",
            ##"Nov 20 09:00:00 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"ForegroundRunning", "pid":501, "bundleId":"com.example.app"}"##,
            ##"Nov 20 09:00:01 iPhone App[501] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManagerDidChangeAuthorization:", "authorizationStatus":"AuthorizedWhenInUse", "limitsPrecision":1}"##,
            ##"Nov 20 09:00:09 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"Terminated", "pid":501, "bundleId":"com.example.app"}"##,
            "Nov 20 10:00:02 iPhone SpringBoard[50] <Notice>: Bootstrapping app<com.example.app> with intent background",
            ##"Nov 20 10:00:02 iPhone locationd[60] <Notice>: {"msg":"#Launch client for location event", "bundleId":"com.example.app", "service":"Visits"}"##,
            ##"Nov 20 10:00:02 iPhone locationd[60] <Notice>: {"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"BackgroundRunning", "pid":502, "bundleId":"com.example.app"}"##,
            ##"Nov 20 10:00:02 iPhone App[502] <Notice>: {"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":{"horizontalAccuracy":5}}"##,
        ])
        #expect(log.text == log.lines.joined(separator: "\n"))
    }
}
