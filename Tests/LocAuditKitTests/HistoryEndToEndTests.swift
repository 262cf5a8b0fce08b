import Foundation
import GRDB
import Logging
import Testing
@testable import LocAuditAudit
@testable import LocAuditModel
@testable import LocAuditRules
@testable import LocAuditReport
@testable import LocAuditStore
@testable import LocAuditUnitTests

/// HistoryTests' checks that start a program (split from HistoryTests.swift, whose other checks run in the test process).
@Suite(.tags(.endToEnd), .ownThreads) struct HistoryEndToEndTests {
    /// `locaudit run` on the inbox; its JSON report.
    static func run(_ ws: Workspace, _ inbox: String, _ name: String) throws -> [String: Any] {
        let json = ws.dir.appendingPathComponent("\(name).json").path
        let result = try LocAuditKitTests.run(locauditExecutable, ["run", "--inbox", inbox, "--db", ws.store.path, "--settle", "0",
                                                                  "--archive", ws.dir.appendingPathComponent("archive").path,
                                                                  "--report", "json:\(json)", "--quiet"])
        #expect([0, 1].contains(result.status), "\(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
    }

    @Test("a run scoped to one device reports a configuration finding already open for the app as persisting, and cannot resolve it for the other devices")
    func configurationFindingsInTheirOwnScope() throws {
        let ws = try Workspace()
        let inbox = ws.dir.appendingPathComponent("inbox").path
        // The app asks for Always without the iOS 11+ keys: a configuration finding on iOS 17.
        let plist = ExamplePlist(usageKeys: [UsageKey.whenInUse])
        try FileManager.default.createDirectory(atPath: inbox + "/apps", withIntermediateDirectories: true)
        try Data(plist.xml.utf8).write(to: URL(fileURLWithPath: inbox + "/apps/App.plist"))
        let asking = LogScript().launch().call("requestAlwaysAuthorization").told("AuthorizedWhenInUse")
        try HistoryTests.night(inbox, device: "devA", date: "2026-11-20", asking)
        let first = try Self.run(ws, inbox, "night1")
        #expect(HistoryTests.rules(first, "new") == ["missing-usage-description"])

        // Night 2: another device, same app, same iOS: the run audits devB only.
        try HistoryTests.night(inbox, device: "devB", date: "2026-11-21", asking)
        let second = try Self.run(ws, inbox, "night2")
        #expect(HistoryTests.rules(second, "persisting") == ["missing-usage-description"])
        #expect(HistoryTests.rules(second, "new") == [])

        // Night 3: a third device whose sessions never ask: devA and devB still show it, not resolved.
        try HistoryTests.night(inbox, device: "devC", date: "2026-11-22", LogScript().launch().told("AuthorizedWhenInUse"))
        let third = try Self.run(ws, inbox, "night3")
        #expect((third["resolved"] as? [Any])?.isEmpty == true)
        #expect(try ws.count("SELECT count(*) FROM findings WHERE rule = 'missing-usage-description' AND resolved_run IS NULL") == 1)
        #expect(try ws.count("SELECT count(*) FROM findings") == 1)
    }
}
