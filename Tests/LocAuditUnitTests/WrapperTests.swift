import Foundation
import GRDB
import Testing
@testable import LocAuditIngest
@testable import LocAuditModel
@testable import LocAuditNormalise

/// What test tools save (issue 26): Appium's and flutter's logs are read as the container
/// inside their prefixes and record the tool; `log stream --style compact` and Xcode's
/// console are containers; every line of every log is read or counted as skipped with a
/// reason, whatever the detection guessed.
@Suite struct WrapperTests {
    static let fixtures = testFiles.appendingPathComponent("Fixtures/wrappers")

    static func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }

    /// One fixture and what its ingest must give.
    struct Case: CustomTestStringConvertible, Sendable {
        let file: String
        let container: String
        let wrapper: String?
        let lines: Int
        /// The lines the events came from, in file order.
        let eventLines: [Int]
        let kinds: [String: Int]
        let skipped: [String: Int]
        var testDescription: String { file }
    }

    static let cases: [Case] = [
        Case(file: "qa-ipad-2021-03-02-appium-syslog.log", container: "idevicesyslog", wrapper: "appium", lines: 34,
             eventLines: [9, 10, 12, 18, 19, 20, 21, 22, 25, 29, 30, 31],
             kinds: ["launch": 1, "app-state": 2, "call": 3, "authorization": 1, "property": 3, "location": 2],
             // [Appium], [HTTP], [W3C], [XCUITest] lines and the stack trace after one; the
             // repeat notice and a blank line.
             skipped: ["not-device": 17, "noise": 2]),
        Case(file: "qa-sim-2020-02-03-appium-simulator.log", container: "log-compact", wrapper: "appium", lines: 23,
             eventLines: [6, 7, 9, 12, 13, 14, 15, 16, 17, 19, 20],
             kinds: ["launch": 1, "app-state": 2, "call": 2, "authorization": 1, "property": 2, "location": 3],
             skipped: ["not-device": 10, "noise": 1]),
        Case(file: "flutter-run-v-2019-05-07.log", container: "log-syslog", wrapper: "flutter", lines: 29,
             eventLines: [9, 10, 11, 12, 16, 19, 20, 26, 27, 28],
             kinds: ["launch": 1, "app-state": 2, "call": 2, "authorization": 1, "property": 2, "location": 2],
             skipped: ["not-device": 17, "noise": 1]),
        Case(file: "runner-2023-04-11-xcode-console.log", container: "xcode-console", wrapper: nil, lines: 18,
             eventLines: [3, 4, 7, 8, 9, 10, 11, 14, 16, 17],
             kinds: ["main-thread-warning": 1, "call": 4, "authorization": 1, "property": 2, "location": 2],
             skipped: ["noise": 1]),
        Case(file: "mac-sim-2020-02-03-log-stream-compact.log", container: "log-compact", wrapper: nil, lines: 16,
             eventLines: [3, 4, 6, 7, 8, 9, 12, 13, 14, 15, 16],
             kinds: ["launch": 1, "app-state": 2, "call": 3, "authorization": 1, "property": 1, "location": 3],
             skipped: ["noise": 2]),
    ]

    /// Parses `bytes` as the detection says (or as `container`), in chunks of `chunk` bytes.
    static func parse(_ bytes: [UInt8], as container: Container? = nil, chunk: Int = 1 << 20) throws -> (RecordParser, Wrapper?) {
        let detected = Container.detectWrapped(bytes)
        let parser = RecordParser(container: try #require(container ?? detected?.container), wrapper: detected?.wrapper,
                                  catalog: Catalog.builtin, options: ParseOptions(year: 2021), sink: BlankLineTests.Collect())
        var i = 0
        while i < bytes.count {
            try parser.consume(Array(bytes[i..<min(i + chunk, bytes.count)]))
            i += chunk
        }
        try parser.finish(complete: true)
        return (parser, detected?.wrapper)
    }

    /// Every line read or skipped, none lost, as many as the content has.
    static func expectEveryLineCounted(_ counts: ParseCounts, lines: Int, _ what: String) {
        #expect(counts.linesRead == lines, "\(what)")
        #expect(counts.linesInRecords + counts.linesSkipped == counts.linesRead,
                "\(what): \(counts.linesInRecords) read + \(counts.linesSkipped) skipped of \(counts.linesRead)")
        #expect(counts.skipped["unaccounted"] == nil, "\(what)")
    }

    static func lineCount(_ bytes: [UInt8]) -> Int {
        bytes.reduce(0) { $0 + ($1 == 0x0a ? 1 : 0) } + (bytes.last.map { $0 == 0x0a ? 0 : 1 } ?? 0)
    }

    @Test("each tool's log ingests as the container inside, records the tool, gives its events, and counts every line", arguments: cases)
    func ingestsFixture(_ c: Case) throws {
        let ws = try Workspace()
        let report = try ws.ingest([Self.fixture(c.file)])
        let file = try #require(report.files.first)
        #expect(file.outcome == .ingested, "\(file.error ?? "")")
        #expect(file.container == c.container)
        #expect(file.wrapper == c.wrapper)
        #expect(file.linesRead == c.lines)
        #expect(file.skipped == c.skipped)
        #expect(file.eventsByKind == c.kinds)
        let source = try #require(try ws.rows("SELECT container, wrapper, lines_read FROM sources").first)
        #expect(source["container"] as String == c.container)
        #expect(source["wrapper"] as String? == c.wrapper)
        #expect(try ws.rows("SELECT line FROM events ORDER BY line").map { $0["line"] as Int } == c.eventLines)
        // The app's lines keep their pid: the session's.
        #expect(try ws.count("SELECT count(*) FROM events WHERE process = 'Runner' AND pid IS NULL") == 0)
        // Read + skipped == lines, in any chunks.
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: Self.fixture(c.file))))
        #expect(Self.lineCount(bytes) == c.lines)
        for chunk in [1 << 20, 100, 7] {
            let (parser, wrapper) = try Self.parse(bytes, chunk: chunk)
            #expect(wrapper?.rawValue == c.wrapper)
            Self.expectEveryLineCounted(parser.counts, lines: c.lines, "\(c.file) in chunks of \(chunk)")
            #expect(parser.counts.linesSkipped == c.skipped.values.reduce(0, +))
        }
    }

    @Test("the wrapped logs' text summary names the tool")
    func summaryNamesTheTool() throws {
        let ws = try Workspace()
        let report = try ws.ingest([Self.fixture("flutter-run-v-2019-05-07.log")])
        #expect(report.text().contains("log-syslog in flutter's log · "), "\(report.text())")
    }

    @Test("each tool's prefix, by structure: stamps, tags, instance ids, elapsed-time boxes")
    func prefixes() throws {
        func appium(_ s: String) -> Wrapper.Line { Array(s.utf8).withUnsafeBufferPointer { Wrapper.appium($0) } }
        func flutter(_ s: String) -> Wrapper.Line { Array(s.utf8).withUnsafeBufferPointer { Wrapper.flutter($0) } }
        let device = "Mar  2 09:14:07 QA-iPad locationd[66] <Notice>: hello"
        #expect(appium("2021-03-02 09:14:07:512 - [IOSDeviceLog] \(device)") == .device(41))
        #expect(appium("[IOSDeviceLog] \(device)") == .device(15))
        #expect(appium("2021-03-02 09:14:07:512 - [debug] [IOSDeviceLog] \(device)") == .device(49))
        #expect(appium("2021-03-02 09:14:07:512 - [IOSDeviceLog@1a2b] \(device)") == .device(46))
        #expect(appium("2020-02-03 11:20:31:207 - [IOSSimulatorLog] [IOS_SYSLOG_ROW] 2020-02-03 11:20:31.207 Df x[1:2] m") == .device(61))
        #expect(appium("2021-03-02 09:14:02:310 - [HTTP] --> POST /wd/hub/session") == .tool)
        #expect(appium("[W3C] Calling AppiumDriver.createSession()") == .tool)
        #expect(appium("2021-03-02 09:14:02:310 - info: an old Appium line") == .tool)
        #expect(appium("    at XCUITestDriver.doNativeFind (find.js:131:13)") == .bare)
        #expect(appium("[IOSDeviceLogX] not the tag") == .tool)
        #expect(appium(device) == .bare)
        #expect(appium("[") == .bare)
        #expect(flutter("[        ] [DEVICE LOG] 2019-05-07 08:41:19.301288+0200  localhost Runner[7731]: m") == .device(24))
        #expect(flutter("[  +12 ms] [DEVICE LOG] x") == .device(24))
        #expect(flutter("[+11043 ms] Xcode build done.") == .bare) // nine bytes in the box: not flutter's
        #expect(flutter("[+1043 ms] Xcode build done.") == .tool)
        #expect(flutter("[        ]") == .tool)
        #expect(flutter("[ {\"a\": 1} ] x") == .bare)
    }

    @Test("detection: a tool's log by its prefixes, the container inside by its device lines; plain logs stay plain")
    func detection() throws {
        func detect(_ s: String) -> String {
            guard let d = Container.detectWrapped(Array(s.utf8)) else { return "nil" }
            return d.container.rawValue + (d.wrapper.map { " in \($0.rawValue)" } ?? "")
        }
        let syslog = "2019-05-07 08:41:19.301288+0200  localhost Runner[7731]: hello"
        #expect(detect("[        ] [DEVICE LOG] \(syslog)\n") == "log-syslog in flutter")
        // A flutter log whose head has only flutter's own lines: flutter's usual container.
        #expect(detect("[        ] executing: git log\n[  +32 ms] Exit code 0\n[   +4 ms] Installing and launching...\n") == "log-syslog in flutter")
        #expect(detect("2021-03-02 09:13:58:101 - [Appium] Welcome to Appium v1.20.2\n") == "idevicesyslog in appium")
        #expect(detect("[Appium] Welcome to Appium v1.20.2\n[HTTP] --> POST /wd/hub/session\n") == "idevicesyslog in appium")
        #expect(detect("[HTTP] --> GET /status\n[IOSSimulatorLog] [IOS_SYSLOG_ROW] 2020-02-03 11:20:31.207 Df locationd[4410:1c2e0] hi\n")
                == "log-compact in appium")
        #expect(detect("2020-02-03 11:20:31:001 - [Appium] Welcome\n2020-02-03 11:20:31:002 - [IOSSimulatorLog] [IOS_SYSLOG_ROW] garbage\n")
                == "log-compact in appium")
        #expect(detect("Timestamp               Ty Process[PID:TID]\n2020-02-03 11:20:31.207 Df locationd[4410:1c2e0] [com.apple.locationd.Core:Client] hi\n")
                == "log-compact")
        #expect(detect("2023-04-11 16:02:55.081734+0100 Runner[1204:88312] [CoreLocation] hi\n") == "xcode-console")
        #expect(detect("2023-04-11 16:02:55.081734+0100 My App[1204:1a2b] hi\n") == "xcode-console")
        // Not NSLog's: a host before the process, `]:` after the pid.
        #expect(detect(syslog + "\n") == "log-syslog")
        #expect(detect("2022-07-22 15:25:28.004991+0200 0x47c573   Default     0x18b908   351    0    locationd: hi [12:34] x\n") == "log-show")
        // A JSON array is still one, also one that starts with blanks inside its brackets.
        #expect(detect("[\n  {\"eventMessage\":\"x\"}\n]\n") == "log-json")
        #expect(detect("[        ]\n") == "log-json")
        #expect(detect("[connected:00008030-0004D3AF0553BC29]\nMay  2 11:13:48 iPad sylk[1291] <Notice>: hello\n") == "idevicesyslog")
    }

    @Test("a file mis-guessed as log-json cannot drop lines: flutter's log forced so, and JSON turning into text")
    func misGuessCountsEveryLine() throws {
        // Seven lines of flutter's log (11-14, 16, 17, 19), as a QA file had them: before issue
        // 26, detected as log-json and stored with exit 0: 7 lines, 0 events, the 4 device lines
        // read as message-less objects (`noise`), the other 3 neither read nor counted.
        let all = Array(try Data(contentsOf: URL(fileURLWithPath: Self.fixture("flutter-run-v-2019-05-07.log"))))
            .split(separator: 0x0a, omittingEmptySubsequences: false)
        let seven = Array([11, 12, 13, 14, 16, 17, 19].map { Array(all[$0 - 1]) }.joined(separator: [0x0a])) + [0x0a]
        #expect(Self.lineCount(seven) == 7)
        #expect(Container.detectWrapped(seven)?.container == .logSyslog)
        #expect(Container.detectWrapped(seven)?.wrapper == .flutter)
        let (asDetected, _) = try Self.parse(seven)
        Self.expectEveryLineCounted(asDetected.counts, lines: 7, "flutter as detected")
        #expect(asDetected.counts.eventsByKind == ["call": 1, "property": 1, "authorization": 1, "location": 1])
        #expect(asDetected.counts.skipped == ["not-device": 3])
        // Forced to the old guess: every line still read or counted.
        let (forced, _) = try Self.parse(seven, as: .logJSON)
        Self.expectEveryLineCounted(forced.counts, lines: 7, "flutter as log-json")
        #expect(forced.counts.skipped == ["malformed": 3, "noise": 4], "the tool's lines between the objects, and the objects")
        #expect(forced.counts.firstLine["malformed"] == 3)

        let text = """
            [
              {"timestamp":"2022-07-22 15:25:28.004991+0200","processImagePath":"/usr/libexec/locationd","processID":66,"eventMessage":"{\\"msg\\":\\"RBS #AppMonitor Post Application State Change Notification\\", \\"notification\\":\\"ForegroundRunning\\", \\"pid\\":859, \\"bundleId\\":\\"com.example.app\\"}"}
            ,
              {"timestamp":"2022-07-22 15:25:29.004991+0200","processImagePath":"/usr/libexec/locationd","processID":66,"eventMessage":"hello"}
            ]
            2022-07-22 15:25:30.004991+0200  localhost locationd[66]: then it turns into text
            plain words, "with a quote

            2022-07-22 15:25:31.004991+0200  localhost locationd[66]: and a last line

            """
        let bytes = Array(text.utf8)
        #expect(Container.detect(bytes) == .logJSON)
        for chunk in [1 << 20, 5] {
            let (parser, _) = try Self.parse(bytes, chunk: chunk)
            Self.expectEveryLineCounted(parser.counts, lines: 9, "JSON then text, chunks of \(chunk)")
            #expect(parser.counts.skipped["malformed"] == 3)
            #expect(parser.counts.skipped["noise"] == 1, "the blank line")
            #expect(parser.counts.linesInRecords == 5, "the brackets, the comma and the two objects")
            #expect(parser.counts.firstLine["malformed"] == 6)
            #expect(parser.counts.eventsByKind == ["app-state": 1])
        }
        // Ingested, the summary shows the lines: none dropped silently.
        let ws = try Workspace()
        let file = try #require(try ws.ingest([try ws.write("json-then-text.json", text)]).files.first)
        #expect(file.container == "log-json")
        #expect(file.linesRead == 9)
        #expect(file.skipped?["malformed"] == 3)
        #expect(file.firstSkippedLine?["malformed"] == 6)
    }

    @Test("blank lines inside a Console paste are noise, not lines of the message above them")
    func blankLinesInAPaste() throws {
        let delivery = Messages.delivery(accuracy: 8)
        let text = "default\t09:30:32.878828+0200\tRunner\t\(delivery)\n\n\ndefault\t09:30:33.000000+0200\tRunner\tline one\nline two\n\nline three\n \t\n"
        let bytes = Array(text.utf8)
        for chunk in [1 << 20, 3] {
            let sink = BlankLineTests.Collect()
            let parser = RecordParser(container: .console, catalog: Catalog.builtin, options: ParseOptions(date: CivilDate("2026-11-20")), sink: sink)
            var i = 0
            while i < bytes.count {
                try parser.consume(Array(bytes[i..<min(i + chunk, bytes.count)]))
                i += chunk
            }
            try parser.finish(complete: true)
            Self.expectEveryLineCounted(parser.counts, lines: 8, "console paste, chunks of \(chunk)")
            #expect(parser.counts.skipped == ["noise": 4])
            // "line two" and "line three" continue the second record; the blank lines do not.
            #expect(parser.counts.notes == ["continuation": 2])
            #expect(parser.counts.linesInRecords == 4)
            // The delivery's message is the line itself, no newline after it.
            #expect(sink.events.count == 1)
            #expect(sink.events.first?.split(separator: " ")[3] == "\(delivery.utf8.count)")
        }
    }

    static func sampleFiles() throws -> [String] {
        var out: [String] = []
        for dir in ["samples/logs", "samples/containers", "Tests/LocAuditKitTests/Fixtures/real", "Tests/LocAuditKitTests/Fixtures/wrappers"] {
            let url = packageRoot.appendingPathComponent(dir)
            for name in try FileManager.default.contentsOfDirectory(atPath: url.path).sorted() where !name.hasSuffix(".md") && !name.hasPrefix(".") {
                var isDir: ObjCBool = false
                if FileManager.default.fileExists(atPath: url.appendingPathComponent(name).path, isDirectory: &isDir), !isDir.boolValue {
                    out.append("\(dir)/\(name)")
                }
            }
        }
        return out
    }
}
