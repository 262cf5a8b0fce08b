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

    // MARK: Cells

    /// Names longer than any column: a bundle id of 150 characters, a device id of 120, a
    /// user rule of 80, on 20 iOS versions, with run ids and counts of many digits.
    static let longNames: FleetSummary = {
        let app = "com.example." + String(repeating: "averyverylongname", count: 8) + ".x"
        let device = "00008030-" + String(repeating: "0123456789ABCDEF", count: 7)
        let rule = "a-custom-rule-whose-identifier-is-long-enough-to-overflow-any-terminal-column-x"
        var open: [FleetSummary.Cell] = []
        for (i, major) in (7...26).enumerated() {
            open.append(.init(rule: i % 2 == 0 ? rule : "missing-blue-bar", severity: i % 3 == 0 ? .critical : .low,
                              device: i % 4 == 0 ? device : "qa-\(i)", bundleId: i % 5 == 0 ? app : "com.example.app\(i % 3)", iosMajor: major))
        }
        let trend = (1...7).map { n in
            FleetSummary.RunPoint(runId: Int64(123_456_780 + n), startedAt: "2026-11-\(14 + n)T02:30:00.000000Z", open: 1_234_567 + n,
                                  new: 98_765 * n, resolved: 4_321 * n)
        }
        return FleetSummary(runId: trend.last!.runId, startedAt: trend.last!.startedAt, open: open, trend: trend)
    }()

    @Test("the plain-text fleet report fits 100 columns: on the samples, a large fleet, and names longer than a line (kept whole across lines)")
    func textFits100Columns() throws {
        for summary in [FleetSummaryReporterTests.summary, Self.large, Self.longNames] {
            let text = FleetSummaryReporter.generateReport(summary)
            let long = text.split(separator: "\n").filter { $0.count > 100 }
            #expect(long.isEmpty, "lines wider than 100 columns: \(long.map { "\($0.count): \($0)" })")
            // Nothing is lost: every app, device and rule reads whole, once the lines' indents are dropped.
            let joined = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined()
            for name in Set(summary.open.flatMap { [$0.bundleId, $0.device, $0.rule] }) {
                #expect(joined.contains(name), "\(name) is not in the text")
            }
            // Each device's findings are counted under it.
            for device in Set(summary.open.map(\.device)) where device.count < 90 {
                #expect(text.contains("  \(device): \(summary.open.filter { $0.device == device }.count) open\n"))
            }
        }
        // The 20 iOS versions do not fit one table: two, each with the app column.
        let text = FleetSummaryReporter.generateReport(Self.longNames)
        let byApp = try #require(text.components(separatedBy: "Open findings by app and iOS version:\n").last?.components(separatedBy: "\n\nOpen findings by device").first)
        #expect(byApp.components(separatedBy: "\n  app ").count - 1 + (byApp.hasPrefix("  app ") ? 1 : 0) >= 2)
        #expect(byApp.contains("iOS 7") && byApp.contains("iOS 26") && byApp.contains("total"))
    }

    @Test("a matrix cell is coloured by its most severe finding, a device x rule cell names its apps, and every cell links to its findings")
    func cells() throws {
        let html = FleetSummaryReporter.generateHTML(Self.large, devices: Self.devices)
        #expect(!html.contains("matrix rotated") && !html.contains("writing-mode"))
        let byDevice = FleetSummaryReporter.deviceByRule(Self.large), byApp = FleetSummaryReporter.appByIOS(Self.large)
        let ids = Set(html.matches(of: #/ id="([^"]+)"/#).map { String($0.output.1) })
        var cells = 0
        for (prefix, m) in [("a", byApp), ("d", byDevice)] {
            for r in m.rows {
                for c in m.columns where m.count(r, c) > 0 {
                    let worst = m.findings(r, c).map(\.severity).max()!
                    let anchor = FleetSummaryReporter.anchor(prefix, m, r, c)
                    #expect(ids.contains(anchor), "cell \(r) x \(c) links to nothing")
                    let cell = try #require(html.firstMatch(of: try Regex("<td class=\"cell sev-([a-z]+)\"><a href=\"#\(anchor)\"[^>]*>(.*?)</a></td>")),
                                            "no cell \(r) x \(c)")
                    #expect(cell.output[1].substring.map(String.init) == worst.rawValue)
                    if prefix == "d" {
                        for app in Set(m.findings(r, c).map(\.bundleId)).sorted().prefix(2) {
                            #expect(cell.output[2].substring?.contains("<span class=\"app\">\(app)</span>") == true, "\(r) x \(c) does not name \(app)")
                        }
                    }
                    cells += 1
                }
            }
        }
        #expect(cells > 40)
        // The findings of a cell, under its anchor: one row each.
        let anchor = FleetSummaryReporter.anchor("d", byDevice, byDevice.rows[0], byDevice.columns.first { byDevice.count(byDevice.rows[0], $0) > 0 }!)
        let group = try #require(html.firstMatch(of: try Regex("<tbody id=\"\(anchor)\">([\\s\\S]*?)</tbody>")))
        #expect(group.output[1].substring!.components(separatedBy: "<tr>").count - 1 >= 1)
        // Rule names in full in the column headers.
        for rule in byDevice.columns { #expect(html.contains("<th scope=\"col\"><span>\(rule)</span></th>")) }
    }

    struct CellLayout: Decodable {
        /// Per rule header: text, writing mode, whether all of it shows (scroll size within client size).
        var headers: [[String]]
        /// Background colour per severity class of a cell.
        var colours: [String: String]
        /// The element a click on the first device x rule cell targets, and its first row's text.
        var target: [String]
        var pageWidth: Double
        var innerWidth: Double
    }

    static let cellScript = """
        const headers = [...document.querySelectorAll('table.matrix.named thead th:not(.corner):not(.total) span')].map(s =>
          [s.textContent, getComputedStyle(s).writingMode, String(s.scrollWidth <= s.clientWidth + 1 && s.scrollHeight <= s.clientHeight + 1)]);
        const colours = {};
        for (const sev of ['critical', 'high', 'medium', 'low', 'info']) {
          const cell = document.querySelector(`td.cell.sev-${sev}`);
          if (cell) colours[sev] = getComputedStyle(cell).backgroundColor;
        }
        const link = document.querySelector('table.matrix.named td.cell a');
        link.click();
        const target = document.querySelector(':target');
        return { headers, colours, target: [link.getAttribute('href'), target ? target.tagName + '#' + target.id : '', target ? target.querySelector('tr').textContent : ''],
                 pageWidth: document.documentElement.scrollWidth, innerWidth };
        """

}
