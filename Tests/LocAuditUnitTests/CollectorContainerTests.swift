import Foundation
import Testing
@testable import LocAuditModel
@testable import LocAuditNormalise
@testable import LocAuditRead

/// The containers other collectors write (issue 9): Console.app copies, pymobiledevice3 text
/// and JSON, macOS system.log, the MobileInstallation log, bare messages. Each is detected
/// from its bytes, variant by variant, and read into records with their times, processes,
/// pids and messages. (The containers are named by string so that this file also compiles,
/// and fails, on code that does not have them.)
@Suite struct CollectorContainerTests {
    static let runnerDelivery = Messages.delivery(accuracy: 8)

    /// One line per variant, and the container it must be detected as.
    static let variants: [(name: String, container: String, text: String)] = [
        ("console with type column", "console", "default\t09:30:32.878828+0200\tRunner\t\(runnerDelivery)\n"),
        ("console, localised type with a space", "console", "Par défaut\t09:30:32.878828+0200\tRunner\t\(runnerDelivery)\n"),
        ("console without type column", "console", "09:30:32.878828+0200\tRunner\t\(runnerDelivery)\n"),
        ("console with a space before the offset", "console", "default\t16:39:49.435439 +0200\tlocationd\thello\n"),
        ("console with a library column", "console", "default\t08:00:54.158902-0600\trunningboardd\tRunningBoard\thello\n"),
        ("console with CRLF", "console", "default\t09:30:32.878828+0200\tRunner\thello\r\ndefault\t09:30:33.000000+0200\tRunner\thello\r\n"),
        ("pymobiledevice3 text", "pymobiledevice3", "2026-11-20 09:00:00.123456 locationd{CoreLocation}[64] <NOTICE>: hello\n"),
        ("pymobiledevice3 text, label, no fraction, empty image", "pymobiledevice3",
         "2026-11-20 09:00:00 Runner{}[412] <NOTICE>: hello [com.example.runner][location]\n"),
        ("pymobiledevice3 text, old <Notice> level and an image offset", "pymobiledevice3",
         "2026-11-20 09:00:00.5 locationd{CoreLocation+0x1a2b}[64] <Notice>: hello\n"),
        ("pymobiledevice3 text, USER_ACTION level", "pymobiledevice3", "2026-11-20 09:00:00.5 SpringBoard{FrontBoard}[58] <USER_ACTION>: hello\n"),
        ("pymobiledevice3 json", "pymobiledevice3-json",
         #"{"pid": 64, "timestamp": "2026-11-20T09:00:00.123456", "level": "NOTICE", "image_name": "/System/Library/Frameworks/CoreLocation.framework/CoreLocation", "image_offset": 16, "filename": "/usr/libexec/locationd", "message": "hello", "label": null}"# + "\n"),
        ("pymobiledevice3 json, newer keys", "pymobiledevice3-json",
         #"{"pid": 42, "procid": 42, "thread_id": 4321, "timestamp": "2026-04-18T10:15:32.123456", "level": "ERROR", "image_name": "/p/App", "image_offset": 16, "image_uuid": "016e54e1", "process_image_uuid": "7870bc32", "filename": "/p/App", "mach_timestamp": 135126255336423432, "message": "hello", "label": {"subsystem": "com.foo.bar", "category": "cat"}}"# + "\n"),
        ("bsd-syslog", "bsd-syslog", "Jul  1 09:00:32 calvisitor-10-105-160-95 locationd[82]: Location icon should now be in state 'Active'\n"),
        ("bsd-syslog with CRLF and a launchd detail", "bsd-syslog",
         "Jul  1 09:00:32 authorMacBook-Pro com.apple.xpc.launchd[1] (com.apple.WebKit.Networking[33438]): Service exited\r\n"),
        ("mobile-installation", "mobile-installation",
         "Mon Apr  7 06:13:34 2025 [234] <notice> (0x16b48f000) -[MIInstaller performInstallationWithError:]: Install Successful for (Placeholder:org.example.app); Staging: 0.01s\n"),
        ("message-only", "message-only", #"{"msg":"Showing #AuthPrompt", "requestType":5, "client":"92F5C54E:com.example.app"}"# + "\nclient 'x' not authorized for location; not starting yet\n"),
        ("idevicesyslog still", "idevicesyslog", "Nov 12 12:24:58 iPad locationd[64] <Notice>: hello\n"),
        ("idevicesyslog 1.4 with microseconds", "idevicesyslog", "[connected:00008030-0004D3AF0553BC29]\nMay  2 11:13:48.554160 sylk(sylk.debug.dylib)[1291] <Notice>: hello\n"),
    ]

    @Test("each variant is told from its bytes, plain and gzipped", arguments: variants.map(\.name))
    func detection(name: String) throws {
        let variant = try #require(CollectorContainerTests.variants.first { $0.name == name })
        let expected = try #require(Container(rawValue: variant.container), "no container \(variant.container)")
        #expect(Container.detect(Array(variant.text.utf8)) == expected)
        let ws = try Workspace()
        let file = try #require(try ws.ingest([try ws.writeGzip("x-2026-11-20.log.gz", variant.text)]).files.first)
        #expect(file.outcome == .ingested, "\(file.error ?? "")")
        #expect(file.container == variant.container)
        #expect(file.skipped?["malformed"] == nil)
    }

    @Test("a text file that is neither a log nor bare messages is still refused")
    func unknownStaysUnknown() throws {
        #expect(Container.detect(Array("just some notes\nabout nothing\n".utf8)) == nil)
        #expect(Container.detect(Array("{\"level\":30,\"msg\":\"hello\"}\n".utf8)) == nil)
    }

    // MARK: Console

    @Test("console: every column variant gives the same process, time and message; no pid")
    func consoleVariants() throws {
        let message = Messages.call("startUpdatingLocation")
        let lines = [
            "default\t09:30:32.878828+0200\tRunner\t\(message)",
            "09:30:33.878828+0200\tRunner\t\(message)",
            "Info\t09:30:34.878828 +0200\tRunner\t\(message)",
            "default\t09:30:35.878828+0200\tRunner\tCoreLocation\t\(message)",
        ]
        let ws = try Workspace()
        let path = try ws.write("qa-2026-11-20.log", lines.joined(separator: "\n") + "\n")
        let file = try #require(try ws.ingest([path]).files.first)
        #expect(file.container == "console")
        #expect(file.events == 4)
        #expect(file.zoneAssumed == false)
        let rows = try ws.rows("SELECT time, utc_offset, process, pid, message FROM events ORDER BY line")
        #expect(rows.map { $0["time"] as String } == (2...5).map { "2026-11-20T07:30:3\($0).878828Z" })
        #expect(rows.allSatisfy { ($0["utc_offset"] as Int) == 7200 })
        #expect(rows.allSatisfy { ($0["process"] as String) == "Runner" })
        #expect(rows.allSatisfy { ($0["pid"] as Int?) == nil })
        #expect(rows.allSatisfy { ($0["message"] as String) == message })
    }

    @Test("console: lines without a prefix continue the message above, tabs inside messages are kept")
    func consoleContinuationAndTabs() throws {
        let ws = try Workspace()
        let body = [
            "default\t10:00:00.000001+0000\tRunner\t{\"msg\":\"CLLocationManager\", \"event\":\"activity\",",
            "\t\"_cmd\":\"startMonitoringVisits\", \"self\":\"0x1\"}",
            "    }",
            "default\t10:00:01.000001+0000\tRunner\t{\"msg\":\"CLLocationManager\",\t\"event\":\"activity\", \"_cmd\":\"startUpdatingHeading\", \"self\":\"0x1\"}",
            "default\t10:00:02.000001+0000\tbackboardd\tBrightness\tchanged",
        ].joined(separator: "\n") + "\n"
        let file = try #require(try ws.ingest([try ws.write("c-2026-11-20.log", body)]).files.first)
        #expect(file.notes?["continuation"] == 2)
        #expect(file.skipped?["malformed"] == nil)
        let rows = try ws.rows("SELECT line, call, message FROM events ORDER BY line")
        #expect(rows.map { $0["line"] as Int } == [1, 4])
        #expect(rows.map { $0["call"] as String } == ["startMonitoringVisits", "startUpdatingHeading"])
        try #require(rows.count == 2)
        #expect((rows[0]["message"] as String).contains("activity\",\n\t\"_cmd\""))
        #expect((rows[1]["message"] as String).contains("\"CLLocationManager\",\t\"event\""))
    }

    /// A Runner session copied from Console across midnight, with its launch and RunningBoard lines.
    static func consoleSession(first: String = "23:59:58") -> String {
        [
            "default\t\(first).100000+0100\tSpringBoard\tBootstrapping app<com.example.runner> with intent foreground-interactive",
            "default\t23:59:59.200000+0100\tlocationd\t" + Messages.appState("ForegroundRunning", pid: 812, bundle: "com.example.runner"),
            "default\t00:00:01.300000+0100\tRunner\t" + Messages.delivery(accuracy: 8),
        ].joined(separator: "\n") + "\n"
    }

    // MARK: pymobiledevice3

    @Test("pymobiledevice3 text: local time read in --tz, label left out of the message, continuation lines")
    func pymobiledevice3Text() throws {
        let ws = try Workspace()
        let body = [
            "2026-11-20 09:00:00.123456 Runner{CoreLocation}[412] <NOTICE>: \(Messages.call("startUpdatingLocation")) [com.apple.CoreLocation][Client]",
            "2026-11-20 09:00:01 Runner{}[412] <Notice>: \(Messages.call("startMonitoringVisits"))",
            "2026-11-20 09:00:02.5 Runner{CoreLocation+0x1a2b}[412] <INFO>: {\"msg\":\"CLLocationManager\", \"event\":\"activity\",",
            "\"_cmd\":\"startUpdatingHeading\", \"self\":\"0x1\"} [com.apple.CoreLocation][Client]",
        ].joined(separator: "\n") + "\n"
        let file = try #require(try ws.ingest([try ws.write("p.log", body)]) { $0.parse.zone = TimeZone(identifier: "Europe/Paris") }.files.first)
        #expect(file.container == "pymobiledevice3")
        #expect(file.zoneAssumed == false)
        #expect(file.notes?["continuation"] == 1)
        let rows = try ws.rows("SELECT time, utc_offset, process, pid, call, message FROM events ORDER BY line")
        #expect(rows.map { $0["time"] as String } == ["2026-11-20T08:00:00.123456Z", "2026-11-20T08:00:01.000000Z", "2026-11-20T08:00:02.500000Z"])
        #expect(rows.allSatisfy { ($0["utc_offset"] as Int) == 3600 && ($0["process"] as String) == "Runner" && ($0["pid"] as Int) == 412 })
        #expect(rows.map { $0["call"] as String } == ["startUpdatingLocation", "startMonitoringVisits", "startUpdatingHeading"])
        try #require(rows.count == 3)
        #expect(rows[0]["message"] as String == Messages.call("startUpdatingLocation"))
        #expect((rows[2]["message"] as String).hasSuffix("\"self\":\"0x1\"}"))
    }

    @Test("pymobiledevice3 json: process from the file name, image path ignored, UTC assumed without a zone")
    func pymobiledevice3JSON() throws {
        let ws = try Workspace()
        let message = Messages.appState("ForegroundRunning", pid: 412, bundle: "com.example.runner")
        let escaped = message.replacingOccurrences(of: "\"", with: "\\\"")
        let body = #"{"pid": 64, "timestamp": "2026-11-20T09:00:00.250000", "level": "NOTICE", "image_name": "/System/Library/Frameworks/CoreLocation.framework/CoreLocation", "filename": "/usr/libexec/locationd", "message": "\#(escaped)", "label": {"subsystem": "com.apple.locationd", "category": "Core"}}"# + "\n"
            + #"{"pid": 64, "timestamp": "2026-11-20T09:00:01", "level": "NOTICE", "image_name": "", "filename": "/usr/libexec/locationd", "message": "hello", "label": null}"# + "\n"
            + "not json\n"
        let file = try #require(try ws.ingest([try ws.write("p.json", body)]).files.first)
        #expect(file.container == "pymobiledevice3-json")
        #expect(file.zoneAssumed == true)
        #expect(file.skipped?["malformed"] == 1)
        #expect(file.firstTime == "2026-11-20T09:00:00.250000Z")
        #expect(file.lastTime == "2026-11-20T09:00:01.000000Z")
        let row = try #require(try ws.rows("SELECT time, utc_offset, process, pid, app_state, message FROM events").first)
        #expect(row["time"] as String == "2026-11-20T09:00:00.250000Z")
        #expect(row["utc_offset"] as Int? == nil)
        #expect(row["process"] as String == "locationd")
        #expect(row["pid"] as Int == 64)
        #expect(row["message"] as String == message)
    }

    // MARK: macOS system.log

    @Test("bsd-syslog and idevicesyslog are told apart line by line: the level after [pid]")
    func bsdSyslogPerLine() throws {
        let bsd = "Jul  1 09:00:32 host-a Runner[412]: \(Messages.call("startUpdatingLocation"))\r\nJul  1 09:00:33 host-b Runner[412]: \(Messages.call("startMonitoringVisits"))\r\n"
        let ws = try Workspace()
        let file = try #require(try ws.ingest([try ws.write("system-2026-07-02.log", bsd)]).files.first)
        #expect(file.container == "bsd-syslog")
        #expect(file.device == "unknown", "a Mac's host name changes with its network: it names no device")
        #expect(file.events == 2)
        let rows = try ws.rows("SELECT time, process, pid, message FROM events ORDER BY line")
        #expect(rows.map { $0["time"] as String } == ["2026-07-01T09:00:32.000000Z", "2026-07-01T09:00:33.000000Z"])
        #expect(rows.allSatisfy { ($0["process"] as String) == "Runner" && ($0["pid"] as Int) == 412 })
        #expect(rows.allSatisfy { !($0["message"] as String).hasSuffix("\r") })
        // The same stamps with `<Level>:` after the pid are idevicesyslog's; in a system.log
        // such a line is no record (it continues the one above).
        let device = "Jul  1 09:00:34 iPhone Runner[412] <Notice>: hello\r\n"
        #expect(try ws.ingest([try ws.write("device-2026-07-02.log", device + bsd)]).files.first?.container == "idevicesyslog")
        let mixed = try #require(try Workspace().ingest([try ws.write("mixed-2026-07-02.log", bsd + device)]).files.first)
        #expect(mixed.container == "bsd-syslog")
        #expect(mixed.notes?["continuation"] == 1)
    }

    // MARK: MobileInstallation

    @Test("mobile-installation: installd, pid, year and local time, the thread without parentheses")
    func mobileInstallation() throws {
        let ws = try Workspace()
        let body = """
            Mon Apr  7 06:13:34 2025 [234] <notice> (0x16b48f000) -[MIInstaller performInstallationWithError:]: Install Successful for (Placeholder:org.example.app); Staging: 0.01s
            Mon Apr  7 06:13:52 2025 [234] <err> (0x16b48f000) -[MIInstaller _onRegistrationQueue_registerInstalledInfo:error:]: Successfully registered
            Tue Apr  8 07:40:47 2025 [446] <notice> (0x16fc9b000) -[MIInstaller performInstallationWithError:]: Install Successful for (Customer:org.example.app); Staging: 0.03s

            """
        let file = try #require(try ws.ingest([try ws.write("mi.log", body)]) {
            $0.parse.zone = TimeZone(identifier: "America/Los_Angeles")
        }.files.first)
        #expect(file.container == "mobile-installation")
        #expect(file.events == 2)
        let rows = try ws.rows("SELECT time, utc_offset, process, pid, message FROM events ORDER BY line")
        #expect(rows.map { $0["time"] as String } == ["2025-04-07T13:13:34.000000Z", "2025-04-08T14:40:47.000000Z"])
        #expect(rows.allSatisfy { ($0["utc_offset"] as Int) == -7 * 3600 && ($0["process"] as String) == "installd" })
        #expect(rows.map { $0["pid"] as Int } == [234, 446])
        try #require(rows.count == 2)
        #expect(rows[0]["message"] as String == "0x16b48f000 -[MIInstaller performInstallationWithError:]: Install Successful for (Placeholder:org.example.app); Staging: 0.01s")
    }

    // MARK: idevicesyslog 1.4

    @Test("idevicesyslog's microseconds are read, and the process is not taken for a device name")
    func idevicesyslogMicroseconds() throws {
        let ws = try Workspace()
        let body = "[connected:00008030-0004D3AF0553BC29]\nNov 20 09:00:00.250000 Runner(CoreLocation)[412] <Notice>: \(Messages.call("startUpdatingLocation"))\n"
        let file = try #require(try ws.ingest([try ws.write("i-2026-11-20.log", body)]).files.first)
        #expect(file.container == "idevicesyslog")
        #expect(file.skipped == ["noise": 1])
        let row = try #require(try ws.rows("SELECT time, process, pid FROM events").first)
        #expect(row["time"] as String == "2026-11-20T09:00:00.250000Z")
        #expect(row["process"] as String == "Runner")
        #expect(row["pid"] as Int == 412)
        #expect(file.device == "unknown")
    }

    // MARK: Two exports of one device

    @Test("the same session exported by idevicesyslog and by pymobiledevice3 is stored once")
    func twoCollectorsOneSession() throws {
        // Whole seconds in both (idevicesyslog's older form; pymobiledevice3 drops a zero fraction).
        let lines: [(String, String, Int, String)] = [
            ("09:00:00", "locationd", 64, Messages.appState("ForegroundRunning", pid: 412, bundle: "com.example.runner")),
            ("09:00:01", "Runner", 412, Messages.call("startUpdatingLocation")),
            ("09:00:02", "Runner", 412, Messages.delivery(accuracy: 8)),
            ("09:00:02", "Runner", 412, Messages.delivery(accuracy: 8)),
            ("09:00:03", "Runner", 412, #"{"msg":"CLLocationManager", "event":"activity", "_cmd":"startMonitoringForRegion:", "self":"0x1", "region":"caf\#u{e9}"}"#),
        ]
        let idevicesyslog = lines.map { t, p, pid, m in
            "Nov 20 \(t) QA-iPhone \(p)(CoreLocation)[\(pid)] <Notice>: " + m.replacingOccurrences(of: "\u{e9}", with: "\\M-C\\M-)")
        }.joined(separator: "\n") + "\n"
        let pymobiledevice3 = lines.map { t, p, pid, m in "2026-11-20 \(t) \(p){CoreLocation}[\(pid)] <NOTICE>: \(m) [com.apple.CoreLocation][Client]" }
            .joined(separator: "\n") + "\n"
        let ws = try Workspace()
        let facts = "UniqueDeviceID: device-1\nDeviceName: QA-iPhone\nProductVersion: 17.5.1\nTimeZone: Europe/Paris\n"
        try ws.write("qa-2026-11-20.ideviceinfo.txt", facts)
        try ws.write("qa-2026-11-20.pymobiledevice3.ideviceinfo.txt", facts)
        let report = try ws.ingest([try ws.write("qa-2026-11-20.log", idevicesyslog), try ws.write("qa-2026-11-20.pymobiledevice3.log", pymobiledevice3)]) { $0.jobs = 1 }
        #expect(report.files.map(\.container) == ["idevicesyslog", "pymobiledevice3"])
        #expect(report.files.map(\.events) == [5, 0])
        #expect(report.files.last?.skipped?["duplicate"] == 5)
        #expect(try ws.count("SELECT count(*) FROM events") == 5)
    }

    // MARK: Hostile bytes

    /// Collects what a parser hands on, and checks every time is one that prints.
    final class CheckingSink: ParseSink {
        var events = 0
        func event(_ e: ParsedEvent) throws {
            events += 1
            #expect(Timestamps.isoUTC(e.timeUS).count >= 27)
        }
        func link(bundleId: String, pid: Int64, timeUS: Int64) throws {}
        func deviceNamed(_ name: String) throws {}
    }

    // MARK: Bare messages

    @Test("bare messages: every line skipped as no-prefix, no event, no error, and the summary says what to export")
    func messageOnly() throws {
        let ws = try Workspace()
        let body = #"{"msg":"CLLocationManager", "event":"activity", "_cmd":"startUpdatingLocation", "self":"0x1"}"# + "\n\nanother message\n"
        let report = try ws.ingest([try ws.write("m.log", body)])
        let file = try #require(report.files.first)
        #expect(file.outcome == .ingested)
        #expect(file.container == "message-only")
        #expect(file.events == 0)
        #expect(file.skipped == ["no-prefix": 2, "noise": 1])
        #expect(report.text().contains("Copy whole lines from Console (every column), or export with `log show --style ndjson` on a Mac."),
                "\(report.text())")
    }
}
