import Foundation
import Testing
@testable import LocAuditModel
@testable import LocAuditReplay
@testable import LocAuditRules
@testable import LocAuditNormalise
@testable import LocAuditReport
@testable import LocAuditStore

/// What a person reading the HTML report needs: devices by name, values the replay models
/// told from values a line says, evidence in time order. Checked on the page's text and,
/// in a real browser, on what it lays out (never on pixels).
@Suite struct HTMLReadingTests {
    static let udid = "00008030-0004D3AF0553BC29"

    /// An Allow Once grant, then a relaunch whose callback still says WhenInUse: iOS should
    /// have dropped the grant, so the replay holds "not determined" where the line says
    /// `authorizedWhenInUse`.
    static func allowOnce() throws -> (Workspace, RenderedAudit) {
        let script = LogScript()
            .launch().call("requestWhenInUseAuthorization")
            .prompt("WhenInUse", options: "AllowOnce,WhenInUse,Deny").answer("AllowOnce")
            .status("AuthorizedWhenInUse", temporary: 1).told("AuthorizedWhenInUse")
            .call("startUpdatingLocation").deliver().terminate()
            .launch().told("AuthorizedWhenInUse").call("startUpdatingLocation").deliver().deliver().terminate()
        let ws = try Workspace()
        let log = try ws.write("lab-iphone-2026-11-20.log", script.text + "\n")
        try ws.write("lab-iphone-2026-11-20.ideviceinfo.txt",
                     "UniqueDeviceID: \(udid)\nDeviceName: Lab iPhone 11\nProductType: iPhone12,1\nProductVersion: 13.7\n")
        let plist = try ws.write("com.example.app.plist", ExamplePlist.complete.xml)
        _ = try ws.ingest([log]) {
            $0.infoPlists = [plist]
            $0.parse = ParseOptions(year: 2026, zone: TimeZone(identifier: "UTC"))
        }
        return (ws, try RenderedAudit(ws))
    }

    @Test("the authorization lane says which values a line said and which the replay modelled, and what the lines said instead")
    func modelledAndObserved() throws {
        let (_, audit) = try Self.allowOnce()
        let finding = try #require(audit.report.findings.first { $0.rule == "allow-once-persisting" })
        let timeline = try #require(audit.timelines.first { $0.findings.contains { $0.fingerprint == finding.fingerprint } })
        let lane = try #require(timeline.lanes.first { $0.kind == .authorization })
        // The relaunched session: the model's "not determined" all along, against the callback's WhenInUse.
        #expect(lane.intervals.map(\.value) == ["not determined"])
        #expect(lane.intervals.map(\.origin) == [.modelled])
        let said = try #require(lane.intervals.first?.contradictions.first)
        #expect(said.value == "When In Use")
        #expect(finding.evidence.compactMap(\.event).contains(said.event), "the line the lane marks is the finding's evidence")

        let html = audit.html()
        #expect(html.contains("<g class=\"interval auth-not-determined modelled\">"))
        #expect(html.contains(">not determined (modelled; the log says When In Use)</text>"))
        #expect(html.contains("a line says When In Use at "))
        #expect(html.contains("a status the replay models"), "the legend explains the outline")
        // Every lane's colours are classes of the style sheet, not attributes of the drawing.
        #expect(!html.contains(" fill=\"#"))
    }

    @Test("a modelled status that many lines contradict names five of them in its tooltip and counts the rest, and marks each")
    func manyContradictions() {
        let (report, timelines, evidence) = HTMLReportTests.hostileReport()
        var timeline = timelines[0]
        let start = timeline.startUS
        let said = (1...8).map { SessionTimeline.LoggedValue(event: Int64(100 + $0), timeUS: start + Int64($0) * 1_000_000, value: "When In Use") }
        timeline.lanes = [SessionTimeline.Lane(kind: .authorization, intervals: [
            .init(startUS: start, endUS: timeline.endUS, value: "not determined", origin: .modelled, contradictions: said)])]
        let html = HTMLReporter.generateReport(report, timelines: [timeline], evidence: evidence, options: ReportOptions())
        #expect(html.components(separatedBy: "; a line says When In Use at ").count - 1 == 5)
        #expect(html.contains("; and 3 more lines</title>"))
        #expect(html.components(separatedBy: "<path class=\"contradiction\" d=").count - 1 == 8 + 1, "a mark per line, and the legend's")
    }

    @Test("a status a line of the session says is drawn as observed")
    func observed() throws {
        let (_, audit) = try HTMLReportTests.tinyAudit()
        let lane = try #require(audit.timelines.first?.lanes.first { $0.kind == .authorization })
        #expect(lane.intervals.map(\.value) == [nil, "provisional Always"])
        #expect(lane.intervals.map(\.origin) == [nil, .observed])
        #expect(audit.html().contains("<g class=\"interval auth-provisional-always observed\">"))
    }

    @Test("devices appear by name, model and iOS version, with the UDID on hover only")
    func deviceNames() throws {
        let (_, audit) = try Self.allowOnce()
        #expect(audit.devices[Self.udid] == DeviceLabel(id: Self.udid, name: "Lab iPhone 11", model: "iPhone12,1"))
        let html = audit.html()
        let named = "<span class=\"device\" title=\"UDID \(Self.udid)\">Lab iPhone 11</span>"
        #expect(html.contains("<tr><td>\(named)</td><td>iPhone12,1</td><td>13.7</td>"), "the summary by device")
        #expect(html.contains("on \(named) (iPhone12,1, iOS 13.7), pid 502"), "a finding and its timeline")
        let withoutTitles = html.replacing(#/title="UDID [^"]*"/#, with: "")
        #expect(!withoutTitles.contains(Self.udid), "the UDID shows outside a hover")
    }

    @Test("two devices of one name are told apart by the end of their ids; a device without facts shows its id")
    func sharedNames() throws {
        let (report, timelines, evidence) = HTMLReportTests.hostileReport()
        var two = report
        two.findings = [report.findings[0], report.findings[0], report.findings[0]]
        two.findings[0].device = "00008030-00000000000AAAAA"
        two.findings[1].device = "00008030-00000000000BBBBB"
        two.findings[2].device = "no-facts-device"
        let devices = ["00008030-00000000000AAAAA": DeviceLabel(id: "00008030-00000000000AAAAA", name: "qa-iphone", model: "iPhone14,5"),
                       "00008030-00000000000BBBBB": DeviceLabel(id: "00008030-00000000000BBBBB", name: "qa-iphone", model: "iPhone14,5")]
        let html = HTMLReporter.generateReport(two, timelines: timelines, evidence: evidence, devices: devices, options: ReportOptions())
        #expect(html.contains(">qa-iphone …0AAAAA</span>"))
        #expect(html.contains(">qa-iphone …0BBBBB</span>"))
        #expect(html.contains("<code class=\"device\">no-facts-device</code>"))
    }

    @Test("a finding's evidence is listed in time order, each line with its time, the Info.plist first")
    func evidenceInTimeOrder() {
        let (report, timelines, _) = HTMLReportTests.hostileReport()
        var finding = report.findings[0]
        // In file and line order, as the audit gives them; the second file's lines are earlier.
        finding.evidence = [EvidenceLine(file: "apps/app.plist", line: nil),
                            EvidenceLine(file: "b/late.log", line: 3, event: 1), EvidenceLine(file: "b/late.log", line: 4, event: 2),
                            EvidenceLine(file: "c/early.log", line: 9, event: 3)]
        let texts: [Int64: EvidenceText] = [
            1: EvidenceText(event: 1, file: "b/late.log", line: 3, time: "2026-11-20T10:00:05.000000Z", message: "x"),
            2: EvidenceText(event: 2, file: "b/late.log", line: 4, time: "2026-11-20T10:00:07.000000Z", message: "x"),
            3: EvidenceText(event: 3, file: "c/early.log", line: 9, time: "2026-11-20T09:59:58.000000Z", message: "x"),
        ]
        var ordered = report
        ordered.findings = [finding]
        let html = HTMLReporter.generateReport(ordered, timelines: timelines, evidence: texts, options: ReportOptions())
        let list = html.components(separatedBy: "<ul class=\"evidence-links\">")[1].components(separatedBy: "</ul>")[0]
        let order = list.components(separatedBy: "<li").dropFirst()
            .compactMap { $0.firstMatch(of: #/(app\.plist|early\.log:9|late\.log:3|late\.log:4)/#).map { String($0.output.1) } }
        #expect(order == ["app.plist", "early.log:9", "late.log:3", "late.log:4"])
        #expect(list.contains("<span class=\"time\">09:59:58</span> <a href=\"#ev-3\""))
    }

    // MARK: In a real browser

    /// What the browser lays out, measured in a copy of the page that runs a script.
    struct Layout: Decodable {
        /// Per evidence list of a finding: [event id, top, left] of each item, in page order.
        var evidence: [[[Double]]]
        /// Title and computed dash pattern of each authorization interval.
        var authorization: [[String]]
        /// Text and title of each device name.
        var devices: [[String]]
    }

    static let measure = """
        const box = e => { const r = e.getBoundingClientRect(); return [Math.round(r.top), Math.round(r.left)]; };
        const evidence = [...document.querySelectorAll('.evidence-links')].map(ul =>
          [...ul.querySelectorAll('a[href^="#ev-"]')].map(a => [Number(a.getAttribute('href').slice(4)), ...box(a.closest('li'))]));
        const authorization = [...document.querySelectorAll('svg title')].filter(t => t.textContent.startsWith('authorization:')).map(t => {
          const shape = t.parentElement.tagName === 'rect' ? t.parentElement : t.parentElement.querySelector('rect');
          return [t.textContent, getComputedStyle(shape).strokeDasharray];
        });
        const devices = [...document.querySelectorAll('.device')].map(d => [d.textContent, d.getAttribute('title') || '']);
        return { evidence, authorization, devices };
        """

    /// The page's evidence lists read in time order, row by row, in two columns; modelled
    /// statuses are drawn otherwise than observed ones; devices show names, UDIDs on hover.
    static func checkLayout(_ layout: Layout, times: [Int64: String], devices: [String: DeviceLabel]) {
        var twoColumns = false
        for list in layout.evidence where list.count > 1 {
            let reading = list.sorted { ($0[1], $0[2]) < ($1[1], $1[2]) }.map { Int64($0[0]) }
            #expect(reading == list.map { Int64($0[0]) }, "an evidence list does not read in page order row by row: \(list)")
            let listed = list.map { times[Int64($0[0])] ?? "" }
            #expect(listed == listed.sorted(), "an evidence list is not in time order: \(listed)")
            if list[0][1] == list[1][1] && list[1][2] > list[0][2] { twoColumns = true }
        }
        #expect(twoColumns, "no evidence list is laid out in two columns")
        let modelled = layout.authorization.filter { $0[0].contains("modelled by the replay") }
        let observed = layout.authorization.filter { $0[0].contains("as a line of this session says") }
        #expect(!modelled.isEmpty && !observed.isEmpty, "\(layout.authorization.prefix(4))")
        #expect(modelled.allSatisfy { $0[1] != "none" }, "a modelled status is not drawn outlined")
        #expect(observed.allSatisfy { $0[1] == "none" }, "an observed status is not drawn solid")
        #expect(!layout.devices.isEmpty)
        for device in layout.devices {
            guard let id = device[1].split(separator: " ").last.map(String.init), let label = devices[id], let name = label.name else {
                #expect(devices[device[0]]?.name == nil, "\(device[0]) has a name but is shown by its id")
                continue
            }
            #expect(device[1] == "UDID \(id)" && device[0].hasPrefix(name), "\(device)")
        }
    }

}
