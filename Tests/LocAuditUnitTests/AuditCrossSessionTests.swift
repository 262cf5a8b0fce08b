import GRDB
import Testing

/// What iOS carries from one session of an app to the next, and what it drops.
@Suite struct AuditCrossSessionTests {
    @Test("an Allow Once grant lapses at relaunch: deliveries after it are allow-once-persisting only")
    func allowOnceAcrossRelaunch() throws {
        let ws = try AuditWorkspace()
        let log = LogScript().launch().call("requestWhenInUseAuthorization").prompt("WhenInUse", options: "AllowOnce,WhenInUse,Deny")
            .answer("AllowOnce").status("AuthorizedWhenInUse", temporary: 1).deliver().terminate()
            .launch().deliver().deliver()
        try ws.ingest(log.text, os: "13.7", plist: .complete)
        let report = try ws.audit()
        #expect(report.rules == ["allow-once-persisting"])
        let finding = try #require(report.findings.first)
        #expect(finding.pid == 502)
        #expect(finding.message.contains("lapsed Allow Once"))
        #expect(finding.message.contains("2 times"))
        // The replay's status at the start of the second session is what iOS persists.
        let sessions = try ws.workspace.rows("SELECT pid, status_at_start, end_reason FROM sessions ORDER BY start_us")
        #expect(sessions.map { $0[0] as Int64 } == [501, 502])
        #expect(sessions.map { $0[1] as String? } == [nil, "notDetermined"])
        #expect(sessions.map { $0[2] as String } == ["terminated", "end-of-log"])
    }

    @Test("after an Allow Once grant lapses and the user is asked again, nothing is flagged")
    func allowOnceRenewed() throws {
        let ws = try AuditWorkspace()
        let log = LogScript().launch().prompt("WhenInUse", options: "AllowOnce,WhenInUse,Deny").answer("AllowOnce")
            .status("AuthorizedWhenInUse", temporary: 1).deliver().terminate()
            .launch().prompt("WhenInUse", options: "AllowOnce,WhenInUse,Deny").answer("AllowOnce")
            .status("AuthorizedWhenInUse", temporary: 1).deliver()
        try ws.ingest(log.text, os: "13.7", plist: .complete)
        #expect(try ws.audit().findings.isEmpty)
    }

    @Test("a temporary full-accuracy grant lapses at relaunch: precise fixes are temporary-precise-persisting only")
    func temporaryPreciseAcrossRelaunch() throws {
        let ws = try AuditWorkspace()
        let log = LogScript().launch().told("AuthorizedWhenInUse", limitsPrecision: 1)
            .call("requestTemporaryFullAccuracyAuthorizationWithPurposeKey:", purposeKey: "Delivery")
            .accuracy("Full", temporary: 1, purposeKey: "Delivery").deliver(5).terminate()
            .launch().deliver(5).deliver(8)
        try ws.ingest(log.text, os: "14.8", plist: .complete)
        let report = try ws.audit()
        #expect(report.rules == ["temporary-precise-persisting"])
        #expect(report.findings.first?.evidence.count == 2)
    }

    @Test("after the grant expires, a precise fix is precise-delivery-under-reduced-accuracy")
    func temporaryPreciseExpired() throws {
        let ws = try AuditWorkspace()
        let log = LogScript().launch().told("AuthorizedWhenInUse", limitsPrecision: 1)
            .accuracy("Full", temporary: 1, purposeKey: "Delivery").deliver(5).terminate()
            .launch().accuracy("Reduced", temporary: 0, reason: "Expired").deliver(3000).deliver(5)
        try ws.ingest(log.text, os: "14.8", plist: .complete)
        #expect(try ws.audit().rules == ["precise-delivery-under-reduced-accuracy"])
    }

    @Test("iOS 11-12: after a direct requestAlways answered WhenInUse, a later session's Always prompt is not owed")
    func firstRequestWasAlwaysHistory() throws {
        for (os, expected) in [("12.5.7", ["repeated-always-prompt"]), ("10.3.3", [])] {
            let ws = try AuditWorkspace()
            let log = LogScript().launch().call("requestAlwaysAuthorization").prompt("Always", options: "WhenInUse,Always,Deny")
                .answer("WhenInUse").status("AuthorizedWhenInUse").terminate()
                .launch().call("requestAlwaysAuthorization").prompt("Always", options: "WhenInUse,Always,Deny")
            try ws.ingest(log.text, os: os, plist: .complete)
            let report = try ws.audit()
            #expect(report.rules == expected, "iOS \(os)")
            if os == "12.5.7" { #expect(report.findings.first?.pid == 502) }
        }
    }

    @Test("iOS 13+: the system's upgrade prompt shown a second time, in a later session")
    func upgradePromptTwice() throws {
        let ws = try AuditWorkspace()
        let log = LogScript().launch().call("requestAlwaysAuthorization").prompt("Always", options: "AllowOnce,WhenInUse,Deny")
            .answer("WhenInUse").status("AuthorizedAlways", provisional: 1).property("allowsBackgroundLocationUpdates", 1)
            .call("startUpdatingLocation").state("BackgroundRunning").blueBar(true).deliver()
            .prompt("AlwaysUpgrade", options: "Always,KeepWhenInUse").answer("KeepWhenInUse").status("AuthorizedWhenInUse").terminate()
            .launch().state("BackgroundRunning").prompt("AlwaysUpgrade", options: "Always,KeepWhenInUse")
        try ws.ingest(log.text, os: "17.5.1", plist: .complete)
        let report = try ws.audit()
        #expect(report.rules == ["repeated-always-prompt"])
        #expect(report.findings.first?.pid == 502)
    }

    @Test("a relaunch by significant-change under WhenInUse is one session, flagged relaunch-without-always")
    func relaunchUnderWhenInUse() throws {
        let ws = try AuditWorkspace()
        let log = LogScript().launch().told("AuthorizedWhenInUse").call("startMonitoringSignificantLocationChanges").terminate()
            .relaunch(for: "SignificantLocationChange")
        try ws.ingest(log.text, os: "12.5.7", plist: .complete)
        let report = try ws.audit()
        #expect(report.rules == ["relaunch-without-always"])
        let sessions = try ws.workspace.rows("SELECT pid, launch_intent, relaunch_service, status_at_start FROM sessions ORDER BY start_us")
        #expect(sessions.count == 2)
        #expect(sessions.last?[0] as Int64? == 502)
        #expect(sessions.last?[1] as String? == "background")
        #expect(sessions.last?[2] as String? == "significantChange")
        #expect(sessions.last?[3] as String? == "authorizedWhenInUse")
    }

    @Test("the same relaunch under Always is fine")
    func relaunchUnderAlways() throws {
        let ws = try AuditWorkspace()
        let log = LogScript().launch().told("AuthorizedAlways").call("startMonitoringSignificantLocationChanges").terminate()
            .relaunch(for: "SignificantLocationChange")
        try ws.ingest(log.text, os: "12.5.7", plist: .complete)
        let report = try ws.audit()
        #expect(report.findings.isEmpty)
        // v2: checks the log cannot decide (no relaunch or indicator lines) make it PARTIAL, not PASS.
        #expect(report.verdict == .partial)
        #expect(report.exitCode == 0)
    }

    @Test("iOS 13+ provisional Always counts as WhenInUse for the blue bar")
    func provisionalAlwaysBlueBar() throws {
        let ws = try AuditWorkspace()
        // The device's logs carry indicator lines (hidden at launch): the bar that never shows is known not shown.
        let log = LogScript().launch().blueBar(false).prompt("Always", options: "AllowOnce,WhenInUse,Deny").answer("WhenInUse")
            .status("AuthorizedAlways", provisional: 1).property("allowsBackgroundLocationUpdates", 1)
            .call("startUpdatingLocation").state("BackgroundRunning").deliver()
        try ws.ingest(log.text, os: "13.7", plist: .complete)
        let report = try ws.audit()
        #expect(report.rules == ["missing-blue-bar"])
        #expect(report.findings.first?.message.contains("WhenInUse") == true)
    }

    @Test("deliveries to a terminated process are delivery-after-termination only, whatever the status")
    func deliveryAfterTerminationOnly() throws {
        let ws = try AuditWorkspace()
        let log = LogScript().launch().told("Denied").state("BackgroundRunning").terminate().deliver()
        try ws.ingest(log.text, os: "17.5.1", plist: .complete)
        #expect(try ws.audit().rules == ["delivery-after-termination"])
    }

    @Test("a session without a launch line starts at its first line; lines of another pid open another session")
    func sessionsWithoutLaunchLines() throws {
        let ws = try AuditWorkspace()
        var lines = LogScript().told("AuthorizedWhenInUse").deliver().lines   // pid 500, no launch line
        lines += LogScript().launch().launch().deliver().lines.map { $0.replacingOccurrences(of: "Nov 20 09", with: "Nov 20 10") }
        try ws.ingest(lines.joined(separator: "\n"), os: "17.5.1", plist: .complete)
        _ = try ws.audit()
        let sessions = try ws.workspace.rows("SELECT pid, end_reason, launch_intent FROM sessions ORDER BY start_us")
        #expect(sessions.map { $0[0] as Int64? } == [500, 501, 502])
        #expect(sessions.map { $0[1] as String } == ["next-launch", "next-launch", "end-of-log"])
        #expect(sessions.map { $0[2] as String? } == [nil, "foreground-interactive", "foreground-interactive"])
    }

    @Test("a launch line starts a new session even for a pid seen before: a reused pid does not hide allow-once-persisting")
    func launchWithReusedPid() throws {
        // No termination line (the device rebooted), then the app runs again with the same pid:
        // once with the launch line naming the pid, once with the pid only in the lines after it.
        for naming in [true, false] {
            let ws = try AuditWorkspace()
            let log = LogScript().launch(pid: 501, naming: naming).call("requestWhenInUseAuthorization")
                .prompt("WhenInUse", options: "AllowOnce,WhenInUse,Deny").answer("AllowOnce").status("AuthorizedWhenInUse", temporary: 1)
                .deliver()
                .launch(pid: 501, naming: naming).deliver().deliver()
            try ws.ingest(log.text, os: "13.7", plist: .complete)
            let report = try ws.audit()
            #expect(report.rules == ["allow-once-persisting"], "launch line naming the pid: \(naming)")
            let sessions = try ws.workspace.rows("SELECT pid, end_reason, events FROM sessions ORDER BY start_us")
            #expect(sessions.map { $0[0] as Int64? } == [501, 501], "launch line naming the pid: \(naming)")
            #expect(sessions.map { $0[1] as String } == ["next-launch", "end-of-log"], "launch line naming the pid: \(naming)")
            #expect(sessions.map { $0[2] as Int } == [7, 4], "launch line naming the pid: \(naming)")
        }
    }

    @Test("a background relaunch naming a reused pid is one session: SpringBoard's launch line and locationd's line together")
    func backgroundRelaunchWithReusedPid() throws {
        let ws = try AuditWorkspace()
        let log = LogScript().launch(pid: 501, naming: true).told("AuthorizedAlways").call("startMonitoringSignificantLocationChanges")
            .relaunch(for: "SignificantLocationChange", pid: 501, naming: true).deliver()
        try ws.ingest(log.text, os: "12.5.7", plist: .complete)
        #expect(try ws.audit().findings.isEmpty)
        let sessions = try ws.workspace.rows("SELECT pid, launch_intent, relaunch_service, events FROM sessions ORDER BY start_us")
        #expect(sessions.count == 2)
        #expect(sessions.last?[1] as String? == "background")
        #expect(sessions.last?[2] as String? == "significantChange")
        #expect(sessions.last?[3] as Int? == 4)
    }

    @Test("a pid reused after a termination starts a new session, not a delivery to a dead process")
    func reusedPid() throws {
        let ws = try AuditWorkspace()
        let log = LogScript().launch().told("AuthorizedWhenInUse").deliver().terminate()
            .state("ForegroundRunning").deliver()          // same pid 501, running again without a launch line
        try ws.ingest(log.text, os: "17.5.1", plist: .complete)
        #expect(try ws.audit().findings.isEmpty)
        #expect(try ws.workspace.count("SELECT count(*) FROM sessions") == 2)
    }
}
