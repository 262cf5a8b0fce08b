import Foundation
import Testing
@testable import LocAuditUnitTests

/// What a nightly inbox holds besides good logs, through the real binary: logs of devices in
/// other zones (the inventory's `time_zone`, `run --tz`), files that fail night after night
/// (moved to `inbox/failed/` on the third), and files that are no log at all (ignored).
@Suite(.serialized, .tags(.endToEnd), .ownThreads) struct NightlyInputsTests {
    /// A zone-less idevicesyslog log: five deliveries from 10:00:01 local time on 2026-11-20
    /// (the pid tells the logs of several devices apart: a content is stored once).
    static func log(pid: Int = 412) -> String {
        (1...5).map { i in
            syslogLine("Nov 20 10:00:0\(i)", "Runner(CoreLocation)", pid, Messages.delivery(accuracy: Double(i)))
        }.joined(separator: "\n") + "\n"
    }

    /// `locaudit run` on an inbox, a moment after it was written (`--settle 0`).
    func run(_ ws: Workspace, _ arguments: [String] = []) throws -> (status: Int32, stdout: String, stderr: String) {
        try LocAuditKitTests.run(locauditExecutable, ["run", "--inbox", ws.dir.appendingPathComponent("inbox").path, "--db", ws.store.path,
                                                     "--settle", "0"] + arguments)
    }

    /// The UTC time of a device's first event.
    func firstTime(_ ws: Workspace, device: String) throws -> String? {
        try ws.rows("SELECT min(time) AS t FROM events WHERE device_id = ?", [device]).first?["t"]
    }

    @Test("a log matched through the inventory is read in its row's time_zone (TimeZone also names the column); --tz is the zone of the devices that have none")
    func inventoryZone() throws {
        let ws = try Workspace()
        try ws.write("inbox/paris-2026-11-20.log", Self.log(pid: 1))
        try ws.write("inbox/ny-2026-11-20.log", Self.log(pid: 2))
        try ws.write("inbox/nozone-2026-11-20.log", Self.log(pid: 3))
        let inventory = try ws.write("inventory.csv", """
            udid,name,product_type,os_version,TimeZone
            UDID-PARIS,paris,"iPhone14,2",17.4,Europe/Paris
            UDID-NY,ny,"iPhone14,2",17.4,America/New_York
            UDID-NONE,nozone,"iPhone14,2",17.4,

            """)
        let result = try run(ws, ["--inventory", inventory, "--tz", "Asia/Tokyo", "--quiet"])
        #expect([0, 1, 3].contains(result.status), "\(result.stderr)")
        #expect(try firstTime(ws, device: "UDID-PARIS") == "2026-11-20T09:00:01.000000Z", "10:00 in Paris (UTC+1)")
        #expect(try firstTime(ws, device: "UDID-NY") == "2026-11-20T15:00:01.000000Z", "10:00 in New York (UTC-5): its own zone wins over --tz")
        #expect(try firstTime(ws, device: "UDID-NONE") == "2026-11-20T01:00:01.000000Z", "no zone of its own: --tz (Tokyo, UTC+9)")
        #expect(try ws.count("SELECT count(*) FROM sources WHERE zone_assumed = 1") == 0)
    }

    @Test("without a zone anywhere the log is read as UTC and says so; a time_zone that is no zone, or --tz, is a usage error naming it")
    func noZoneAndBadZones() throws {
        let ws = try Workspace()
        try ws.write("inbox/plain-2026-11-20.log", Self.log())
        let inventory = try ws.write("inventory.csv", "name,os_version\nplain,17.4\n")
        let result = try run(ws, ["--inventory", inventory, "--quiet"])
        #expect([0, 1, 3].contains(result.status), "\(result.stderr)")
        #expect(try firstTime(ws, device: "plain") == "2026-11-20T10:00:01.000000Z")
        #expect(try ws.count("SELECT count(*) FROM sources WHERE zone_assumed = 1") == 1)

        let bad = try ws.write("bad.csv", "name,os_version,time_zone\nplain,17.4,Europe/Pariss\n")
        let badRow = try run(ws, ["--inventory", bad])
        #expect(badRow.status == 2 && badRow.stderr.contains("bad.csv:2: time_zone 'Europe/Pariss' is not a time zone"), "\(badRow.stderr)")
        let badFlag = try run(ws, ["--tz", "Mars/Olympus"])
        #expect(badFlag.status == 2 && badFlag.stderr.contains("Unknown time zone 'Mars/Olympus'"), "\(badFlag.stderr)")
    }

    @Test("a README, an HTML page, a zip, a PDF: listed as ignored with the reason, not failed (exit 0), left in place; a file that might be a log is still tried")
    func notLogsAreIgnored() throws {
        let ws = try Workspace()
        try ws.write("inbox/README.md", "# The lab's inbox\nDrop the exports here.\n")
        try ws.write("inbox/README", "Drop the exports here.\n")
        try ws.write("inbox/dashboard.log", "<!DOCTYPE html>\n<html><body>502 Bad Gateway</body></html>\n")
        try ws.write("inbox/report.html", "<html><body>yesterday</body></html>\n")
        try ws.write("inbox/logs.zip", [0x50, 0x4B, 0x03, 0x04] + Array(repeating: 0, count: 40))
        try ws.write("inbox/spec.pdf", Array("%PDF-1.7\n".utf8))
        try ws.write("inbox/notes.txt", "these are my notes, not a log\n")
        let result = try run(ws, ["--report", "text:" + ws.dir.appendingPathComponent("run.txt").path])
        let text = try String(contentsOf: ws.dir.appendingPathComponent("run.txt"), encoding: .utf8)
        // notes.txt may be a log: it is tried, and fails with its own sentence (exit 5).
        #expect(result.status == 5, "\(result.stderr)")
        #expect(text.contains("1 failed") && text.contains("notes.txt: cannot tell which kind of log this is"), "\(text)")
        #expect(text.contains("\nIgnored (not logs; left where they are):\n"), "\(text)")
        for (name, why) in [("README.md", "a document (.md), not a log"), ("README", "a document (README), not a log"),
                            ("dashboard.log", "an HTML page (by its first bytes), not a log"),
                            ("report.html", "an HTML page (.html), not a log"), ("logs.zip", "a .zip archive, which locaudit does not open"),
                            ("spec.pdf", "a PDF document, not a log")] {
            #expect(text.contains("inbox/\(name): \(why)"), "\(name): \(text)")
            #expect(FileManager.default.fileExists(atPath: ws.dir.appendingPathComponent("inbox/" + name).path))
        }
        // Only not-logs: nothing failed, exit 0.
        try FileManager.default.removeItem(at: ws.dir.appendingPathComponent("inbox/notes.txt"))
        let clean = try run(ws, ["--quiet"])
        #expect(clean.status == 0, "\(clean.stderr)")
    }

    /// Rewrites the inbox's failure ledger as if each file's failures had started `days` ago.
    func backdate(_ ws: Workspace, days: [String]) throws {
        let url = ws.dir.appendingPathComponent("inbox/.locaudit-failures")
        var ledger = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        var files = try #require(ledger["files"] as? [[String: Any]])
        for i in files.indices { files[i]["nights"] = days }
        ledger["files"] = files
        try JSONSerialization.data(withJSONObject: ledger).write(to: url)
    }

    @Test("a file that fails the same way on three nights moves to inbox/failed/ with a .why, and the next night is clean; a changed file or another night's success starts again")
    func failingThreeNights() throws {
        let ws = try Workspace()
        try ws.write("inbox/day1/broken-2026-11-20.log", "this is not a log line\nnor this\n")
        try ws.write("inbox/good-2026-11-20.log", Self.log())
        let ledger = ws.dir.appendingPathComponent("inbox/.locaudit-failures").path

        let first = try run(ws, ["--quiet"])
        #expect(first.status == 5, "\(first.stderr)")
        #expect(FileManager.default.fileExists(atPath: ledger), "the failure is counted")
        // The same night again: still one night.
        #expect(try run(ws, ["--quiet"]).status == 5)
        let counted = try String(contentsOfFile: ledger, encoding: .utf8)
        #expect(counted.contains("day1/broken-2026-11-20.log"), "\(counted)")
        let nights = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: ledger))) as? [String: Any])
        #expect(((nights["files"] as? [[String: Any]])?.first?["nights"] as? [String])?.count == 1, "\(counted)")

        // Two earlier nights: tonight is the third.
        try backdate(ws, days: ["2026-11-01", "2026-11-02"])
        let report = ws.dir.appendingPathComponent("run.txt").path
        let third = try run(ws, ["--report", "text:" + report])
        #expect(third.status == 5, "it failed tonight too: \(third.stderr)")
        let moved = ws.dir.appendingPathComponent("inbox/failed/day1/broken-2026-11-20.log").path
        #expect(FileManager.default.fileExists(atPath: moved))
        #expect(!FileManager.default.fileExists(atPath: ws.dir.appendingPathComponent("inbox/day1/broken-2026-11-20.log").path))
        let why = try String(contentsOfFile: moved + ".why", encoding: .utf8)
        #expect(why.contains("failed the same way on 3 nights (2026-11-01, 2026-11-02, "), "\(why)")
        #expect(why.contains("Why it fails: ") && why.contains("cannot tell which kind of log this is"), "\(why)")
        let text = try String(contentsOfFile: report, encoding: .utf8)
        #expect(text.contains("Moved to the inbox's failed/ folder") && text.contains("-> \(moved) (failed on 2026-11-01, 2026-11-02, "), "\(text)")
        #expect(!FileManager.default.fileExists(atPath: ledger), "nothing left to count")

        // The next night: failed/ is not read; nothing failed.
        let next = try run(ws, ["--quiet"])
        #expect(next.status == 0, "\(next.stderr)")
        #expect(try ws.count("SELECT count(*) FROM sources WHERE path LIKE '%failed/%'") == 0)
    }

    @Test("a file that fails another way, or is replaced by other bytes, starts its count again")
    func sameWayOnly() throws {
        let ws = try Workspace()
        let path = try ws.write("inbox/broken-2026-11-20.log", "this is not a log line\n")
        #expect(try run(ws, ["--quiet"]).status == 5)
        try backdate(ws, days: ["2026-11-01", "2026-11-02"])
        try ws.write("inbox/broken-2026-11-20.log", "other bytes, still not a log\n")
        #expect(try run(ws, ["--quiet"]).status == 5)
        #expect(FileManager.default.fileExists(atPath: path), "new bytes: one night, not three")
        let ledger = try String(contentsOfFile: ws.dir.appendingPathComponent("inbox/.locaudit-failures").path, encoding: .utf8)
        #expect(!ledger.contains("2026-11-01"), "\(ledger)")
    }
}
