import Foundation
import Testing
@testable import LocAuditAudit
@testable import LocAuditModel
@testable import LocAuditRules

/// samples/audit/: a log per rule where it fires, and clean logs where nothing does.
@Suite struct AuditSamplesTests {
    @Test("each of the 20 rules fires in its sample log, and the clean logs have no finding")
    func samples() throws {
        let dir = packageRoot.appendingPathComponent("samples/audit")
        let logs = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".log") }.sorted()
        let ws = try Workspace()
        let report = try ws.ingest([packageRoot.appendingPathComponent("samples/apps").path, dir.appendingPathComponent("apps").path]
                                   + logs.map { dir.appendingPathComponent($0).path })
        #expect(report.files.allSatisfy { $0.error == nil })
        let audit = try Auditor(databasePath: ws.store.path, options: AuditOptions()).run()
        var rulesByLog: [String: Set<String>] = [:]
        for finding in audit.findings {
            for e in finding.evidence where e.line != nil {
                rulesByLog[URL(fileURLWithPath: e.file).deletingPathExtension().lastPathComponent, default: []].insert(finding.rule)
            }
        }
        for rule in RuleRegistry.descriptions.map(\.identifier) {
            #expect(rulesByLog[rule]?.contains(rule) == true, "\(rule).log does not show \(rule): \(rulesByLog[rule] ?? [])")
        }
        for clean in logs.filter({ $0.hasPrefix("clean-") }) {
            #expect(rulesByLog[String(clean.dropLast(4))] == nil, "\(clean) has findings")
        }
        #expect(Set(audit.rules) == Set(RuleRegistry.descriptions.map(\.identifier)))
        // The clean logs are clean because every rule judged them, not because facts were
        // unknown: each has its launch lines, the app's CoreLocation lines, prompts and
        // status changes, and indicator lines. (Elsewhere a fact a log leaves out is
        // unknown, e.g. the blue bar on devices whose log has no indicator line.)
        let devices = Dictionary(uniqueKeysWithValues: try ws.rows("SELECT device_id, path FROM sources WHERE device_id IS NOT NULL").map {
            ($0[0] as String, URL(fileURLWithPath: $0[1] as String).lastPathComponent)
        })
        let cleanChecks = audit.checks.filter { devices[String($0.subject.prefix { $0 != " " })]?.hasPrefix("clean-") == true }
        #expect(cleanChecks.count > 3 * 15)
        for check in cleanChecks where check.notEvaluable != nil {
            Issue.record("\(check.subject): \(check.rule) not evaluable: \(check.notEvaluable!)")
        }
    }

    /// samples/logs/: the expected findings of samples/README.md, plus the ones the rules add
    /// on the same sessions (marked), one line each: rule, app, device (UDID prefix).
    static let expectedInSampleLogs: Set<String> = [
        "delivery-without-authorization com.example.weather ba0fa007",
        "repeated-always-prompt com.example.legacy aed1ac65",
        "background-flag-without-capability com.example.tracker f19e10f7",
        "missing-usage-description com.example.legacy 641bc719",
        // v2, one cause, one finding: Legacy requests Always with only the old key, so it is
        // missing-usage-description and not deprecated-usage-key too (on 12 and on 17).
        "missing-blue-bar com.example.runner 641bc719",          // 14:05 session
        "relaunch-without-always com.example.runner 641bc719",
        "allow-once-persisting com.example.weather 00008030",
        "missing-blue-bar com.example.runner 00008030",
        "temporary-precise-persisting com.example.runner 00008101",
        "temporary-precise-without-authorization com.example.weather 00008101",
        "precise-delivery-under-reduced-accuracy com.example.runner 00008120",
        "invalid-default-accuracy-reduced com.example.legacy 00008120",
        "missing-usage-description com.example.legacy 00008120",
        "direct-always-grant com.example.tracker 00008030",
        "delivery-while-paused com.example.tracker 00008130",
        "relaunch-without-always com.example.tracker 00008130",
        // v2, one cause, one finding: the relaunched sessions' own background deliveries
        // (Runner 16:47 on iOS 12, Tracker on 18) are relaunch-without-always's, whose cause is
        // the relaunch; version 1 added missing-blue-bar and background-delivery-without-capability.
    ]

    @Test("the sample logs give the findings samples/README.md expects")
    func sampleLogs() throws {
        let ws = try Workspace()
        _ = try ws.ingest([packageRoot.appendingPathComponent("samples/logs").path, packageRoot.appendingPathComponent("samples/apps").path])
        let audit = try Auditor(databasePath: ws.store.path, options: AuditOptions()).run()
        let seen = Set(audit.findings.map { "\($0.rule) \($0.bundleId) \($0.device.prefix(8))" })
        #expect(seen == AuditSamplesTests.expectedInSampleLogs)
        // Runner on iOS 12 has one missing-blue-bar session (14:05); the 16:47 relaunch's
        // deliveries are relaunch-without-always's.
        #expect(audit.findings.filter { $0.rule == "missing-blue-bar" && $0.device.hasPrefix("641bc719") }.count == 1)
        #expect(audit.findings.count == 16)
    }

    @Test("the container samples read with no error, each as its container, and give their well-behaved sessions")
    func containerSamples() throws {
        let ws = try Workspace()
        let report = try ws.ingest([packageRoot.appendingPathComponent("samples/apps").path, packageRoot.appendingPathComponent("samples/containers").path])
        #expect(report.failed == 0, "\(report.files.compactMap(\.error))")
        let containers = Dictionary(report.files.filter { $0.app == nil }.map { (($0.path as NSString).lastPathComponent, $0.container ?? "?") }) { a, _ in a }
        #expect(containers == [
            "macbook-2026-11-22-system.log": "bsd-syslog",
            "qa-iphone14pro-17-2026-11-22-console.log": "console",
            "qa-iphone14pro-17-2026-11-22-messages.log": "message-only",
            "qa-iphone14pro-17-2026-11-22-mobile_installation.log": "mobile-installation",
            "qa-iphone15pro-18-2026-11-22-console-xcode.log": "console",
            "qa-iphone15pro-18-2026-11-22-pymobiledevice3.log.gz": "pymobiledevice3",
            "qa-iphone15pro-18-2026-11-23-pymobiledevice3.json": "pymobiledevice3-json",
            "sysdiagnose_2026.11.22_18-30-00+0100_iPhone-OS_iPhone_21F90.tar.gz": "sysdiagnose",
        ])
        #expect(report.files.allSatisfy { ($0.skipped ?? [:]).keys.allSatisfy { ["noise", "no-prefix", "repeat"].contains($0) } })
        #expect(try ws.count("SELECT count(*) FROM events WHERE bundle_id IS NULL") == 0)
        let audit = try Auditor(databasePath: ws.store.path, options: AuditOptions()).run()
        #expect(audit.findings.isEmpty)
        let sessions = try ws.rows("SELECT bundle_id, events, end_reason FROM sessions ORDER BY start_us").map {
            "\($0["bundle_id"] as String) \($0["events"] as Int) \($0["end_reason"] as String)"
        }
        // The Console copy across midnight is one session of Runner with all 20 of its events;
        // the install and uninstall lines of the MobileInstallation log and the sysdiagnose open none.
        #expect(sessions == ["com.example.weather 17 terminated", "com.example.runner 18 terminated",
                             "com.example.runner 20 terminated", "com.example.tracker 17 terminated"])
    }
}
