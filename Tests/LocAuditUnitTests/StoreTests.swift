import Foundation
import GRDB
import Testing
@testable import LocAuditModel
import LocAuditStore

@Suite struct StoreTests {
    static func day(_ day: Int, from: Int = 0, count: Int = 40) -> String {
        (from..<(from + count)).map { i in
            syslogLine(String(format: "Nov %2d 12:%02d:%02d", day, i / 60, i % 60), "Runner(CoreLocation)", 412, Messages.delivery(accuracy: Double(i)))
        }.joined(separator: "\n") + "\n"
    }

    @Test func aFileAlreadyIngestedIsSkippedEvenRecompressedOrRenamed() throws {
        let ws = try Workspace()
        let plain = try ws.write("a.log", StoreTests.day(12))
        let first = try ws.ingest([plain]) { $0.parse.year = 2026 }
        #expect(first.files.first?.outcome == .ingested)
        let again = try ws.ingest([plain, try ws.writeGzip("renamed.log.gz", StoreTests.day(12))]) { $0.parse.year = 2026 }
        #expect(again.files.map(\.outcome) == [.alreadyIngested, .alreadyIngested])
        #expect(again.files.map(\.sameAs) == [plain, plain])
        #expect(again.exitCode == 0)
        #expect(try ws.count("SELECT count(*) FROM events") == 40)
        #expect(try ws.count("SELECT count(*) FROM sources") == 1)
    }

    @Test func overlappingExportsOfOneDeviceDoNotDoubleEvents() throws {
        let ws = try Workspace()
        let morning = try ws.write("m.log", StoreTests.day(12, from: 0, count: 40))
        let overlap = try ws.write("o.log", StoreTests.day(12, from: 20, count: 40))
        let report = try ws.ingest([morning, overlap]) { $0.parse.year = 2026; $0.device = DeviceFacts(udid: "D1"); $0.jobs = 1 }
        #expect(report.files.map(\.events) == [40, 20])
        #expect(report.files[1].skipped?["duplicate"] == 20)
        #expect(try ws.count("SELECT count(*) FROM events") == 60)
        // The same lines from another device are that device's events.
        let other = try ws.ingest([try ws.write("other.log", StoreTests.day(12, from: 0, count: 40) + "\n")]) { $0.parse.year = 2026; $0.device = DeviceFacts(udid: "D2") }
        #expect(other.files.first?.events == 40)
    }

    @Test("a re-ingest whose duplicates alternate with new lines, inside the writer's sets of rows inserted at once and after them: each stored event keeps its own line's message")
    func duplicatesAmongNewLinesKeepEachLinesMessage() throws {
        let ws = try Workspace()
        // Every other line of 100, then all 100: the second file's duplicates alternate with new lines.
        let all = StoreTests.day(12, from: 0, count: 100).split(separator: "\n").map(String.init)
        let even = all.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
        let first = try ws.write("even.log", even.joined(separator: "\n") + "\n")
        let second = try ws.write("all.log", all.joined(separator: "\n") + "\n")
        let report = try ws.ingest([first, second]) { $0.parse.year = 2026; $0.device = DeviceFacts(udid: "D1"); $0.jobs = 1 }
        #expect(report.files.map(\.events) == [50, 50])
        #expect(report.files[1].skipped?["duplicate"] == 50)
        let rows = try ws.rows("SELECT s.path, e.line, e.message FROM events e JOIN sources s ON s.id = e.source_id ORDER BY e.id")
        #expect(rows.count == 100)
        #expect(try ws.count("SELECT count(*) FROM event_messages") == 100)
        for row in rows {
            let path: String = row["path"], line: Int = row["line"], message: String = row["message"]
            let lines = path == first ? even : all
            #expect(line >= 1 && line <= lines.count && lines[line - 1].hasSuffix(": " + message), "line \(line) of \(path): \(message)")
        }
    }

    @Test func identicalLinesInOneSecondAreAllKept() throws {
        let ws = try Workspace()
        let line = syslogLine("Nov 12 12:00:00", "Runner(CoreLocation)", 412, Messages.call("startUpdatingLocation"))
        let report = try ws.ingest([try ws.write("rep.log", [line, line, line].joined(separator: "\n") + "\n")]) { $0.parse.year = 2026 }
        #expect(report.files.first?.events == 3)
    }

    @Test func appLinesAreLinkedToTheirBundle() throws {
        let ws = try Workspace()
        let plist = try ws.write("Info.plist", """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>CFBundleIdentifier</key><string>com.example.weather</string>
            <key>CFBundleExecutable</key><string>WeatherNow</string>
            <key>NSLocationWhenInUseUsageDescription</key><string>To show the weather here.</string>
            </dict></plist>
            """)
        let body = [
            // 1. pid link from RunningBoard, before or after the app's lines; pid 412 is reused later by another app.
            syslogLine("Nov 12 09:00:01", "Runner(CoreLocation)", 412, Messages.delivery()),
            syslogLine("Nov 12 09:00:02", "locationd", 64, Messages.appState("ForegroundRunning", pid: 412, bundle: "com.example.runner")),
            syslogLine("Nov 12 11:00:00", "locationd", 64, Messages.appState("ForegroundRunning", pid: 412, bundle: "com.example.other")),
            syslogLine("Nov 12 11:00:01", "OtherApp(CoreLocation)", 412, Messages.delivery()),
            // A clientKey line carrying a pid.
            syslogLine("Nov 12 11:30:00", "locationd", 64, #"{"msg":"Client connected", "clientKey":"icom.example.keyed:", "pid":700}"#),
            syslogLine("Nov 12 11:30:01", "Keyed(CoreLocation)", 700, Messages.delivery()),
            // 2. executable from the Info.plist.
            syslogLine("Nov 12 12:00:00", "WeatherNow(CoreLocation)", 500, Messages.delivery()),
            // 3. the process name is the bundle's last component.
            syslogLine("Nov 12 12:00:05", "SpringBoard", 58, "Bootstrapping app<com.example.tracker> with intent foreground-interactive"),
            syslogLine("Nov 12 12:00:06", "Tracker(CoreLocation)", 600, Messages.delivery()),
            // Nothing links this one.
            syslogLine("Nov 12 12:00:07", "Mystery(CoreLocation)", 800, Messages.delivery()),
        ].joined(separator: "\n") + "\n"
        let report = try ws.ingest([try ws.write("links.log", body)]) { $0.parse.year = 2026; $0.infoPlists = [plist] }
        #expect(report.failed == 0)
        let rows = try ws.rows("SELECT process, bundle_id, bundle_via FROM events WHERE kind = 'location' ORDER BY line")
        #expect(rows.map { $0["bundle_id"] as String? } == ["com.example.runner", "com.example.other", "com.example.keyed", "com.example.weather", "com.example.tracker", nil])
        #expect(rows.map { $0["bundle_via"] as String? } == ["pid", "pid", "pid", "executable", "name", nil])
    }

    @Test("an export naming more processes than the writer holds writes their links as it reads: each link's span the same, the app lines linked")
    func manyProcessesLinksAreWrittenAsTheyCome() throws {
        let ws = try Workspace()
        let count = EventWriter.linksHeld + 900
        func time(_ second: Int) -> String { String(format: "Nov 12 %02d:%02d:%02d", 9 + second / 3600, second / 60 % 60, second % 60) }
        var lines = (0..<count).map { i in
            syslogLine(time(i), "locationd", 64, Messages.appState("ForegroundRunning", pid: 1000 + i, bundle: "com.example.app\(i)"))
        }
        // The first process named again after the links before it were written: its span grows.
        lines.append(syslogLine(time(count + 5), "locationd", 64, Messages.appState("BackgroundRunning", pid: 1000, bundle: "com.example.app0")))
        lines.append(syslogLine(time(count + 6), "App0(CoreLocation)", 1000, Messages.delivery()))
        let report = try ws.ingest([try ws.write("many.log", lines.joined(separator: "\n") + "\n")]) { $0.parse.year = 2026 }
        #expect(report.failed == 0)
        #expect(try ws.count("SELECT count(*) FROM process_links") == count)
        let first = try #require(try ws.rows("SELECT first_time_us, last_time_us FROM process_links WHERE pid = 1000").first)
        #expect((first[1] as Int64) - (first[0] as Int64) == Int64(count + 5) * 1_000_000)
        let last = try #require(try ws.rows("SELECT first_time_us, last_time_us FROM process_links WHERE pid = ?", [1000 + count - 1]).first)
        #expect(last[0] as Int64 == last[1] as Int64)
        #expect(try ws.rows("SELECT bundle_id, bundle_via FROM events WHERE kind = 'location'").map(\.description) == [#"[bundle_id:"com.example.app0" bundle_via:"pid"]"#])
    }

    @Test func anInfoPlistIngestedLaterLinksEarlierLines() throws {
        let ws = try Workspace()
        _ = try ws.ingest([try ws.write("w.log", syslogLine("Nov 12 12:00:00", "WeatherNow(CoreLocation)", 500, Messages.delivery()) + "\n")]) { $0.parse.year = 2026 }
        #expect(try ws.count("SELECT count(*) FROM events WHERE bundle_id IS NULL") == 1)
        _ = try ws.ingest([packageRoot.appendingPathComponent("samples/apps").path])
        #expect(try ws.count("SELECT count(*) FROM events WHERE bundle_id = 'com.example.weather'") == 1)
    }

    @Test func deviceFactsComeFromFlagsElseTheSidecarElseTheLog() throws {
        let ws = try Workspace()
        try ws.writeGzip("fleet/DEV-2026-11-21.log.gz", StoreTests.day(21))
        try ws.write("fleet/DEV-2026-11-21.ideviceinfo.txt", "DeviceName: Lab 7\nProductType: iPhone15,2\nProductVersion: 17.5.1\nUniqueDeviceID: 00008120-AAAA\n")
        let report = try ws.ingest([ws.dir.appendingPathComponent("fleet").path]) { $0.parse.year = 2026 }
        #expect(report.files.count == 1, "the sidecar travels with its log")
        #expect(report.files.first?.device == "00008120-AAAA")
        #expect(report.files.first?.iosVersion == "17.5.1")
        #expect(try ws.rows("SELECT os_version FROM sources").first?["os_version"] as String? == "17.5.1")
        #expect(try ws.rows("SELECT name FROM devices").first?["name"] as String? == "Lab 7")
        let flags = try ws.ingest([try ws.write("x.log", StoreTests.day(22))]) { $0.parse.year = 2026; $0.device = DeviceFacts(udid: "CLI", osVersion: "12.5.7") }
        #expect(flags.files.first?.device == "CLI")
        // No facts: the device the store knows by the name in the lines ("iPhone", the name x.log's lines gave CLI).
        let linked = try ws.ingest([try ws.write("y.log", StoreTests.day(23))]) { $0.parse.year = 2026 }
        #expect(linked.files.first?.device == "CLI", "the device named as the idevicesyslog lines name it")
        #expect(linked.files.first?.iosVersion == "12.5.7")
        #expect(linked.files.first?.deviceLink?.contains("the device name in its lines (iPhone)") == true)
        // A name the store does not know: the name in the lines, iOS unknown.
        let none = try ws.ingest([try ws.write("z.log", StoreTests.day(24).replacingOccurrences(of: " iPhone ", with: " iPad "))]) { $0.parse.year = 2026 }
        #expect(none.files.first?.device == "iPad", "the name in the idevicesyslog lines")
        #expect(none.files.first?.iosVersion == nil)
    }
}

