import Foundation
import Testing
@testable import LocAuditModel
@testable import LocAuditRules
@testable import LocAuditReport
@testable import LocAuditStore

/// The `fleet-html` page a QA lead opens in the morning, on a laptop.
@Suite struct FleetPageTests {
    /// A fleet of 40 devices and every rule, on 10 iOS versions, over 7 nights (the last one
    /// resolving nothing).
    static let large: FleetSummary = {
        let rules = RuleRegistry.descriptions
        var open: [FleetSummary.Cell] = []
        for d in 0..<40 {
            for (r, rule) in rules.enumerated() where (d + r) % 3 == 0 {
                open.append(.init(rule: rule.identifier, severity: rule.severity, device: String(format: "00008030-%016X", 0xA000 + d),
                                  bundleId: "com.example.app\(r % 6)", iosMajor: [9, 10, 11, 12, 13, 14, 15, 16, 17, 18][d % 10]))
            }
        }
        let trend = (1...7).map { n in
            FleetSummary.RunPoint(runId: Int64(n), startedAt: "2026-11-\(14 + n)T02:30:00.000000Z", open: open.count - 5 * (7 - n),
                                  new: n == 1 ? open.count - 25 : 9, resolved: n == 7 ? 0 : 4)
        }
        return FleetSummary(runId: 7, startedAt: trend.last!.startedAt, open: open, trend: trend)
    }()

    static let devices: [String: DeviceLabel] = Dictionary(uniqueKeysWithValues: (0..<40).map { d in
        let id = String(format: "00008030-%016X", 0xA000 + d)
        return (id, DeviceLabel(id: id, name: "qa-fleet-\(String(format: "%02d", d))", model: "iPhone14,\(d % 8)"))
    })

    @Test("the page has the audit report's look: its style sheet, no script, no network, and devices by name with the UDID on hover")
    func look() {
        let html = FleetSummaryReporter.generateHTML(Self.large, devices: Self.devices)
        #expect(html.contains("<style>\(HTMLStyle.css)</style>"))
        #expect(html.contains("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'"))
        #expect(!html.contains("<script") && !html.contains("http://") && !html.contains("https://"))
        #expect(html.contains("<span class=\"device\" title=\"UDID 00008030-000000000000A000\">qa-fleet-00</span> <small>iPhone14,0</small>"))
        #expect(html.contains("<div class=\"matrix-scroll\" role=\"region\""))
    }

    @Test("the trend is a chart of open findings per night, one bar per run, and no count is signed: no -0 for a night that resolved nothing")
    func trend() throws {
        let html = FleetSummaryReporter.generateHTML(Self.large)
        let chart = try #require(html.firstMatch(of: #/<svg class="trend"[\s\S]*?</svg>/#)).output
        #expect(chart.matches(of: #/<rect class="bar"/#).count == 7)
        // Bars as tall as their counts: the last night's (the most open) is the tallest.
        let heights = chart.matches(of: #/<rect class="bar" x="[^"]*" y="[^"]*" width="[^"]*" height="([^"]*)"/#).map { Double($0.output.1)! }
        #expect(heights == heights.sorted() && heights.first! < heights.last!)
        #expect(chart.contains(">\(Self.large.trend.last!.open)</text>"))
        let table = try #require(html.firstMatch(of: #/<table class="trend-table">[\s\S]*?</table>/#)).output
        #expect(table.contains("<td class=\"count\">9</td><td class=\"count\">0</td></tr>"), "the last night: 9 new, 0 resolved")
        #expect(html.firstMatch(of: #/>\s*[-−+]\d/#) == nil, "a signed count in the page")
        let text = FleetSummaryReporter.generateReport(Self.large)
        let trendRows = text.components(separatedBy: "Trend (")[1].split(separator: "\n").dropFirst(2)
        #expect(trendRows.count == 7 && trendRows.allSatisfy { $0.firstMatch(of: #/\s[-+]\d/#) == nil }, "the text summary signs its counts: \(trendRows)")
    }

    /// What the browser lays out at 1366x768, a common laptop screen.
    struct Layout: Decodable {
        var innerWidth: Double
        var innerHeight: Double
        var pageWidth: Double
        /// Per matrix box: width, height, scroll width, scroll height.
        var boxes: [[Double]]
        /// Per matrix: the header's and the first column's offsets in the box before and after scrolling it.
        var held: [[Double]]
        var stickyHeader: [String]
        var stickyFirstColumn: [String]
        var bars: Int
    }

    static let measure = """
        const boxes = [...document.querySelectorAll('.matrix-scroll')];
        const held = boxes.map(box => {
          const head = box.querySelector('thead th:nth-child(2)'), first = box.querySelector('tbody tr th');
          const at = () => [head.getBoundingClientRect().top - box.getBoundingClientRect().top,
                            first.getBoundingClientRect().left - box.getBoundingClientRect().left];
          const before = at();
          box.scrollTop = 400; box.scrollLeft = 400;
          const after = at();
          box.scrollTop = 0; box.scrollLeft = 0;
          return [...before, ...after];
        });
        return {
          innerWidth, innerHeight, pageWidth: document.documentElement.scrollWidth,
          boxes: boxes.map(b => { const r = b.getBoundingClientRect(); return [r.width, r.height, b.scrollWidth, b.scrollHeight]; }),
          held,
          stickyHeader: [...document.querySelectorAll('.matrix thead th')].map(th => getComputedStyle(th).position),
          stickyFirstColumn: [...document.querySelectorAll('.matrix tbody th')].map(th => getComputedStyle(th).position),
          bars: document.querySelectorAll('svg.trend rect.bar').length,
        };
        """

    @Test("in headless Chromium at 1366x768, the page needs no sideways scrolling: each matrix fits the screen, scrolls inside, and keeps its headers in view; screenshot kept with LOCAUDIT_KEEP_HTML",
          .tags(.endToEnd), .timeLimit(.minutes(2)))
    func onALaptop() throws {
        guard let chromium = Chromium.required() else { return }
        let ws = try Workspace()
        let html = FleetSummaryReporter.generateHTML(Self.large, devices: Self.devices)
        let layout: Layout = try chromium.evaluate(html, script: Self.measure, in: ws.dir, width: 1366, height: 768)
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
        #expect(layout.bars == Self.large.trend.count)

        let page = ws.dir.appendingPathComponent("fleet.html")
        try html.write(to: page, atomically: true, encoding: .utf8)
        let shot = ws.dir.appendingPathComponent("fleet.png")
        try chromium.screenshot(page, to: shot, profile: ws.dir.appendingPathComponent("chromium-profile"), width: 1366, height: 768)
        #expect(FileManager.default.fileExists(atPath: shot.path))
        try Chromium.keep([page, shot])
    }
}
