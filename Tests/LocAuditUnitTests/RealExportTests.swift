import Foundation
import Testing

/// The real exports of `Fixtures/real/`, read unedited: what the containers decide
/// (records, times, processes, pids, continuation lines, skips). Which events their messages
/// give is the catalog's part; where an event is checked, it is one the catalog already knows.
@Suite struct RealExportTests {
    static func real(_ name: String) -> String {
        realFixtures.appendingPathComponent(name).path
    }

    @Test("loghub's macOS system.log: bsd-syslog, CRLF, changing hosts, no malformed line")
    func loghub() throws {
        let ws = try Workspace()
        let file = try #require(try ws.ingest([RealExportTests.real("loghub-mac-2k-macos-system.log")]) { $0.complete = true; $0.parse.year = 2017 }.files.first)
        #expect(file.outcome == .ingested, "\(file.error ?? "")")
        #expect(file.container == "bsd-syslog")
        #expect(file.linesRead == 2000)
        #expect(file.skipped == [:], "no malformed, bad-timestamp or incomplete line")
        #expect(file.notes?["continuation"] == nil)
        #expect(file.device == "unknown")
        #expect(file.zoneAssumed == true)
        #expect(file.firstTime == "2017-07-01T09:00:55.000000Z")
        #expect(file.lastTime == "2017-07-08T08:10:46.000000Z")
        // Without --complete its last line (no newline) is held back, nothing else is skipped.
        let held = try #require(try Workspace().ingest([RealExportTests.real("loghub-mac-2k-macos-system.log")]).files.first)
        #expect(held.skipped == ["incomplete": 1])
        #expect(held.heldBackFrom == 2000)
    }

    @Test("the MobileInstallation grep: 19 records, installd, device local time with a year")
    func mobileInstallationGrep() throws {
        let ws = try Workspace()
        let path = RealExportTests.real("fcsc2025-iforensics-ios16.0-mobile_installation-grep.log")
        let file = try #require(try ws.ingest([path]).files.first)
        #expect(file.container == "mobile-installation")
        #expect(file.linesRead == 19)
        #expect(file.skipped == [:])
        #expect(file.zoneAssumed == true)
        #expect(file.firstTime == "2025-04-07T06:13:34.000000Z")
        #expect(file.lastTime == "2025-04-07T07:40:47.000000Z")
        // In the device's zone (the write-up says UTC-7), and with install lines as events.
        let zoned = try Workspace()
        let read = try #require(try zoned.ingest([path]) {
            $0.parse.zone = TimeZone(identifier: "America/Los_Angeles")
        }.files.first)
        #expect(read.zoneAssumed == false)
        let rows = try zoned.rows("SELECT line, time, utc_offset, process, pid, bundle_id FROM events ORDER BY line")
        // The two installs (placeholder, customer) and the uninstall (EXPECTED.md lines 5, 14, 15).
        #expect(rows.map { $0["line"] as Int } == [5, 14, 15])
        #expect(rows.map { $0["time"] as String } == ["2025-04-07T13:13:34.000000Z", "2025-04-07T13:13:52.000000Z", "2025-04-07T14:40:47.000000Z"])
        #expect(rows.map { $0["pid"] as Int } == [234, 234, 446])
        #expect(rows.allSatisfy { ($0["process"] as String) == "installd" && ($0["utc_offset"] as Int) == -7 * 3600 })
    }

    @Test("n8henrie's bare messages: 5 lines skipped as no-prefix, no event, no error")
    func messageOnly() throws {
        let ws = try Workspace()
        let report = try ws.ingest([RealExportTests.real("n8henrie-test-location-macos13-locationd.log")])
        let file = try #require(report.files.first)
        #expect(file.outcome == .ingested, "\(file.error ?? "")")
        #expect(file.container == "message-only")
        #expect(file.linesRead == 5)
        #expect(file.events == 0)
        #expect(file.skipped == ["no-prefix": 5])
        #expect(report.text().contains("no line can be placed in time"))
    }

    @Test("bitrise's idevicesyslog: 0 events, [connected] as noise, its multi-line record joined")
    func bitrise() throws {
        let ws = try Workspace()
        let file = try #require(try ws.ingest([RealExportTests.real("bitrise-addons-test-frontend-iphone-idevicesyslog.log")]) { $0.parse.year = 2019 }.files.first)
        #expect(file.outcome == .ingested)
        #expect(file.container == "idevicesyslog")
        #expect(file.events == 0)
        #expect(file.skipped == ["noise": 1])
        #expect(file.notes?["continuation"] == 11)
    }
}
