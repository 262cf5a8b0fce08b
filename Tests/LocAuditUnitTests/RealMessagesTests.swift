import Foundation
import GRDB
import Testing
@testable import LocAuditIngest
@testable import LocAuditNormalise

/// The real files of `Fixtures/real/`, read unedited. Their lines are handed to
/// the real pipeline in a container this branch reads (`log show --style ndjson`, which
/// keeps each line's time with its offset and its process), so that each line of
/// `EXPECTED.md` is checked for the event it must (or must not) give, whatever container
/// it came in.
enum RealFixture {
    static let dir = realFixtures

    static let juniper = "juniper-rn-ios18-console-reinstall-launch-crash.log"
    static let juniperCrash = "juniper-rn-ios18-console-crash-terminated.log"
    static let wridz = "transistorsoft-rn-bggeo-1860-ios16.3.log"
    static let n8henrie = "n8henrie-test-location-macos13-locationd.log"
    static let fcsc = "fcsc2025-iforensics-ios16.0-mobile_installation-grep.log"

    /// A record of a real file: its first physical line, time with offset, process, message.
    struct Record {
        var line: Int
        var date: String
        var time: String
        var process: String
        var message: String
    }

    /// The physical lines of a file (1-based by index + 1).
    static func lines(_ name: String) throws -> [String] {
        try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false).map { String($0.hasSuffix("\r") ? $0.dropLast() : $0) }
    }

    private static let levels: Set<Substring> = ["default", "info", "debug", "error", "fault"]

    /// The Console.app records starting at the given physical lines (with their continuation lines).
    static func console(_ name: String, date: String, lines wanted: [Int]) throws -> [Record] {
        let all = try lines(name)
        return wanted.map { n in
            let columns = all[n - 1].split(separator: "\t", maxSplits: 3, omittingEmptySubsequences: false)
            precondition(columns.count == 4 && levels.contains(columns[0]), "\(name):\(n) is not a Console.app record")
            var message = String(columns[3])
            var next = n
            while next < all.count, !all[next].isEmpty,
                  all[next].split(separator: "\t", maxSplits: 1).first.map({ !levels.contains($0) }) ?? true {
                message += "\n" + all[next]
                next += 1
            }
            return Record(line: n, date: date, time: String(columns[1]), process: String(columns[2]), message: message)
        }
    }

    /// Every record of a Console.app file.
    static func console(_ name: String, date: String) throws -> [Record] {
        let all = try lines(name)
        let starts = all.indices.filter { all[$0].split(separator: "\t", maxSplits: 1).first.map { levels.contains($0) } ?? false }
        return try console(name, date: date, lines: starts.map { $0 + 1 })
    }

    /// Lines of a file that has the message alone (n8henrie), as `process` lines a second apart.
    static func messages(_ name: String, process: String, lines wanted: [Int]) throws -> [Record] {
        let all = try lines(name)
        return wanted.map { Record(line: $0, date: "2023-03-01", time: String(format: "10:00:%02d.000000+0000", $0), process: process, message: all[$0 - 1]) }
    }

    /// MobileInstallation log lines (`Mon Apr  7 06:13:34 2025 [234] <notice> (0x16b48f000) message`),
    /// as installd lines in the device's local time (UTC-7, as the forensic write-up says).
    static func mobileInstallation(lines wanted: [Int]) throws -> [Record] {
        let all = try lines(fcsc)
        return wanted.map { n in
            let line = all[n - 1]
            let clock = String(line.dropFirst(11).prefix(8))
            let message = String(line[line.range(of: ") ")!.upperBound...])
            return Record(line: n, date: "2025-04-07", time: clock + ".000000-0700", process: "installd", message: message)
        }
    }

    /// The pid of a Console.app process (Console.app copies have none): the app's is the
    /// one its system lines name.
    static func pid(_ process: String) -> Int {
        ["MobileJarvisNative": 26683, "Wridz": 4100, "locationd": 64, "SpringBoard": 34, "runningboardd": 33,
         "installd": 234][process] ?? 1000 + abs(process.hashValue % 1000)
    }

    /// The records as a `log show --style ndjson` export.
    static func ndjson(_ records: [Record]) throws -> String {
        try records.map { r in
            let object: [String: Any] = ["timestamp": "\(r.date) \(r.time)", "processImagePath": "/usr/libexec/\(r.process)",
                                         "processID": pid(r.process), "messageType": "Default", "eventMessage": r.message]
            return String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
        }.joined(separator: "\n") + "\n"
    }
}

/// A column of a row as text (numbers written as SQLite would), nil for NULL.
func columnText(_ row: Row, _ column: String) -> String? {
    switch (row[column] as DatabaseValue).storage {
    case .null: return nil
    case .int64(let i): return String(i)
    case .double(let d): return String(d)
    case .string(let s): return s
    case .blob: return "<blob>"
    }
}

@Suite struct RealMessagesTests {
    /// Ingests the records into a new store and returns it with the file's report.
    static func ingest(_ records: [RealFixture.Record]) throws -> (Workspace, FileReport) {
        let ws = try Workspace()
        let path = try ws.write("real.ndjson", try RealFixture.ndjson(records))
        let report = try #require(try ws.ingest([path]).files.first)
        #expect(report.outcome == .ingested, "\(report.error ?? "")")
        return (ws, report)
    }

    // MARK: One event per transition

    @Test("Juniper lines 183–196: one ForegroundRunning event, line 188's; lines 183, 185, 187 and 191 are repeats of it")
    func juniperForeground() throws {
        let records = try RealFixture.console(RealFixture.juniper, date: "2025-10-10", lines: Array(183...196))
        let (ws, report) = try Self.ingest(records)
        let rows = try ws.rows("SELECT time, pattern, app_state, app_pid, bundle_id FROM events WHERE kind = 'app-state'")
        #expect(rows.count == 1)
        #expect(rows.first.flatMap { columnText($0, "time") } == "2025-10-11T04:30:43.235435Z")
        #expect(rows.first.flatMap { columnText($0, "pattern") } == "system.app-state")
        #expect(rows.first.flatMap { columnText($0, "app_state") } == "foregroundRunning")
        #expect(rows.first.flatMap { columnText($0, "app_pid") } == "26683")
        #expect(rows.first.flatMap { columnText($0, "bundle_id") } == "com.hightowerai.MobileJarvisNative")
        #expect(report.skipped?["repeat"] == 4)
        #expect(try ws.count("SELECT count(*) FROM events") == 1)
    }

    @Test("Juniper lines 1278–1290: one Terminated event, line 1284's, with isUserKill 0 from line 1281; 1279, 1281–1283 and 1286 are repeats")
    func juniperTermination() throws {
        let records = try RealFixture.console(RealFixture.juniper, date: "2025-10-10", lines: Array(1278...1290))
        let (ws, report) = try Self.ingest(records)
        let rows = try ws.rows("SELECT time, pattern, app_state, app_pid, user_kill FROM events WHERE kind = 'app-state'")
        #expect(rows.count == 1)
        #expect(rows.first.flatMap { columnText($0, "time") } == "2025-10-11T04:30:44.824731Z")
        #expect(rows.first.flatMap { columnText($0, "pattern") } == "system.app-state")
        #expect(rows.first.flatMap { columnText($0, "app_state") } == "terminated")
        #expect(rows.first.flatMap { columnText($0, "user_kill") } == "0")
        #expect(report.skipped?["repeat"] == 5)
    }

    @Test("the whole Juniper reinstall log: launch, ForegroundRunning and Terminated at EXPECTED.md's times, every other form a repeat")
    func juniperWholeFile() throws {
        let (ws, report) = try Self.ingest(try RealFixture.console(RealFixture.juniper, date: "2025-10-10"))
        let rows = try ws.rows("SELECT time, kind, app_state, intent FROM events WHERE kind IN ('launch', 'app-state') ORDER BY time_us")
        #expect(rows.map { $0["time"] as String } == ["2025-10-11T04:30:43.112133Z", "2025-10-11T04:30:43.235435Z", "2025-10-11T04:30:44.824731Z"])
        #expect(rows.map { $0["app_state"] as String? } == [nil, "foregroundRunning", "terminated"])
        #expect(rows.first.flatMap { columnText($0, "intent") } == "foreground-interactive")
        #expect(try ws.count("SELECT count(*) FROM events WHERE kind IN ('authorization', 'location', 'blue-bar', 'prompt', 'install', 'uninstall')") == 0)
        // RunningBoard (5 lines), FrontBoard, locationd's received/handler/not-posted/CLIUA/#dic lines.
        #expect((report.skipped?["repeat"] ?? 0) >= 10, "\(report.skipped ?? [:])")
    }

    @Test("the Juniper crash log starts mid-session: its only app event is the Terminated of line 151")
    func juniperCrashFile() throws {
        let (ws, _) = try Self.ingest(try RealFixture.console(RealFixture.juniperCrash, date: "2025-10-14"))
        let rows = try ws.rows("SELECT line, app_state, user_kill FROM events WHERE kind IN ('launch', 'app-state')")
        #expect(rows.count == 1)
        #expect(rows.first.flatMap { columnText($0, "app_state") } == "terminated")
        #expect(rows.first.flatMap { columnText($0, "user_kill") } == "0")
    }

    @Test("Wridz lines 4–10: one background launch requested by dasd; the six other lines are repeats")
    func wridzActivation() throws {
        let (ws, report) = try Self.ingest(try RealFixture.console(RealFixture.wridz, date: "2023-02-20", lines: Array(1...10)))
        let launches = try ws.rows("SELECT bundle_id, intent, reason FROM events WHERE kind = 'launch'")
        #expect(launches.count == 1)
        #expect(launches.first.flatMap { columnText($0, "bundle_id") } == "com.wridz.app")
        #expect(launches.first.flatMap { columnText($0, "intent") } == "background")
        #expect(launches.first.flatMap { columnText($0, "reason") } == "dasd")
        #expect(report.skipped?["repeat"] == 6)
        // Line 1 (the app's updatingLocation 1 -> 0) and line 2 (the daemon's unsubscription); line 3 is no event.
        #expect(try ws.count("SELECT count(*) FROM events") == 3)
    }

    @Test("a launch makes the app's next state a transition: after a crash without Terminated lines, the relaunch's foreground is a new event")
    func relaunchIsNotARepeat() throws {
        let log = LogScript().launch().deliver()
            .app("*** Terminating app due to uncaught exception 'NSGenericException', reason: 'boom'")
            .launch().deliver()
            .state("BackgroundRunning").state("ForegroundRunning")
            .text
        let ws = try Workspace()
        let report = try ws.ingest([try ws.write("d.log", log + "\n")]) { $0.parse.year = 2026 }
        #expect(try ws.count("SELECT count(*) FROM events WHERE kind = 'app-state' AND app_state = 'foregroundRunning'") == 3)
        #expect(report.files.first?.skipped?["repeat"] == nil)
    }

    // MARK: Line by line

    struct LineCase: CustomTestStringConvertible, Sendable {
        var file: String
        var line: Int
        /// The event's kind and columns, or nil: the line gives no event.
        var kind: String?
        var columns: [String: String] = [:]
        var testDescription: String { "\(file.prefix(12)):\(line) -> \(kind ?? "none") \(columns.sorted { $0.key < $1.key })" }
    }

    static let juniperApp = ["bundle_id": "com.hightowerai.MobileJarvisNative"]

    static let lineCases: [LineCase] = [
        // Reinstall side effects: install activity, not an uninstall.
        LineCase(file: RealFixture.juniper, line: 1, kind: nil),
        LineCase(file: RealFixture.juniper, line: 2, kind: nil),
        LineCase(file: RealFixture.juniper, line: 3, kind: nil),
        LineCase(file: RealFixture.juniper, line: 4, kind: nil),
        LineCase(file: RealFixture.juniper, line: 15, kind: "launch", columns: juniperApp.merging(["intent": "foreground-interactive"]) { $1 }),
        LineCase(file: RealFixture.juniper, line: 118, kind: "app-state", columns: juniperApp.merging(["app_state": "foregroundRunning"]) { $1 }),
        LineCase(file: RealFixture.juniper, line: 136, kind: "app-state", columns: ["app_state": "foregroundRunning", "app_pid": "26683"]),
        // backboardd's copy of the state update: only locationd's counts.
        LineCase(file: RealFixture.juniper, line: 180, kind: nil),
        LineCase(file: RealFixture.juniper, line: 183, kind: "app-state", columns: ["app_state": "foregroundRunning", "app_pid": "26683"]),
        LineCase(file: RealFixture.juniper, line: 185, kind: "app-state", columns: juniperApp.merging(["app_state": "foregroundRunning", "app_pid": "26683"]) { $1 }),
        LineCase(file: RealFixture.juniper, line: 186, kind: nil),
        LineCase(file: RealFixture.juniper, line: 187, kind: "app-state", columns: ["app_state": "foregroundRunning", "app_pid": "26683"]),
        LineCase(file: RealFixture.juniper, line: 188, kind: "app-state", columns: juniperApp.merging(["app_state": "foregroundRunning", "app_pid": "26683"]) { $1 }),
        LineCase(file: RealFixture.juniper, line: 189, kind: nil),
        LineCase(file: RealFixture.juniper, line: 191, kind: "app-state", columns: juniperApp.merging(["app_state": "foregroundRunning"]) { $1 }),
        LineCase(file: RealFixture.juniper, line: 192, kind: nil),
        LineCase(file: RealFixture.juniper, line: 195, kind: nil),
        // RunningBoard's none is the process's end (issue 26: it opens no session while none
        // runs); FrontBoard's Unknown and locationd's none-NotVisible are no termination.
        LineCase(file: RealFixture.juniper, line: 1258, kind: "app-state", columns: juniperApp.merging(["app_state": "terminated"]) { $1 }),
        LineCase(file: RealFixture.juniper, line: 1263, kind: nil),
        LineCase(file: RealFixture.juniper, line: 1278, kind: nil),
        LineCase(file: RealFixture.juniper, line: 1279, kind: "app-state", columns: ["app_state": "terminated", "app_pid": "26683"]),
        LineCase(file: RealFixture.juniper, line: 1281, kind: "app-state", columns: ["app_state": "terminated", "user_kill": "0"]),
        LineCase(file: RealFixture.juniper, line: 1282, kind: "app-state", columns: ["app_state": "terminated"]),
        LineCase(file: RealFixture.juniper, line: 1283, kind: "app-state", columns: ["app_state": "terminated", "user_kill": "0"]),
        LineCase(file: RealFixture.juniper, line: 1284, kind: "app-state", columns: ["app_state": "terminated", "app_pid": "26683"]),
        LineCase(file: RealFixture.juniper, line: 1286, kind: "app-state", columns: ["app_state": "terminated"]),
        LineCase(file: RealFixture.juniper, line: 1287, kind: nil),
        LineCase(file: RealFixture.juniperCrash, line: 144, kind: nil),
        LineCase(file: RealFixture.juniperCrash, line: 148, kind: "app-state", columns: ["app_state": "terminated", "app_pid": "51362", "user_kill": "0"]),
        LineCase(file: RealFixture.juniperCrash, line: 151, kind: "app-state", columns: ["app_state": "terminated", "app_pid": "51362"]),
        LineCase(file: RealFixture.wridz, line: 1, kind: "property", columns: ["property": "updatingLocation", "value": "0"]),
        LineCase(file: RealFixture.wridz, line: 2, kind: "property", columns: ["property": "locationUpdates", "value": "0", "bundle_id": "com.wridz.app"]),
        // A subscription to kCLConnectionMessageLocationUnavailable is no location update.
        LineCase(file: RealFixture.wridz, line: 3, kind: nil),
        LineCase(file: RealFixture.wridz, line: 4, kind: "launch", columns: ["intent": "background", "bundle_id": "com.wridz.app", "reason": "dasd"]),
        LineCase(file: RealFixture.wridz, line: 10, kind: "launch", columns: ["intent": "background", "bundle_id": "com.wridz.app", "reason": "dasd"]),
        LineCase(file: RealFixture.n8henrie, line: 1, kind: "prompt", columns: ["prompt_kind": "LegacyAlways", "bundle_id": "com.n8henrie.location-objc"]),
        LineCase(file: RealFixture.n8henrie, line: 2, kind: nil),
        LineCase(file: RealFixture.n8henrie, line: 3, kind: nil),
        LineCase(file: RealFixture.n8henrie, line: 4, kind: nil),
        LineCase(file: RealFixture.n8henrie, line: 5, kind: nil),
        LineCase(file: RealFixture.fcsc, line: 1, kind: nil),
        LineCase(file: RealFixture.fcsc, line: 5, kind: "install", columns: ["bundle_id": "org.whispersystems.signal", "reason": "Placeholder"]),
        LineCase(file: RealFixture.fcsc, line: 7, kind: nil),
        LineCase(file: RealFixture.fcsc, line: 14, kind: "install", columns: ["bundle_id": "org.whispersystems.signal", "reason": "Customer"]),
        LineCase(file: RealFixture.fcsc, line: 15, kind: "uninstall", columns: ["bundle_id": "org.whispersystems.signal"]),
        LineCase(file: RealFixture.fcsc, line: 16, kind: nil),
        LineCase(file: RealFixture.fcsc, line: 18, kind: nil),
    ]

    static func records(_ c: LineCase) throws -> [RealFixture.Record] {
        switch c.file {
        case RealFixture.juniper: return try RealFixture.console(c.file, date: "2025-10-10", lines: [c.line])
        case RealFixture.juniperCrash: return try RealFixture.console(c.file, date: "2025-10-14", lines: [c.line])
        case RealFixture.wridz: return try RealFixture.console(c.file, date: "2023-02-20", lines: [c.line])
        case RealFixture.n8henrie: return try RealFixture.messages(c.file, process: "locationd", lines: [c.line])
        default: return try RealFixture.mobileInstallation(lines: [c.line])
        }
    }

    @Test("each real line of EXPECTED.md, alone, gives the event it must give, or none", arguments: lineCases)
    func line(_ c: LineCase) throws {
        let (ws, _) = try Self.ingest(try Self.records(c))
        let rows = try ws.rows("SELECT * FROM events")
        guard let kind = c.kind else {
            #expect(rows.isEmpty, "\(rows.map { "\($0["kind"] as String) \($0["pattern"] as String)" })")
            return
        }
        #expect(rows.count == 1)
        guard let row = rows.first else { return }
        #expect(columnText(row, "kind") == kind)
        for (column, expected) in c.columns {
            #expect(columnText(row, column) == expected, "\(column)")
        }
    }

    @Test("the whole MobileInstallation excerpt: a placeholder install, the install, one uninstall; Destroying container lines are none")
    func installsAndUninstall() throws {
        let (ws, _) = try Self.ingest(try RealFixture.mobileInstallation(lines: Array(1...19)))
        let rows = try ws.rows("SELECT time, kind, reason FROM events ORDER BY time_us, line")
        #expect(rows.map { $0["kind"] as String } == ["install", "install", "uninstall"])
        #expect(rows.map { $0["reason"] as String? } == ["Placeholder", "Customer", nil])
        #expect(rows.map { $0["time"] as String } == ["2025-04-07T13:13:34.000000Z", "2025-04-07T13:13:52.000000Z", "2025-04-07T14:40:47.000000Z"])
    }

    @Test("installd's live lines start with the thread id: the same install")
    func installdLiveLine() throws {
        var records = try RealFixture.mobileInstallation(lines: [14, 15])
        for i in records.indices { records[i].message = "0x16f5ef000 " + records[i].message }
        let (ws, _) = try Self.ingest(records)
        #expect(try ws.rows("SELECT kind FROM events ORDER BY line").map { $0["kind"] as String } == ["install", "uninstall"])
    }

    @Test("the n8henrie lines give one prompt, of request type 5 = LegacyAlways, and no answer: none was given")
    func n8henrie() throws {
        let (ws, _) = try Self.ingest(try RealFixture.messages(RealFixture.n8henrie, process: "locationd", lines: Array(1...5)))
        let rows = try ws.rows("SELECT kind, prompt_kind, bundle_id FROM events")
        #expect(rows.count == 1)
        #expect(rows.first.flatMap { columnText($0, "prompt_kind") } == "LegacyAlways")
    }
}

/// Real wording beyond the fixtures: keys, client keys, setters, values, crashes, iOS's own lines.
@Suite struct RealWordingTests {
    static func events(_ lines: [String]) throws -> Workspace {
        let ws = try Workspace()
        let report = try ws.ingest([try ws.write("d.log", lines.joined(separator: "\n") + "\n")]) { $0.parse.year = 2026 }
        #expect(report.failed == 0)
        return ws
    }

    @Test("every client-key spelling names the bundle: icom.x:, [mobile]com.x, UUID:com.x, [UUID]com.x", arguments: [
        "icom.example.app:", "[mobile]com.example.app", "92F5C54E-CAEB-44A5-AF60-85E44A017BD2:com.example.app",
        "[92F5C54E-CAEB-44A5-AF60-85E44A017BD2]com.example.app",
    ])
    func clientKeys(_ key: String) throws {
        let ws = try Self.events([syslogLine("Nov 12 12:00:01", "locationd", 64, #"{"msg":"Showing #AuthPrompt", "requestType":2, "Client":"\#(key)"}"#)])
        #expect(try ws.rows("SELECT bundle_id FROM events WHERE kind = 'prompt'").map { $0["bundle_id"] as String? } == ["com.example.app"])
    }

    @Test("keys match whatever their case: locationd's bundleID (line 186 of Juniper) links the app's pid as bundleId does")
    func bundleIDLinks() throws {
        let real = try RealFixture.console(RealFixture.juniper, date: "2025-10-10", lines: [186])[0].message
        let ws = try Self.events([
            syslogLine("Nov 12 12:00:01", "locationd", 64, real),
            syslogLine("Nov 12 12:00:02", "MobileJarvisNative", 26683, Messages.delivery()),
        ])
        let rows = try ws.rows("SELECT bundle_id, bundle_via FROM events WHERE kind = 'location'")
        #expect(rows.first.flatMap { columnText($0, "bundle_id") } == "com.hightowerai.MobileJarvisNative")
        #expect(rows.first.flatMap { columnText($0, "bundle_via") } == "pid")
    }

    @Test("a decode-failure value is its raw value: state transition new {\"type\":\"decode failure\",\"raw value\":1} is 1")
    func decodeFailure() throws {
        let ws = try Self.events([syslogLine("Nov 12 12:00:01", "App", 501, #"{"msg":"state transition", "event":"state_transition", "state":"LocationManager", "id":"0x282a9d890", "property":"allowsBackgroundLocationUpdates", "old":{"type":"decode failure","raw value":0,"expected type":"Generic"}, "new":{"type":"decode failure","raw value":1,"expected type":"Generic"}}"#)])
        #expect(try ws.rows("SELECT property, value FROM events").first.flatMap { columnText($0, "value") } == "1")
    }

    @Test("locationd's own DaemonClient state transitions are no app's LocationManager")
    func daemonClient() throws {
        let ws = try Self.events([syslogLine("Nov 12 12:00:01", "locationd", 64, #"{"msg":"state transition", "event":"state_transition", "state":"DaemonClient", "id":"0x1", "property":"lifecycle", "old":0, "new":1}"#)])
        #expect(try ws.count("SELECT count(*) FROM events") == 0)
    }

    @Test("a crash line cut short is still the background-flag crash, by the start of its reason")
    func crashCutShort() throws {
        let ws = try Self.events([syslogLine("Nov 12 12:00:01", "App", 501, "*** Terminating app due to uncaught exception 'NSInternalInconsistencyException', reason: 'Invalid parameter not satisfying: !stayUp || CLClientIsBackgroun")])
        let reason = try ws.rows("SELECT reason FROM events WHERE kind = 'crash'").first.flatMap { columnText($0, "reason") }
        #expect(reason?.hasPrefix("Invalid parameter not satisfying: !stayUp || CLClientIsBackgroun") == true)
    }

    @Test("the newer crash reason (… || _CFMZEnabled()) is flagged as the background flag without the capability")
    func newerCrashReason() throws {
        let log = LogScript().launch()
            .app("*** Terminating app due to uncaught exception 'NSInternalInconsistencyException', reason: 'Invalid parameter not satisfying: !stayUp || CLClientIsBackgroundable(internal->fClient) || _CFMZEnabled()'")
        let ws = try AuditWorkspace()
        try ws.ingest(log.text, os: "17.5")
        #expect(try ws.audit().rules.contains("background-flag-without-capability"))
    }

    @Test("a setter's value is an observation of the flag: setAllowsBackgroundLocationUpdates: with allows 1 makes a background delivery legal")
    func setterValue() throws {
        let log = LogScript().launch().told("AuthorizedWhenInUse")
            .app(#"{"msg":"CLLocationManager", "event":"activity", "_cmd":"setAllowsBackgroundLocationUpdates:", "self":"0x1483580a0", "allows":1}"#)
            .call("startUpdatingLocation").state("BackgroundRunning").blueBar(true).deliver()
        let ws = try AuditWorkspace()
        try ws.ingest(log.text, os: "10.3.3", plist: .complete)
        #expect(try ws.audit().rules.filter { $0 == "background-delivery-without-capability" }.isEmpty)
        #expect(try ws.workspace.count("SELECT count(*) FROM events WHERE kind = 'property' AND property = 'allowsBackgroundLocationUpdates' AND value = 1") == 1)
    }

    @Test("iOS's own CLLocationManager lines (routined) are stored but never get an app's bundle, even on a pid an app had before")
    func systemProcessLines() throws {
        let ws = try Self.events([
            syslogLine("Nov 12 09:00:00", "locationd", 64, Messages.appState("ForegroundRunning", pid: 88, bundle: "com.example.app")),
            syslogLine("Nov 12 09:00:05", "locationd", 64, Messages.appState("Terminated", pid: 88, bundle: "com.example.app")),
            syslogLine("Nov 12 12:00:00", "routined", 88, Messages.delivery()),
        ])
        let rows = try ws.rows("SELECT process, app_pid, bundle_id FROM events WHERE kind = 'location'")
        #expect(rows.count == 1)
        #expect(rows.first.flatMap { columnText($0, "process") } == "routined")
        #expect(rows.first.flatMap { columnText($0, "bundle_id") } == nil)
        #expect(rows.first.flatMap { columnText($0, "app_pid") } == nil)
    }

    @Test("a message nested 100,000 objects deep is refused (malformed) without exhausting the stack")
    func deepNesting() throws {
        let deep = #"{"msg":"x", "a":"# + String(repeating: #"{"a":"#, count: 100_000) + "1" + String(repeating: "}", count: 100_001)
        #expect(MessageFields.parse(deep) == nil)
        let shallow = #"{"msg":"x", "a":"# + String(repeating: #"{"a":"#, count: MessageFields.maxDepth - 2) + "1" + String(repeating: "}", count: MessageFields.maxDepth - 1)
        #expect(try #require(MessageFields.parse(shallow))["msg"] == .string("x"))
    }
}
