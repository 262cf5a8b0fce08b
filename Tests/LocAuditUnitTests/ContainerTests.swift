import Foundation
import Testing
@testable import LocAuditNormalise

@Suite struct ContainerTests {
    static let realPrivacyReport = realFixtures.appendingPathComponent("ios_app_privacy_report.ndjson").path

    @Test func theRealAppPrivacyReportGivesOneLocationInterval() throws {
        let ws = try Workspace()
        let report = try ws.ingest([ContainerTests.realPrivacyReport])
        let file = try #require(report.files.first)
        #expect(file.outcome == .ingested)
        #expect(file.container == "privacy-report")
        #expect(file.linesRead == 72)
        #expect(file.skipped?["not-location"] == 70)
        let rows = try ws.rows("SELECT kind, bundle_id, time, utc_offset, value FROM events ORDER BY time_us")
        #expect(rows.map { $0["kind"] as String } == ["access-begin", "access-end"])
        #expect(rows.allSatisfy { ($0["bundle_id"] as String) == "com.apple.mobilecal" })
        #expect(rows.map { $0["time"] as String } == ["2022-04-27T15:01:09.166000Z", "2022-04-27T15:01:19.289000Z"])
        #expect(rows.allSatisfy { ($0["utc_offset"] as Int) == -4 * 3600 })
        #expect(rows.allSatisfy { ($0["value"] as String) == "0634B0EB-5B3E-47FE-A270-75C439EE4C71" })
    }

    static let lines: [(Container, String)] = [
        (.idevicesyslog, #"Nov 12 12:24:58 iPad locationd[64] <Notice>: {"msg":"Incoming message", "event":"activity", "name":"kCLConnectionMessageMotionActivityQuery", "this":"0x1026e3580", "registrationReceived":0}"#),
        (.logShow, "Filtering the log data using \"subsystem == \\\"com.apple.locationd\\\"\"\nTimestamp                       Thread     Type        Activity             PID    TTL  \n2022-07-22 15:25:28.004991+0200 0x47c573   Default     0x18b908   351    0    locationd: [com.apple.locationd.Core:Client] hello"),
        (.logSyslog, "2019-08-22 18:21:26.169429+0300  localhost locationd[29104]: hello"),
        (.logNDJSON, #"{"timestamp":"2026-07-26 18:11:22.348728+1200","processImagePath":"/usr/libexec/locationd","processID":64,"eventMessage":"hello","messageType":"Default"}"#),
        (.logJSON, "[{\n  \"timestamp\" : \"2026-07-26 18:11:22.348728+1200\",\n  \"eventMessage\" : \"hello\"\n}]"),
        (.privacyReport, #"{"accessor":{"identifier":"com.apple.mobilecal","identifierType":"bundleID"},"category":"location","identifier":"0634B0EB","kind":"intervalBegin","timeStamp":"2022-04-27T11:01:09.166-04:00","type":"access"}"#),
        (.infoPlist, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\"><dict/></plist>"),
        (.deviceInfo, "ActivationState: Activated\nDeviceName: QA iPhone\nProductVersion: 17.5.1\nUniqueDeviceID: 00008120-0002FD5630D7CF8D"),
    ]

    @Test("each container is told from its first lines", arguments: lines.map(\.0))
    func detection(container: Container) throws {
        let text = try #require(ContainerTests.lines.first { $0.0 == container }).1
        #expect(Container.detect(Array(text.utf8)) == container)
        if container == .idevicesyslog {
            // idevicesyslog prints its connection notices before the first record.
            #expect(Container.detect(Array("[connected]\n".utf8) + Array(text.utf8)) == container)
        }
    }

    @Test func idevicesyslogWithAMissingOrEmptyDeviceNameAndALibrary() throws {
        let ws = try Workspace()
        let body = [
            #"Nov 12 12:25:00 locationd[64] <Notice>: "# + Messages.appState("ForegroundRunning", pid: 412, bundle: "com.example.runner"),
            #"Nov 12 12:25:01  Runner(CoreLocation)[412] <Notice>: "# + Messages.delivery(),
            #"Nov 12 12:25:02 QA-iPhone Runner(CoreLocation)[412] <Notice>: "# + Messages.delivery(),
        ].joined(separator: "\n") + "\n"
        let report = try ws.ingest([try ws.write("x.log", body)]) { $0.parse.year = 2026 }
        #expect(report.files.first?.events == 3)
        let rows = try ws.rows("SELECT process, pid, app_pid, bundle_id FROM events ORDER BY line")
        #expect(rows.map { $0["process"] as String } == ["locationd", "Runner", "Runner"])
        #expect(rows.map { $0["app_pid"] as Int } == [412, 412, 412])
        #expect(rows.allSatisfy { ($0["bundle_id"] as String) == "com.example.runner" })
    }

    @Test func logShowDefaultStyleReadsProcessPidAndMessage() throws {
        let ws = try Workspace()
        let body = """
            Filtering the log data using "process == \\"locationd\\""
            Skipping info and debug messages, pass --info and/or --debug to include.
            Timestamp                       Thread     Type        Activity             PID    TTL
            2022-07-22 15:25:28.004991+0200 0x47c573   Default     0x18b908   351    0    locationd: (CoreLocation) [com.apple.locationd.Core:Client] \(Messages.appState("BackgroundRunning", pid: 900, bundle: "com.example.app"))
            2022-07-22 15:25:29.100000+0200 0x47c574   Default     0x0        900    0    My App: (CoreLocation) [com.apple.locationd.Core:Client] \(Messages.delivery(accuracy: 65))
            --------------------------------------------------------------------------------------------------------------------
            Log      - Default:          2, Info:                0, Debug:             0, Error:          0, Fault:          0
            Activity - Create:           0, Transition:          0, Actions:           0

            """
        let report = try ws.ingest([try ws.write("show.log", body)])
        let file = try #require(report.files.first)
        #expect(file.container == "log-show")
        #expect(file.skipped == ["noise": 6])
        let rows = try ws.rows("SELECT time, utc_offset, process, pid, kind, app_state, horizontal_accuracy, bundle_id FROM events ORDER BY line")
        #expect(rows.count == 2)
        #expect(rows[0]["time"] as String == "2022-07-22T13:25:28.004991Z")
        #expect(rows[0]["utc_offset"] as Int == 7200)
        #expect(rows[0]["app_state"] as String == "backgroundRunning")
        #expect(rows[1]["process"] as String == "My App")
        #expect(rows[1]["horizontal_accuracy"] as Double == 65)
        #expect(rows[1]["bundle_id"] as String == "com.example.app")
    }

    @Test func ndjsonAndJSONArrayGiveTheSameEvents() throws {
        let records = [
            ##"{"timestamp":"2026-07-26 18:11:22.348728+1200","processImagePath":"/usr/libexec/locationd","processID":64,"subsystem":"com.apple.locationd.Core","category":"Client","messageType":"Default","eventType":"logEvent","eventMessage":"{\"msg\":\"#Authorization changed\", \"bundleId\":\"com.example.app\", \"status\":\"AuthorizedWhenInUse\", \"reason\":\"Prompt\", \"provisional\":0, \"temporary\":1}"}"##,
            #"{"timestamp":"2026-07-26 18:11:23.000000+1200","processImagePath":"/usr/libexec/locationd","processID":64,"eventType":"activityCreateEvent","eventMessage":"locationd activity"}"#,
        ]
        let ws = try Workspace()
        let ndjson = try ws.write("a.ndjson", "Filtering the log data using \"x\"\n" + records.joined(separator: "\n") + "\n{\"count\":2,\"finished\":1}\n")
        let pretty = "[\n" + records.map { "  " + $0.replacingOccurrences(of: "\",\"", with: "\",\n    \"") }.joined(separator: ",\n") + "\n]\n"
        let json = try ws.write("b.json", pretty)
        // One after the other: the second file's copy of the line is the duplicate.
        let report = try ws.ingest([ndjson, json]) { $0.jobs = 1 }
        #expect(report.files.map(\.container) == ["log-ndjson", "log-json"])
        #expect(report.files.map(\.events) == [1, 0]) // the same line twice is one event
        #expect(report.files[1].skipped?["duplicate"] == 1)
        let row = try #require(try ws.rows("SELECT * FROM events").first)
        #expect(row["status"] as String == "authorizedWhenInUse")
        #expect(row["temporary"] as Int == 1)
        #expect(row["time"] as String == "2026-07-26T06:11:22.348728Z")
        #expect(row["process"] as String == "locationd")
    }

    @Test func syslogStyleReadsHostProcessAndPid() throws {
        let ws = try Workspace()
        let path = try ws.write("s.log", "2019-08-22 18:21:26.169429+0300  localhost Runner(CoreLocation)[29104]: " + Messages.call("startMonitoringVisits") + "\n")
        _ = try ws.ingest([path])
        let row = try #require(try ws.rows("SELECT * FROM events").first)
        #expect(row["process"] as String == "Runner")
        #expect(row["pid"] as Int == 29104)
        #expect(row["service"] as String == "visits")
    }

    @Test func infoPlistsInXMLAndBinaryGiveTheAppsFacts() throws {
        let ws = try Workspace()
        let report = try ws.ingest([packageRoot.appendingPathComponent("samples/apps").path])
        #expect(report.failed == 0)
        let apps = try ws.rows("SELECT * FROM apps ORDER BY bundle_id")
        #expect(apps.count >= 4)
        // runner's Info.plist is a binary property list, legacy's an XML one.
        let runnerPlist = try Data(contentsOf: packageRoot.appendingPathComponent("samples/apps/com.example.runner.plist"))
        #expect(runnerPlist.starts(with: Array("bplist00".utf8)))
        let legacy = try #require(apps.first { ($0["bundle_id"] as String) == "com.example.legacy" })
        #expect(legacy["default_accuracy_reduced_type"] as String == "string")
        let runner = try #require(apps.first { ($0["bundle_id"] as String) == "com.example.runner" })
        #expect((runner["background_modes"] as String).contains("\"location\""))
        #expect(runner["default_accuracy_reduced_type"] as String == "boolean")
    }
}
