import Foundation
import GRDB
import Testing
@testable import LocAuditUnitTests

/// Who is who (issue 25): a log without a sidecar is tied to the device the store knows by
/// the name in its lines or its file name; `locaudit devices` lists them; `devices set` mends
/// their facts; `audit --device NAME` takes a unique name, and a name or app that matches
/// nothing is exit 2 with the nearest ones, recording nothing.
@Suite(.tags(.endToEnd), .ownThreads) struct DevicesTests {
    /// The sample logs without their sidecars, in `logs/`.
    func logsWithoutSidecars(_ ws: Workspace, only: [String]? = nil) throws -> String {
        let folder = packageRoot.appendingPathComponent("samples/logs")
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        where !name.hasSuffix(".ideviceinfo.txt") && (only.map { $0.contains(name) } ?? true) {
            try ws.write("logs/" + name, [UInt8](Data(contentsOf: folder.appendingPathComponent(name))))
        }
        return ws.dir.appendingPathComponent("logs").path
    }

    static func text(_ database: String, _ sql: String) throws -> String? {
        try DatabaseQueue(path: database).read { try String.fetchOne($0, sql: sql) }
    }

    func locaudit(_ arguments: [String], _ db: String) throws -> (status: Int32, stdout: String, stderr: String) {
        try run(locauditExecutable, arguments + ["--db", db])
    }

    @Test("ingest samples/devices with logs that have no sidecar makes the 8 devices, each log with its iOS version and zone, said in the ingest's output")
    func linkedByNameInLinesOrFileName() throws {
        let ws = try Workspace()
        let logs = try logsWithoutSidecars(ws)
        let db = ws.dir.appendingPathComponent("s.sqlite").path
        let result = try locaudit(["ingest", packageRoot.appendingPathComponent("samples/devices").path, logs], db)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try WatchTests.count(db, "SELECT count(*) FROM devices") == 8)
        #expect(try WatchTests.count(db, "SELECT count(*) FROM sources WHERE os_version IS NULL") == 0)
        #expect(try WatchTests.count(db, "SELECT count(*) FROM sources WHERE zone_assumed = 1") == 0)
        #expect(result.stdout.contains("linked by the device name in its lines (qa-iphone7-10)"), "\(result.stdout)")
        #expect(result.stdout.contains("linked by its file name"), "an ndjson export has no device field: its name links it")
        #expect(!result.stdout.contains("iOS unknown"), "\(result.stdout)")

        // The same findings as with the sidecars.
        let withSidecars = ws.dir.appendingPathComponent("ref.sqlite").path
        _ = try locaudit(["ingest", packageRoot.appendingPathComponent("samples/logs").path, "--quiet"], withSidecars)
        for path in [db, withSidecars] { _ = try locaudit(["audit", "--quiet"], path) }
        let findings = "SELECT group_concat(rule || ' ' || device_id || ' ' || bundle_id || ' ' || time, char(10)) FROM (SELECT * FROM findings ORDER BY 1)"
        #expect(try DevicesTests.text(db, findings) == DevicesTests.text(withSidecars, findings))
    }

    @Test("two devices with one name: a log naming it is linked to neither, and the ingest says so")
    func twoCandidatesLinkNone() throws {
        let ws = try Workspace()
        let db = ws.dir.appendingPathComponent("s.sqlite").path
        let info = try String(contentsOf: packageRoot.appendingPathComponent("samples/devices/qa-iphone7-10.ideviceinfo.txt"), encoding: .utf8)
        let a = try ws.write("a.ideviceinfo.txt", info)
        let b = try ws.write("b.ideviceinfo.txt", info.replacingOccurrences(of: "f19e10f790457b49ae65cbc96c1dac19751f4b05", with: "0000aaaa0000bbbb0000cccc0000dddd0000eeee"))
        let logs = try logsWithoutSidecars(ws, only: ["qa-iphone7-10-2026-11-20.log.gz"])
        let result = try locaudit(["ingest", a, b, logs], db)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("linked to no known device"), "\(result.stdout)")
        #expect(try WatchTests.count(db, "SELECT count(*) FROM sources WHERE container = 'idevicesyslog' AND os_version IS NULL") == 1)
        #expect(try WatchTests.count(db, "SELECT count(*) FROM sources WHERE device_id = 'qa-iphone7-10'") == 1)
    }

    @Test("devices lists who is who; devices set mends iOS and zone, the next audit uses them, and the list marks them as set by hand")
    func listAndSet() throws {
        let ws = try Workspace()
        let logs = try logsWithoutSidecars(ws, only: ["qa-iphone7-10-2026-11-20.log.gz"])
        let db = ws.dir.appendingPathComponent("s.sqlite").path
        _ = try locaudit(["ingest", logs, "--quiet"], db)
        let before = try locaudit(["audit", "--report", "json"], db)
        func rules(_ json: String) throws -> [String] {
            let doc = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            return (doc["findings"] as? [[String: Any]] ?? []).compactMap { $0["rule"] as? String }
        }
        #expect(try !rules(before.stdout).contains("background-flag-without-capability"), "iOS unknown: not evaluable")
        #expect(try DevicesTests.text(db, "SELECT first_time FROM sources") == "2026-11-20T08:31:18.000000Z", "read as UTC")

        let set = try locaudit(["devices", "set", "qa-iphone7-10", "--os", "10.3.3", "--tz", "Europe/Paris"], db)
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stdout.contains("iOS version given to 1 log"), "\(set.stdout)")
        #expect(set.stdout.contains("1 log read in an assumed UTC re-timed"), "\(set.stdout)")
        #expect(try DevicesTests.text(db, "SELECT first_time FROM sources") == "2026-11-20T07:31:18.000000Z", "re-timed in Paris (UTC+1)")

        let list = try locaudit(["devices"], db)
        #expect(list.stdout.contains("10.3.3*") && list.stdout.contains("Europe/Paris*"), "\(list.stdout)")
        #expect(list.stdout.contains("* set by hand"), "\(list.stdout)")
        let json = try locaudit(["devices", "--json"], db)
        let devices = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(devices.first?["setByHand"] as? [String] == ["ios", "timeZone"])
        #expect(devices.first?["files"] as? Int == 1)

        let after = try locaudit(["audit", "--report", "json"], db)
        #expect(after.status == 1, "the iOS 10 finding is now evaluable: \(after.stderr)")
        #expect(try rules(after.stdout).contains("background-flag-without-capability"))
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(after.stdout.utf8)) as? [String: Any])
        #expect((doc["devicesSetByHand"] as? [String: [String]])?["qa-iphone7-10"] == ["ios", "timeZone"], "the report says which facts were set by hand")
        let text = try locaudit(["audit", "--no-record"], db)
        #expect(text.stdout.contains("Device qa-iphone7-10 (iOS 10.3.3, iOS and zone set by hand)"), "\(text.stdout)")

        // A sidecar-less log ingested later is read in the zone set by hand.
        let later = try ws.write("later/qa-iphone7-10-2026-11-21.log", "Nov 21 09:00:00 qa-iphone7-10 SpringBoard[50] <Notice>: hello\n")
        _ = try locaudit(["ingest", later, "--quiet"], db)
        #expect(try DevicesTests.text(db, "SELECT first_time FROM sources WHERE path LIKE '%11-21.log'") == "2026-11-21T08:00:00.000000Z")
        #expect(try DevicesTests.text(db, "SELECT os_version FROM sources WHERE path LIKE '%11-21.log'") == "10.3.3")
    }

    @Test("audit --device takes a unique device name; a name or app that matches nothing is exit 2 with the nearest, and records no run")
    func deviceByNameAndUnknownNames() throws {
        let ws = try Workspace()
        let db = ws.dir.appendingPathComponent("s.sqlite").path
        _ = try locaudit(["ingest", packageRoot.appendingPathComponent("samples/logs").path, "--quiet"], db)
        let byName = try locaudit(["audit", "--device", "qa-iphone7-10", "--report", "json"], db)
        #expect(byName.status == 1, "\(byName.stderr)")
        #expect(byName.stdout.contains("f19e10f790457b49ae65cbc96c1dac19751f4b05"))
        let runs = try WatchTests.count(db, "SELECT count(*) FROM audit_runs")

        let device = try locaudit(["audit", "--device", "qa-iphone7-1"], db)
        #expect(device.status == 2)
        #expect(device.stderr.contains("no device 'qa-iphone7-1'") && device.stderr.contains("did you mean 'qa-iphone7-10'"), "\(device.stderr)")
        let app = try locaudit(["audit", "--app", "com.example.runer"], db)
        #expect(app.status == 2)
        #expect(app.stderr.contains("did you mean 'com.example.runner'"), "\(app.stderr)")
        #expect(try WatchTests.count(db, "SELECT count(*) FROM audit_runs") == runs, "nothing recorded")
    }

    @Test("audit --no-record reports and writes nothing; exploratory runs are recorded with their scope and are not nights in the fleet's trend")
    func noRecordAndScope() throws {
        let ws = try Workspace()
        let db = ws.dir.appendingPathComponent("s.sqlite").path
        _ = try locaudit(["ingest", packageRoot.appendingPathComponent("samples/logs").path, "--quiet"], db)
        _ = try locaudit(["audit", "--quiet"], db)
        let digest = { try DevicesTests.text(db, "SELECT (SELECT count(*) FROM audit_runs) || ' ' || (SELECT count(*) FROM findings) || ' ' || (SELECT count(*) FROM sessions)") }
        let before = try digest()
        let explored = try locaudit(["audit", "--no-record", "--app", "com.example.weather"], db)
        #expect(explored.status == 1, "\(explored.stderr)")
        #expect(explored.stdout.contains("not recorded"), "\(explored.stdout)")
        #expect(try digest() == before)
        #expect(try locaudit(["audit", "--no-record", "--report", "fleet"], db).status == 2)

        _ = try locaudit(["audit", "--quiet", "--app", "com.example.weather"], db)
        _ = try locaudit(["audit", "--quiet", "--rule", "missing-blue-bar"], db)
        #expect(try DevicesTests.text(db, "SELECT group_concat(scope, ',') FROM (SELECT scope FROM audit_runs ORDER BY id)") == "full,exploratory,exploratory")
        let fleet = try locaudit(["report", "--format", "fleet"], db)
        let trend = fleet.stdout.components(separatedBy: "Trend").last?.split(separator: "\n").dropFirst(2).map { $0.trimmingCharacters(in: .whitespaces) } ?? []
        #expect(trend.count == 1 && trend.first?.hasPrefix("1 ") == true, "one point: the full run 1, not the exploratory 2 and 3 \(fleet.stdout)")
        #expect(fleet.stdout.contains("  qa-iphone7-10 (f19e10f790457b49ae65cbc96c1dac19751f4b05): 1 open"), "devices by name: \(fleet.stdout)")
    }

    @Test("an ingest that stores nothing leaves no database; --device-info alone stores the device's facts")
    func noEmptyDatabase() throws {
        let ws = try Workspace()
        let db = ws.dir.appendingPathComponent("s.sqlite").path
        let readme = try ws.write("README.txt", "not a log\n")
        let failed = try locaudit(["ingest", readme], db)
        #expect(failed.status == 1)
        #expect(failed.stdout.contains("no database written"), "\(failed.stdout)")
        #expect(!FileManager.default.fileExists(atPath: db))
        let info = try locaudit(["ingest", "--device-info", packageRoot.appendingPathComponent("samples/devices/qa-iphone7-10.ideviceinfo.txt").path], db)
        #expect(info.status == 0, "\(info.stderr)")
        #expect(try DevicesTests.text(db, "SELECT name || ' ' || os_version || ' ' || time_zone FROM devices") == "qa-iphone7-10 10.3.3 Europe/Paris")
    }
}
