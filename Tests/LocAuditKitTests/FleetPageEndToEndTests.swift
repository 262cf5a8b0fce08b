import Foundation
import Testing
@testable import LocAuditModel
@testable import LocAuditRules
@testable import LocAuditReport
@testable import LocAuditStore
@testable import LocAuditUnitTests

/// FleetPageTests' checks that start a program (split from FleetPageTests.swift, whose other checks run in the test process).
@Suite(.tags(.endToEnd), .ownThreads) struct FleetPageEndToEndTests {
    @Test("in headless Chromium at 1366x768, the page needs no sideways scrolling: each matrix fits the screen, scrolls inside, and keeps its headers in view; screenshot kept with LOCAUDIT_KEEP_HTML",
          .tags(.endToEnd), .timeLimit(.minutes(2)), .needsChromium)
    func onALaptop() throws {
        let chromium = try Chromium.required()
        let ws = try Workspace()
        let html = FleetSummaryReporter.generateHTML(FleetPageTests.large, devices: FleetPageTests.devices)
        let layout: FleetPageTests.Layout = try chromium.evaluate(html, script: FleetPageTests.measure, in: ws.dir, width: 1366, height: 768)
        #expect(layout.innerWidth == 1366)
        #expect(layout.pageWidth <= layout.innerWidth, "the page scrolls sideways: \(layout.pageWidth) wide")
        #expect(layout.boxes.count == 2)
        for box in layout.boxes {
            #expect(box[0] <= layout.innerWidth && box[1] <= layout.innerHeight, "a matrix is larger than the screen: \(box)")
        }
        // The device x rule matrix holds more than its box: it scrolls inside, both ways here.
        let big = try #require(layout.boxes.last)
        #expect(big[3] > big[1], "the device matrix does not scroll inside its box: \(big)")
        for offsets in layout.held {
            #expect(abs(offsets[2] - offsets[0]) < 1, "the header row moved when its box scrolled: \(offsets)")
            #expect(abs(offsets[3] - offsets[1]) < 1, "the first column moved when its box scrolled sideways: \(offsets)")
        }
        #expect(!layout.stickyHeader.isEmpty && layout.stickyHeader.allSatisfy { $0 == "sticky" })
        #expect(!layout.stickyFirstColumn.isEmpty && layout.stickyFirstColumn.allSatisfy { $0 == "sticky" })
        #expect(layout.bars == FleetPageTests.large.trend.count)

        let page = ws.dir.appendingPathComponent("fleet.html")
        try html.write(to: page, atomically: true, encoding: .utf8)
        let shot = ws.dir.appendingPathComponent("fleet.png")
        try chromium.screenshot(page, to: shot, profile: ws.dir.appendingPathComponent("chromium-profile"), width: 1366, height: 768)
        #expect(FileManager.default.fileExists(atPath: shot.path))
        try Chromium.keep([page, shot])
    }

    @Test("in headless Chromium at 1400 and 760 px: rule names read whole and horizontal, cells coloured by severity, a cell's link opens its findings, no sideways scrolling of the page; screenshots",
          .tags(.endToEnd), .timeLimit(.minutes(3)), .needsChromium)
    func cellsInChromium() throws {
        let chromium = try Chromium.required()
        let ws = try Workspace()
        let html = FleetSummaryReporter.generateHTML(FleetPageTests.large, devices: FleetPageTests.devices)
        for width in [1400, 760] {
            let layout: FleetPageTests.CellLayout = try chromium.evaluate(html, script: FleetPageTests.cellScript, in: ws.dir, width: width, height: 900)
            #expect(layout.pageWidth <= layout.innerWidth, "the page scrolls sideways at \(width) px: \(layout.pageWidth) wide")
            #expect(Set(layout.headers.map { $0[0] }) == Set(FleetSummaryReporter.deviceByRule(FleetPageTests.large).columns))
            for header in layout.headers {
                #expect(header[1] == "horizontal-tb" && header[2] == "true", "the rule name \(header[0]) is not read whole: \(header)")
            }
            #expect(Set(layout.colours.keys) == Set(FleetPageTests.large.open.map(\.severity.rawValue)))
            #expect(Set(layout.colours.values).count == layout.colours.count, "two severities share a colour: \(layout.colours)")
            #expect(layout.colours["critical"] == "rgb(255, 168, 168)")
            #expect(layout.target[0] == "#" + layout.target[1].split(separator: "#").last.map(String.init)!, "the cell's link does not target its findings: \(layout.target)")
            #expect(layout.target[1].hasPrefix("TBODY#d"))
        }
        try TestScreenshots.take(chromium, html: html, name: "fleet", in: ws.dir)
        try TestScreenshots.take(chromium, html: html, name: "fleet-device-matrix", in: ws.dir, showing: "#by-device-title")
    }
}
