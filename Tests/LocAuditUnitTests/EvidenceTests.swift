import Foundation
import Testing
@testable import LocAuditAudit
@testable import LocAuditModel
@testable import LocAuditReplay
@testable import LocAuditRules
@testable import LocAuditNormalise
@testable import LocAuditStore

/// Findings only on evidence (rules-model.md "Evidence: what the audit may assume"): a fact a
/// log cannot show is unknown, never a default, and a rule that needs it is not evaluable.
@Suite struct EvidenceTests {
    /// The coverage's reasons for `rule`, joined (empty when it was evaluated everywhere).
    static func notEvaluable(_ report: AuditReport, _ rule: String) -> String {
        (report.coverage.notEvaluable[rule] ?? [:]).keys.sorted().joined(separator: "; ")
    }

    static func notEvaluableCount(_ report: AuditReport, _ rule: String) -> Int {
        (report.coverage.notEvaluable[rule] ?? [:]).values.reduce(0, +)
    }

    // MARK: App state

    @Test("a session without an app-state or launch line has an unknown app state, not foreground")
    func appStateUnknown() throws {
        let ws = try AuditWorkspace()
        let log = LogScript().told("AuthorizedWhenInUse").call("startUpdatingLocation").deliver()
        try ws.ingest(log.text, os: "15.8", plist: ExamplePlist(usageKeys: [UsageKey.whenInUse]))
        let report = try ws.audit()
        #expect(report.findings.isEmpty)
        #expect(Self.notEvaluable(report, "background-delivery-without-capability").hasPrefix("app state unknown (no app-state or launch line)"))
    }

    @Test("a background launch starts in the background: its deliveries are background deliveries")
    func backgroundLaunch() throws {
        let ws = try AuditWorkspace()
        // v2: under When In Use an app launched in the background is not in use (iOS 12: no Allow Once to lapse).
        let log = LogScript().system("Bootstrapping app<com.example.app> with intent background", process: "SpringBoard[50]")
            .told("AuthorizedWhenInUse").property("allowsBackgroundLocationUpdates", 1).call("startUpdatingLocation").deliver()
        try ws.ingest(log.text, os: "12.5.7", plist: ExamplePlist(usageKeys: [UsageKey.whenInUse, UsageKey.alwaysAndWhenInUse]))
        let report = try ws.audit()
        #expect(report.rules.contains("background-delivery-without-capability"))
        #expect(report.findings.first { $0.rule == "background-delivery-without-capability" }?.message.contains("launched in the background") == true)
    }

    // MARK: Manager flags

    @Test("the background flag is NO by default only when the session's launch and the app's own lines are in the log")
    func backgroundFlagDefault() throws {
        // The log starts mid-run: the app may have set the flag before it. Not a critical finding.
        let midRun = try AuditWorkspace()
        try midRun.ingest(LogScript().state("BackgroundRunning").told("AuthorizedWhenInUse").call("startUpdatingLocation").deliver().text,
                          os: "15.8", plist: .complete)
        let unknown = try midRun.audit()
        #expect(!unknown.rules.contains("background-delivery-without-capability"))
        // v2: whether the app started its updates in use is what is unknown.
        #expect(Self.notEvaluable(unknown, "background-delivery-without-capability").hasPrefix("in use unknown"))

        // From its launch, with the app's CoreLocation lines: a flag set YES would show, so it is NO.
        let launched = try AuditWorkspace()
        try launched.ingest(LogScript().launch().state("BackgroundRunning").told("AuthorizedWhenInUse").call("startUpdatingLocation")
                                .wait(30).deliver().text, os: "12.5.7", plist: .complete)
        let found = try launched.audit()
        #expect(found.findings.first { $0.rule == "background-delivery-without-capability" }?.message.contains("allowsBackgroundLocationUpdates \"YES\"") == true)
    }

    // MARK: Blue bar

    @Test("the blue bar is known only on a device whose logs carry indicator lines (of any app)")
    func blueBarNeedsIndicatorLines() throws {
        let background = LogScript().launch().told("AuthorizedWhenInUse").property("allowsBackgroundLocationUpdates", 1)
            .call("startUpdatingLocation").state("BackgroundRunning").deliver()
        let silent = try AuditWorkspace()
        try silent.ingest(background.text, os: "12.5.7", plist: .complete)
        let unknown = try silent.audit()
        #expect(!unknown.rules.contains("missing-blue-bar"))
        #expect(Self.notEvaluable(unknown, "missing-blue-bar") == "blue bar unknown (the device's logs carry no indicator line)")

        let other = ##"{"msg":"#BackgroundIndicator visibility", "bundleId":"com.example.other", "visible":0}"##
        let carrying = try AuditWorkspace()
        try carrying.ingest(LogScript().system(other).text + "\n" + background.text, os: "12.5.7", plist: .complete)
        #expect(try carrying.audit().rules.contains("missing-blue-bar"))
    }

    // MARK: Allow Once

    @Test("a WhenInUse only a callback said may have been Allow Once: allow-once-persisting is not evaluable, not passed")
    func allowOnceUnknown() throws {
        let ws = try AuditWorkspace()
        let log = LogScript().launch().told("AuthorizedWhenInUse").deliver().terminate()
            .launch().told("AuthorizedWhenInUse").deliver()
        try ws.ingest(log.text, os: "13.7", plist: .complete)
        let report = try ws.audit()
        #expect(report.findings.isEmpty)
        #expect(Self.notEvaluableCount(report, "allow-once-persisting") == 2)
        #expect(Self.notEvaluable(report, "allow-once-persisting").hasPrefix("Allow Once unknown"))
    }

    @Test("a prompt answer AllowOnce is an Allow Once grant, without a status-change line")
    func allowOnceAnswer() throws {
        let ws = try AuditWorkspace()
        let log = LogScript().launch().call("requestWhenInUseAuthorization").prompt("WhenInUse", options: "AllowOnce,WhenInUse,Deny")
            .answer("AllowOnce").told("AuthorizedWhenInUse").deliver().terminate()
            .launch().told("AuthorizedWhenInUse").deliver()
        try ws.ingest(log.text, os: "13.7", plist: .complete)
        let report = try ws.audit()
        #expect(report.rules == ["allow-once-persisting"])
        #expect(report.findings.first?.pid == 502)
    }

    // MARK: Prompts and grants

    @Test("a permanent Always from a prompt is not judged direct when the status before it is unknown")
    func directAlwaysGrantUnknownBefore() throws {
        let ws = try AuditWorkspace()
        try ws.ingest(LogScript().launch().status("AuthorizedAlways").text, os: "14.8", plist: .complete)
        let report = try ws.audit()
        #expect(report.findings.isEmpty)
        #expect(Self.notEvaluable(report, "direct-always-grant").hasPrefix("authorization status unknown"))
    }

    @Test("a grant after a temporary full-accuracy prompt is not judged against the Always keys")
    func grantAfterTemporaryAccuracyPrompt() throws {
        let ws = try AuditWorkspace()
        let log = LogScript().launch().call("requestWhenInUseAuthorization").prompt("WhenInUse", options: "AllowOnce,WhenInUse,Deny")
            .answer("WhenInUse").status("AuthorizedWhenInUse")
            .call("requestTemporaryFullAccuracyAuthorizationWithPurposeKey:", purposeKey: "Delivery")
            .prompt("TemporaryFullAccuracy", options: "Allow,Deny").answer("Allow")
            .accuracy("Full", temporary: 1, purposeKey: "Delivery").status("AuthorizedWhenInUse")
        try ws.ingest(log.text, os: "14.8", plist: ExamplePlist(usageKeys: [UsageKey.whenInUse], temporaryPurposeKeys: ["Delivery"]))
        let report = try ws.audit()
        #expect(!report.rules.contains("grant-without-usage-description"))
        #expect(report.coverage.notEvaluable["grant-without-usage-description"] == nil)
    }

    @Test("a return to notDetermined resets the upgrade prompts, the first request and a kept WhenInUse")
    func promptHistoryResets() throws {
        // iOS 13: one upgrade prompt, the user resets the app in Settings, asks again: a new upgrade prompt is owed.
        let ios13 = try AuditWorkspace()
        try ios13.ingest(LogScript().launch().prompt("Always", options: "AllowOnce,WhenInUse,Deny").answer("WhenInUse")
                            .status("AuthorizedAlways", provisional: 1)
                            .prompt("AlwaysUpgrade", options: "Always,KeepWhenInUse").answer("KeepWhenInUse").status("AuthorizedWhenInUse")
                            .status("NotDetermined", reason: "Settings")
                            .prompt("WhenInUse", options: "AllowOnce,WhenInUse,Deny").answer("WhenInUse").status("AuthorizedWhenInUse")
                            .prompt("AlwaysUpgrade", options: "Always,KeepWhenInUse").text, os: "13.7", plist: .complete)
        let reset13 = try ios13.audit()
        #expect(!reset13.rules.contains("repeated-always-prompt"))
        #expect(reset13.coverage.notEvaluable["repeated-always-prompt"] == nil)

        // iOS 12: a direct requestAlways kept at WhenInUse, then a reset: the next first request is WhenInUse, its upgrade owed.
        let ios12 = try AuditWorkspace()
        try ios12.ingest(LogScript().launch().prompt("Always", options: "WhenInUse,Always,Deny").answer("WhenInUse").status("AuthorizedWhenInUse")
                            .status("NotDetermined", reason: "Settings")
                            .prompt("WhenInUse", options: "WhenInUse,Deny").answer("WhenInUse").status("AuthorizedWhenInUse")
                            .prompt("AlwaysUpgrade", options: "Always,KeepWhenInUse").text, os: "12.5.7", plist: .complete)
        #expect(!(try ios12.audit().rules.contains("repeated-always-prompt")))
    }

    // MARK: Lines a session may lack

    @Test("a session without the app's own CoreLocation lines cannot show deliveries: no delivery rule passes it")
    func noAppLines() throws {
        let ws = try AuditWorkspace()
        // Like the real Juniper console log: a launch, a foreground state, a crash that is not
        // CoreLocation's (a JavaScript exception), a termination, no Info.plist.
        let crash = "*** Terminating app due to uncaught exception 'RCTFatalException: Unhandled JS Exception: TypeError', reason: 'Unhandled JS Exception'"
        try ws.ingest(LogScript().launch().app(crash).terminate().text, os: "17.5.1")
        let report = try ws.audit()
        for rule in ["delivery-after-termination", "delivery-while-paused", "delivery-without-authorization", "allow-once-persisting",
                     "relaunch-without-always"] {
            #expect(Self.notEvaluable(report, rule).hasPrefix("no CoreLocation line of the app"), "\(rule)")
        }
        #expect(report.verdict == .insufficientEvidence)
    }

    @Test("locationd's subscription lines are the daemon's, not the app's own CoreLocation lines")
    func daemonSubscriptionIsNoAppLine() throws {
        let ws = try AuditWorkspace()
        // The real wording (transistorsoft #1860): locationd says the app subscribed to and
        // left location updates; the app's own lines are not in the log.
        let log = LogScript().launch()
            .system("Client [mobile]com.example.app (0xbccd298c0) is subscribing to notification kCLConnectionMessageLocation")
            .system("Client [mobile]com.example.app (0xbccd298c0) is unsubscribing to notification kCLConnectionMessageLocation")
            .terminate()
        try ws.ingest(log.text, os: "16.3")
        #expect(try ws.workspace.count("SELECT count(*) FROM events WHERE property = 'locationUpdates'") == 2)
        let report = try ws.audit()
        for rule in ["delivery-after-termination", "delivery-without-authorization", "relaunch-without-always"] {
            #expect(Self.notEvaluable(report, rule).hasPrefix("no CoreLocation line of the app"), "\(rule)")
        }
    }

    @Test("deliveries of a session whose start is not in the log may come during a pause: not evaluable")
    func pausedUnknown() throws {
        let ws = try AuditWorkspace()
        try ws.ingest(LogScript().told("AuthorizedWhenInUse").deliver().text, os: "17.5.1", plist: .complete)
        let report = try ws.audit()
        #expect(Self.notEvaluable(report, "delivery-while-paused").hasPrefix("automatic pause unknown"))
    }

    // MARK: Install and uninstall

    /// A user catalog that maps MobileInstallation's real install and uninstall lines (the
    /// built-in catalog learns them in the real-logs issue).
    static func installCatalog(_ ws: AuditWorkspace) throws -> String {
        try ws.workspace.write("install-catalog.json", #"""
            {"patterns": [
              {"id": "test.install", "kind": "install", "scope": "system", "contains": "uccessful for (",
               "regex": "-\\[MIInstaller [^\\]]+\\]: (?i:install successful for) \\((?<type>[A-Za-z]+):(?<bundle>[^)\\s]+)\\)",
               "fields": {"bundle_id": "bundle", "reason": "type"},
               "samples": [{"message": "0x16f5ef000 -[MIInstaller performInstallationWithError:]: Install Successful for (Customer:com.example.app); Staging: 0.03s",
                            "expect": {"kind": "install", "bundle_id": "com.example.app", "reason": "Customer"}}]},
              {"id": "test.uninstall", "kind": "uninstall", "scope": "system", "contains": "Uninstalling identifier ",
               "regex": "-\\[MIUninstaller [^\\]]+\\]: Uninstalling identifier (?<bundle>[A-Za-z0-9._-]+)",
               "fields": {"bundle_id": "bundle"},
               "samples": [{"message": "0x16f5ef000 -[MIUninstaller _uninstallBundleWithIdentity:linkedToChildren:waitForDeletion:uninstallReason:temporaryReference:wasLastReference:error:]: Uninstalling identifier com.example.app",
                            "expect": {"kind": "uninstall", "bundle_id": "com.example.app"}}]}
            ]}
            """#)
    }

    static let install = "0x16f5ef000 -[MIInstaller performInstallationWithError:]: Install Successful for (Customer:com.example.app); Staging: 0.03s; Waiting: 0.00s; Preflight/Patch: 0.06s, Verifying: 1.03s; Overall: 1.27s"
    static let uninstall = "0x16f5ef000 -[MIUninstaller _uninstallBundleWithIdentity:linkedToChildren:waitForDeletion:uninstallReason:temporaryReference:wasLastReference:error:]: Uninstalling identifier com.example.app"

    static func granted() -> LogScript {
        LogScript().launch().call("requestWhenInUseAuthorization").prompt("WhenInUse", options: "AllowOnce,WhenInUse,Deny")
            .answer("WhenInUse").status("AuthorizedWhenInUse").deliver().terminate()
    }

    @Test("an uninstall resets the app: a reinstalled app that delivers without asking again delivers without authorization")
    func uninstallResets() throws {
        let ws = try AuditWorkspace()
        let log = Self.granted().system(Self.uninstall, process: "installd[123]").system(Self.install, process: "installd[123]")
            .launch().deliver()
        try ws.ingest(log.text, os: "14.8", plist: .complete, catalogs: [try Self.installCatalog(ws)])
        let report = try ws.audit()
        #expect(report.rules == ["delivery-without-authorization"])
        #expect(report.findings.first?.message.contains("notDetermined") == true)
        #expect(report.findings.first?.pid == 502)
    }

    @Test("an install over an installed app (Xcode's Run) resets nothing")
    func reinstallKeeps() throws {
        let ws = try AuditWorkspace()
        let log = Self.granted().system(Self.install, process: "installd[123]").launch().deliver()
        try ws.ingest(log.text, os: "14.8", plist: .complete, catalogs: [try Self.installCatalog(ws)])
        let report = try ws.audit()
        #expect(report.findings.isEmpty)
        #expect(report.coverage.notEvaluable["delivery-without-authorization"] == nil)
    }

    @Test("an install with no earlier line of the app makes notDetermined known")
    func firstInstall() throws {
        let ws = try AuditWorkspace()
        let log = LogScript().system(Self.install, process: "installd[123]").launch().deliver()
        try ws.ingest(log.text, os: "14.8", plist: .complete, catalogs: [try Self.installCatalog(ws)])
        let report = try ws.audit()
        #expect(report.rules == ["delivery-without-authorization"])
        // The install line opens no session of its own.
        #expect(try ws.workspace.count("SELECT count(*) FROM sessions") == 1)

        let without = try AuditWorkspace()
        try without.ingest(LogScript().launch().deliver().text, os: "14.8", plist: .complete)
        #expect(Self.notEvaluable(try without.audit(), "delivery-without-authorization").hasPrefix("authorization status unknown"))
    }

    // MARK: Info.plist versions

    static func plist(version: String, build: String, keys: [String]) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict>
        <key>CFBundleIdentifier</key><string>com.example.app</string>
        <key>CFBundleExecutable</key><string>App</string>
        <key>CFBundleShortVersionString</key><string>\(version)</string>
        <key>CFBundleVersion</key><string>\(build)</string>
        \(keys.map { "<key>\($0)</key><string>Shows where you are.</string>" }.joined())
        </dict></plist>

        """
    }

    @Test("an Info.plist ingested later does not re-judge earlier logs; one handed in with a later log judges that log")
    func plistVersions() throws {
        let ws = try Workspace()
        let asking = LogScript().launch().call("requestAlwaysAuthorization").told("AuthorizedWhenInUse").text
        func ingest(_ plist: String, keys: [String], version: String, log day: String?) throws {
            var paths = [try ws.write(plist, Self.plist(version: version, build: version.replacingOccurrences(of: ".", with: ""), keys: keys))]
            if let day {
                paths.append(try ws.write("phone-2026-11-\(day).log", asking.replacingOccurrences(of: "Nov 20", with: "Nov \(day)") + "\n"))
                try ws.write("phone-2026-11-\(day).ideviceinfo.txt", "UniqueDeviceID: phone\nDeviceName: phone\nProductVersion: 17.5.1\nTimeZone: UTC\n")
            }
            _ = try ws.ingest(paths)
        }
        func audit() throws -> AuditReport { try Auditor(databasePath: ws.store.path, options: AuditOptions()).run() }
        func files(_ finding: Finding) -> [String] {
            finding.evidence.map { $0.file.replacingOccurrences(of: ws.dir.path + "/", with: "") }
        }
        // 1.0 lacks the iOS 11+ Always key.
        try ingest("v1/Info.plist", keys: [UsageKey.whenInUse], version: "1.0", log: "20")
        let first = try #require(try audit().findings.first { $0.rule == "missing-usage-description" })
        #expect(first.message.contains("absent from Info.plist 1.0 (10)"))
        #expect(files(first).contains("v1/Info.plist"))

        // 2.0 has it, but alone it changes nothing: the log ran with 1.0.
        try ingest("v2/Info.plist", keys: [UsageKey.whenInUse, UsageKey.alwaysAndWhenInUse], version: "2.0", log: nil)
        let alone = try audit()
        let still = try #require(alone.findings.first { $0.rule == "missing-usage-description" })
        #expect(alone.persisting.contains(still.fingerprint))
        #expect(still.message.contains("Info.plist 1.0 (10)"))
        #expect(files(still).contains("v1/Info.plist") && !files(still).contains("v2/Info.plist"))

        // 2.1 handed in with the next day's log is in force from that log's first line: the app's latest session is fine.
        try ingest("v21/Info.plist", keys: [UsageKey.whenInUse, UsageKey.alwaysAndWhenInUse], version: "2.1", log: "21")
        let fixed = try audit()
        #expect(!fixed.rules.contains("missing-usage-description"))
        #expect(fixed.resolved.map(\.rule) == ["missing-usage-description"])
        #expect(try ws.count("SELECT count(*) FROM app_versions WHERE bundle_id = 'com.example.app'") == 3)
        #expect(try ws.rows("SELECT version FROM apps").map { $0[0] as String } == ["2.1"])
        #expect(try ws.rows("SELECT first_seen FROM app_versions WHERE version = '2.1'").map { $0[0] as String } == ["2026-11-21T09:00:01.000000Z"])
    }

    @Test("what a device's logs carry survives a prune: the lines showing indicator lines may go, the knowledge stays")
    func deviceLogsSurvivePrune() throws {
        let ws = try AuditWorkspace()
        // Day 1: the bar shows and hides. Day 2: a background delivery under WhenInUse with no bar.
        try ws.ingest(LogScript().launch().blueBar(true).blueBar(false).terminate().text, name: "device-2026-11-20.log", os: "12.5.7", plist: .complete)
        let day2 = LogScript().launch().told("AuthorizedWhenInUse").property("allowsBackgroundLocationUpdates", 1)
            .call("startUpdatingLocation").state("BackgroundRunning").deliver().text.replacingOccurrences(of: "Nov 20", with: "Nov 22")
        try ws.ingest(day2, name: "device-2026-11-22.log", os: "12.5.7")
        #expect(try ws.audit().rules == ["missing-blue-bar"])
        let pruned = try Maintenance.prune(database: ws.dbPath, cutoffUS: try #require(AuditOptions.parseTime("2026-11-21")))
        #expect(pruned.checkpoints == 1)
        #expect(try ws.workspace.count("SELECT count(*) FROM events WHERE kind = 'blue-bar'") == 0)
        let after = try ws.audit()
        #expect(after.rules == ["missing-blue-bar"])
        #expect(after.resolved.isEmpty)
    }

    @Test("a checkpoint written before the evidence fields existed decodes: what it lacks is unknown or absent")
    func oldCheckpointDecodes() throws {
        // As the previous version wrote it: every flag a Bool, no device knowledge, no prompt-history knowledge.
        let old = #"{"status":"authorizedWhenInUse","provisionalAlways":false,"grantIsAllowOnce":false,"keptWhenInUseOnDirectAlways":false,"#
            + #""upgradePrompts":1,"temporaryFullAccuracy":false,"allowOnceLapsed":false,"temporaryPreciseLapsed":false,"backgroundFlag":false,"#
            + #""indicatorFlag":false,"blueBarVisible":false,"paused":false,"services":{"bits":0},"terminated":true,"firstRequest":"whenInUse"}"#
        let state = try ReplayCheckpoint.decode(old, device: "d", bundle: "b")
        #expect(state.status.value == .authorizedWhenInUse && state.grantIsAllowOnce.value == false && state.upgradePrompts == 1)
        // A bare value says no line: it is implied by the checkpoint.
        #expect(state.status.basis == .implied(.checkpoint) && state.status.event == nil)
        #expect(state.deviceLogs == DeviceLogs() && !state.promptHistoryKnown && !state.whenInUseOrLapsed)
        // An optional field nil when stored (JSON leaves it out) stays nil.
        let unknown = try ReplayCheckpoint.decode(#"{"status":"authorizedAlways","upgradePrompts":0}"#, device: "d", bundle: "b")
        #expect(unknown.provisionalAlways == .unknown && unknown.grantIsAllowOnce == .unknown)
    }

    @Test("a checkpoint keeps how each fact is known: the line that said it, the rule that implies it, or unknown")
    func checkpointKeepsBasis() throws {
        var state = ReplayState()
        state.status = Known(.denied, .observed(41))
        state.paused = Known(false, .implied(.launch))
        let text = String(decoding: try JSONEncoder().encode(state), as: UTF8.self)
        let back = try ReplayCheckpoint.decode(text, device: "d", bundle: "b")
        #expect(back.status == state.status && back.status.event == 41)
        #expect(back.paused == Known(false, .implied(.launch)) && back.paused.event == nil)
        #expect(back.accuracy == .unknown && back.accuracy.basis == nil)
    }

    // MARK: The timeline

    @Test("the HTML timeline draws an unknown app state and blue bar hatched, not as foreground or hidden")
    func timelineUnknownLanes() throws {
        let ws = try Workspace()
        let path = try ws.write("phone-2026-11-20.log", LogScript().told("Denied").deliver().text + "\n")
        try ws.write("phone-2026-11-20.ideviceinfo.txt", "UniqueDeviceID: phone\nDeviceName: phone\nProductVersion: 17.5.1\n")
        let plist = try ws.write("App.plist", ExamplePlist.complete.xml)
        _ = try ws.ingest([path]) {
            $0.infoPlists = [plist]
            $0.parse = ParseOptions(year: 2026, zone: TimeZone(identifier: "UTC"))
        }
        let audit = try RenderedAudit(ws)
        #expect(audit.report.rules == ["delivery-without-authorization"])
        let timeline = try #require(audit.timelines.first)
        func values(_ kind: SessionTimeline.LaneKind) -> [String?] { timeline.lanes.first { $0.kind == kind }!.intervals.map(\.value) }
        #expect(values(.appState) == [nil])
        #expect(values(.blueBar) == [nil])
        let html = audit.html()
        #expect(html.contains(#"<pattern id="unknown-hatch""#))
        // Two lanes of the session and the legend's sample; the style sheet fills `.unknown` with the hatch.
        #expect(html.components(separatedBy: #"<g class="interval unknown"#).count - 1 >= 3)
        #expect(html.contains("svg .unknown { --fill: url(#unknown-hatch); }"))
        #expect(!html.contains("blue bar: hidden"))
    }
}
