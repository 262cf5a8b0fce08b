import Foundation
import Testing
@testable import LocAuditModel
@testable import LocAuditReplay
@testable import LocAuditRules
@testable import LocAuditNormalise
@testable import LocAuditReport
@testable import LocAuditStore
@testable import LocAuditUnitTests

/// HTMLReadingTests' checks that start a program (split from HTMLReadingTests.swift, whose other checks run in the test process).
@Suite(.tags(.endToEnd), .ownThreads) struct HTMLReadingEndToEndTests {
    @Test("in headless Chromium, the sample report reads in time order, tells modelled from observed and names devices; the Allow Once page's screenshot kept with LOCAUDIT_KEEP_HTML",
          .tags(.endToEnd), .timeLimit(.minutes(3)), .needsChromium)
    func inChromium() throws {
        let chromium = try Chromium.required()
        let (ws, audit) = try RenderedAudit.samples()
        let layout: HTMLReadingTests.Layout = try chromium.evaluate(audit.html(), script: HTMLReadingTests.measure, in: ws.dir)
        HTMLReadingTests.checkLayout(layout, times: audit.evidence.mapValues(\.time), devices: audit.devices)

        // The Allow Once story: its relaunched session's status drawn as modelled, the device by name.
        let (allowWS, allowOnce) = try HTMLReadingTests.allowOnce()
        let html = allowOnce.html()
        let allowLayout: HTMLReadingTests.Layout = try chromium.evaluate(html, script: HTMLReadingTests.measure, in: allowWS.dir)
        #expect(allowLayout.authorization.count == 1)
        #expect(allowLayout.authorization.allSatisfy { $0[0].contains("modelled by the replay") && $0[1] != "none" }, "\(allowLayout.authorization)")
        #expect(!allowLayout.devices.isEmpty && allowLayout.devices.allSatisfy { $0 == ["Lab iPhone 11", "UDID \(HTMLReadingTests.udid)"] })
        let file = allowWS.dir.appendingPathComponent("allow-once.html"), shot = allowWS.dir.appendingPathComponent("allow-once.png")
        try html.write(to: file, atomically: true, encoding: .utf8)
        try chromium.screenshot(file, to: shot, profile: allowWS.dir.appendingPathComponent("chromium-profile"))
        #expect(FileManager.default.fileExists(atPath: shot.path))
        try Chromium.keep([file, shot])
    }
}
