import ArgumentParser
import Foundation
import Testing
@testable import LocAuditCommands
@testable import LocAuditModel
@testable import LocAuditRules
@testable import LocAuditReport
@testable import LocAuditStore

/// The audit run: recording, re-runs, baselines, reports and exit codes.
@Suite struct AuditRunTests {
    /// A denied app still getting a fix (critical) and a paused one (low), on iOS 17.
    static func findingsLog() -> String {
        LogScript().launch().told("Denied").deliver().terminate()
            .launch().told("AuthorizedWhenInUse").paused(true).deliver().text
    }

    @Test("re-auditing an unchanged database gives the same findings, not duplicates")
    func reauditIsIdempotent() throws {
        let ws = try AuditWorkspace()
        try ws.ingest(AuditRunTests.findingsLog(), os: "17.5.1", plist: .complete)
        let first = try ws.audit()
        let second = try ws.audit()
        #expect(first.rules.sorted() == ["delivery-while-paused", "delivery-without-authorization"])
        #expect(second.findings == first.findings)
        #expect(first.new.count == 2 && first.persisting.isEmpty)
        #expect(second.new.isEmpty && second.persisting.count == 2 && second.resolved.isEmpty)
        #expect(try ws.workspace.count("SELECT count(*) FROM findings") == 2)
        #expect(try ws.workspace.count("SELECT count(*) FROM audit_runs") == 2)
        #expect(try ws.workspace.count("SELECT count(*) FROM sessions") == 2)
        #expect(second.runId == first.runId + 1)
    }

    @Test("a finding that disappears is resolved; when it comes back it is new again")
    func resolvedAndReopened() throws {
        let ws = try AuditWorkspace()
        var plist = ExamplePlist(usageKeys: [UsageKey.whenInUse], defaultAccuracyReducedXML: "<string>YES</string>")
        plist.bundleId = "com.example.app"
        try ws.ingest(LogScript().launch().told("AuthorizedWhenInUse").text, os: "17.5.1", plist: plist)
        #expect(try ws.audit().rules == ["invalid-default-accuracy-reduced"])
        // A fixed Info.plist alone does not judge the earlier log again: the app ran with the broken one.
        plist.defaultAccuracyReducedXML = "<true/>"
        _ = try ws.workspace.ingest([try ws.workspace.write("fixed/Info.plist", plist.xml)])
        let alone = try ws.audit()
        #expect(alone.rules == ["invalid-default-accuracy-reduced"] && alone.resolved.isEmpty)
        // The next day's log, handed in with the fixed build's Info.plist: the app's latest session is fine.
        func nextDay(_ day: Int) -> String { LogScript().launch().told("AuthorizedWhenInUse").text.replacingOccurrences(of: "Nov 20", with: "Nov \(day)") }
        plist.usageKeys.append(UsageKey.alwaysAndWhenInUse)
        try ws.ingest(nextDay(21), name: "device-2026-11-21.log", os: "17.5.1", plist: plist)
        let fixed = try ws.audit()
        #expect(fixed.findings.isEmpty)
        #expect(fixed.resolved.map(\.rule) == ["invalid-default-accuracy-reduced"])
        #expect(try ws.workspace.count("SELECT count(*) FROM findings WHERE resolved_run IS NOT NULL") == 1)
        plist.defaultAccuracyReducedXML = "<string>NO</string>"
        try ws.ingest(nextDay(22), name: "device-2026-11-22.log", os: "17.5.1", plist: plist)
        let again = try ws.audit()
        #expect(again.new.count == 1)
        #expect(try ws.workspace.count("SELECT count(*) FROM findings") == 1)
    }

    @Test("a run filtered to one rule does not resolve the findings of the others")
    func filteredRunsResolveOnlyTheirScope() throws {
        let ws = try AuditWorkspace()
        try ws.ingest(AuditRunTests.findingsLog(), os: "17.5.1", plist: .complete)
        _ = try ws.audit()
        let onlyPaused = try ws.audit { $0.rules = ["delivery-while-paused"] }
        #expect(onlyPaused.rules == ["delivery-while-paused"])
        #expect(onlyPaused.resolved.isEmpty)
        let skipped = try ws.audit { $0.skipRules = ["delivery-while-paused"] }
        #expect(skipped.rules == ["delivery-without-authorization"])
        #expect(skipped.resolved.isEmpty)
    }

    @Test("a baseline hides the findings it holds and reports only new ones")
    func baseline() throws {
        let ws = try AuditWorkspace()
        try ws.ingest(AuditRunTests.findingsLog(), os: "17.5.1", plist: .complete)
        let file = ws.workspace.dir.appendingPathComponent("baseline.json").path
        let written = try ws.audit { $0.writeBaseline = file }
        #expect(written.findings.count == 2)
        let hidden = try ws.audit { $0.baseline = file }
        #expect(hidden.findings.isEmpty)
        #expect(hidden.hiddenByBaseline == 2)
        #expect(hidden.exitCode == 0)
        // A new problem on another day is still reported.
        try ws.ingest(LogScript().launch().told("Denied").deliver().text, name: "device-2026-11-21.log", os: "17.5.1", device: "device-2")
        let later = try ws.audit { $0.baseline = file }
        #expect(later.rules == ["delivery-without-authorization"])
        #expect(later.findings.first?.device == "device-2")
    }

    @Test("the JSON report uses exactly the documented field names")
    func jsonFields() throws {
        let ws = try AuditWorkspace()
        try ws.ingest(AuditRunTests.findingsLog(), os: "17.5.1", plist: .complete)
        let json = try OutputFormat.json.render(try ws.audit())
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let findings = try #require(doc["findings"] as? [[String: Any]])
        #expect(findings.count == 2)
        for f in findings {
            // Version 1's keys, and those issue 25 added (README "Changes"): none dropped, none renamed.
            #expect(Set(f.keys) == ["rule", "severity", "device", "bundleId", "pid", "sessionStart", "time", "message", "evidence",
                                    "fingerprint", "deviceName", "appVersion", "appBuild", "suppressed"])
            let evidence = try #require(f["evidence"] as? [[String: Any]])
            #expect(!evidence.isEmpty)
            for e in evidence { #expect(Set(e.keys) == ["file", "line"]) }
        }
        let first = findings[0]
        #expect(first["rule"] as? String == "delivery-without-authorization")
        #expect(first["severity"] as? String == "critical")
        #expect(first["bundleId"] as? String == "com.example.app")
        #expect(first["pid"] as? Int == 501)
        // The delivery (line 4) and the callback that said "denied" before it (line 3), in line order.
        #expect((first["evidence"] as? [[String: Any]])?.compactMap { $0["line"] as? Int } == [3, 4])
        #expect(doc["verdict"] as? String == "findings")
    }

    @Test("--since and --until keep findings in the window, and only those can be resolved")
    func timeWindow() throws {
        let ws = try AuditWorkspace()
        try ws.ingest(AuditRunTests.findingsLog(), os: "17.5.1", plist: .complete)
        let all = try ws.audit()
        let pausedTime = try #require(all.findings.first { $0.rule == "delivery-while-paused" }).timeUS
        let late = try ws.audit { $0.sinceUS = pausedTime }
        #expect(late.rules == ["delivery-while-paused"])
        #expect(late.resolved.isEmpty)
        let early = try ws.audit { $0.untilUS = pausedTime - 1 }
        #expect(early.rules == ["delivery-without-authorization"])
    }

    @Test("unknown iOS version: only rules valid on every version run, and the report says so")
    func unknownVersion() throws {
        let ws = try AuditWorkspace()
        try ws.ingest(LogScript().launch().told("AuthorizedWhenInUse", limitsPrecision: 1).deliver(5).text, os: nil, plist: .complete)
        let report = try ws.audit()
        #expect(report.findings.isEmpty)
        #expect(report.coverage.sessionsWithUnknownVersion == 1)
        #expect(report.coverage.notEvaluable["precise-delivery-under-reduced-accuracy"]?["unknown iOS version"] == 1)
        #expect(report.coverage.notEvaluable["delivery-without-authorization"] == nil)
        // v2: an unknown version leaves the version-dependent rules not evaluable: PARTIAL, never PASS.
        #expect(report.verdict == .partial)
        #expect(TextReporter.generateReport(report).contains("unknown iOS version: only the rules valid on every version ran"))
    }

    @Test("<private> locations under reduced accuracy are not evaluable, never a pass")
    func privateLocations() throws {
        let ws = try AuditWorkspace()
        try ws.ingest(LogScript().launch().told("AuthorizedWhenInUse", limitsPrecision: 1).deliverPrivate().text, os: "17.5.1", plist: .complete)
        let report = try ws.audit { $0.rules = ["precise-delivery-under-reduced-accuracy"] }
        #expect(report.coverage.notEvaluable["precise-delivery-under-reduced-accuracy"]?["<private> locations without accuracy"] == 1)
        #expect(report.verdict == .insufficientEvidence)
        #expect(report.exitCode == 3)
    }

    @Test("on iOS 14+ a session that never says its accuracy authorization cannot pass the accuracy rule")
    func unknownAccuracy() throws {
        let ws = try AuditWorkspace()
        try ws.ingest(LogScript().launch().told("AuthorizedWhenInUse").deliver(5).text, os: "17.5.1", plist: .complete)
        let report = try ws.audit { $0.rules = ["precise-delivery-under-reduced-accuracy"] }
        #expect(report.coverage.notEvaluable["precise-delivery-under-reduced-accuracy"]?.keys.first?.hasPrefix("accuracy authorization unknown") == true)
        #expect(report.verdict == .insufficientEvidence)
    }

    @Test("the reduced-accuracy floor is a parameter")
    func floor() throws {
        let ws = try AuditWorkspace()
        try ws.ingest(LogScript().launch().told("AuthorizedWhenInUse", limitsPrecision: 1).deliver(1200).text, os: "17.5.1", plist: .complete)
        #expect(try ws.audit().findings.isEmpty)
        #expect(try ws.audit { $0.settings.reducedAccuracyFloor = 1500 }.rules == ["precise-delivery-under-reduced-accuracy"])
    }

    // MARK: Exit codes, through the command

    private func runAudit(_ arguments: [String]) throws -> Int32 {
        let command = try AuditCommand.parse(arguments)
        do {
            try command.run()
            return 0
        } catch let exit as ExitCode {
            return exit.rawValue
        }
    }

    @Test("exit 0 below --fail-on, 1 at or above it")
    func exitOnFindings() throws {
        let ws = try AuditWorkspace()
        try ws.ingest(LogScript().launch().told("AuthorizedWhenInUse").paused(true).deliver().text, os: "17.5.1", plist: .complete)
        let out = ws.workspace.dir.appendingPathComponent("report.txt").path
        #expect(try runAudit(["--db", ws.dbPath, "--output", out]) == 0)            // low < high
        #expect(try runAudit(["--db", ws.dbPath, "--output", out, "--fail-on", "low"]) == 1)
        #expect(try String(contentsOfFile: out, encoding: .utf8).contains("LOW delivery-while-paused"))
    }

    @Test("exit 3 when the database is missing or nothing could be evaluated")
    func exitOnMissingInput() throws {
        let ws = try AuditWorkspace()
        let out = ws.workspace.dir.appendingPathComponent("report.txt").path
        #expect(try runAudit(["--db", ws.workspace.dir.appendingPathComponent("none.sqlite").path]) == 3)
        #expect(try runAudit(["--db", ws.dbPath, "--output", out]) == 3)          // empty store: insufficient evidence
        #expect(try String(contentsOfFile: out, encoding: .utf8).hasSuffix("INSUFFICIENT EVIDENCE\n"))
    }

    @Test("usage errors are validation failures (exit 2 through LocAudit.runMain)")
    func usageErrors() {
        for arguments in [["--rule", "no-such-rule"], ["--since", "yesterday"], ["--fail-on", "severe"], ["--format", "xml"]] {
            #expect(throws: (any Error).self) { _ = try AuditCommand.parse(arguments) }
            do {
                _ = try AuditCommand.parse(arguments)
            } catch {
                #expect(AuditCommand.exitCode(for: error) == .validationFailure, "\(arguments)")
            }
        }
    }

    @Test("a store with only App Privacy Report intervals is insufficient evidence (exit 3), not a pass")
    func privacyReportOnly() throws {
        let ws = try AuditWorkspace()
        let report = #"""
            {"accessor":{"identifier":"com.example.app","identifierType":"bundleID"},"category":"location","identifier":"0634B0EB-0001","kind":"intervalBegin","timeStamp":"2026-11-20T11:01:09.166-04:00","type":"access"}
            {"accessor":{"identifier":"com.example.app","identifierType":"bundleID"},"category":"location","identifier":"0634B0EB-0001","kind":"intervalEnd","timeStamp":"2026-11-20T11:03:09.166-04:00","type":"access"}
            """#
        let path = try ws.workspace.write("privacy.ndjson", report + "\n")
        try ws.workspace.write("privacy.ideviceinfo.txt", "UniqueDeviceID: device-1\nProductVersion: 17.5.1\n")
        _ = try ws.workspace.ingest([path])
        let audit = try ws.audit()
        #expect(audit.coverage.sessions == 1)
        #expect(audit.coverage.evaluated == 0)
        #expect(audit.verdict == .insufficientEvidence)
        #expect(audit.exitCode == 3)
        #expect(audit.coverage.insufficientSessions.count == 1)
    }

    @Test("the stored checks are written as JSONEncoder writes them; escapes and other keys go through it")
    func storedChecksJSON() {
        let session = "qa-1 com.example.app pid 7 from 2026-11-20T00:00:00.000Z"
        var records = [
            RuleCheckRecord(subject: session, rule: "missing-blue-bar", findings: []),
            RuleCheckRecord(subject: session, rule: "delivery-while-paused", findings: ["ab12"]),
            RuleCheckRecord(subject: "com.example.app on iOS 17", rule: "grant-without-usage-description", notEvaluable: "no Info.plist", findings: []),
            RuleCheckRecord(subject: session, rule: "delivery-while-paused", findings: ["cd34"]),
            RuleCheckRecord(subject: session, rule: "unexpected-blue-bar", notEvaluable: "unknown iOS version", findings: []),
            RuleCheckRecord(subject: session, rule: "allow-once-persisting", notEvaluable: "a/path", findings: []),
            RuleCheckRecord(subject: session, rule: "background-delivery-without-capability", findings: []),
        ]
        let plain = StoredChecks(records)
        // The subjects as the recording writes them, a row each, joined as one text.
        func written<Checks: RandomAccessCollection>(_ checks: Checks) -> String where Checks.Element == RuleCheckRecord, Checks.Index == Int {
            var rows: [String] = []
            StoredChecks.subjects(checks) { rows.append($0) }
            return "{\"subjects\":[" + rows.joined(separator: ",") + "]}"
        }
        // Written from the records themselves (the recording), the same bytes: a subject's
        // checks that do not come together (the session's after the configuration subject's) grouped.
        #expect(written(records) == jsonText(plain))
        #expect(written([]) == jsonText(StoredChecks([])))
        // Held compactly as the audit makes them: the same records back, the same text.
        var log = CheckLog()
        for r in records { log.append(r) }
        #expect(Array(log) == records)
        #expect(written(log) == jsonText(plain))
        log.rename(["cd34": "ef56"])
        #expect(Array(log) == records.map { var r = $0; r.findings = r.findings.map { $0 == "cd34" ? "ef56" : $0 }; return r })
        #expect(plain.subjects.map(\.subject) == [session, "com.example.app on iOS 17"])
        #expect(plain.subjects[0].findings == ["delivery-while-paused": ["ab12", "cd34"]])
        #expect(plain.subjects[0].passed == ["missing-blue-bar", "background-delivery-without-capability"])
        for odd in ["quote \" in it", "back\\slash", "tab\there", "caf\u{E9}"] {
            records.append(RuleCheckRecord(subject: odd, rule: "missing-blue-bar", findings: []))
            #expect(written(records) == jsonText(StoredChecks(records)), "\(odd)")
        }
        records.append(RuleCheckRecord(subject: session, rule: "Upper_Case", notEvaluable: "x", findings: []))
        #expect(written(records) == jsonText(StoredChecks(records)))
    }
}

extension StoredChecks {
    /// The grouping the recording writes, built the plain way (subjects in the order they first
    /// come, a passed check as its rule's name): the reference `subjects`' bytes are compared with.
    init(_ checks: [RuleCheckRecord]) {
        var subjects: [Subject] = []
        for check in checks {
            let i: Int
            if let known = subjects.firstIndex(where: { $0.subject == check.subject }) {
                i = known
            } else {
                i = subjects.count
                subjects.append(Subject(subject: check.subject))
            }
            if let reason = check.notEvaluable {
                subjects[i].notEvaluable = (subjects[i].notEvaluable ?? [:]).merging([check.rule: reason]) { $1 }
            } else if check.findings.isEmpty {
                subjects[i].passed = (subjects[i].passed ?? []) + [check.rule]
            } else {
                subjects[i].findings = (subjects[i].findings ?? [:]).merging([check.rule: check.findings]) { $0 + $1 }
            }
        }
        self.init(subjects: subjects)
    }
}
