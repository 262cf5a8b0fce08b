import Foundation
import GRDB
import Logging
import Testing
@testable import LocAuditUnitTests
@testable import LocAuditAudit
@testable import LocAuditIngest
@testable import LocAuditModel
@testable import LocAuditRules
@testable import LocAuditReport

/// A generated fleet inbox (scripts/generate_fleet.py): DEVICE-DATE.log.gz, sidecars, apps/*.plist.
func generateFleet(into dir: String, devices: Int = 3, size: String = "400K", date: String = "2026-11-20", seed: Int = 1) throws {
    let result = try run("/usr/bin/env", ["python3", packageRoot.appendingPathComponent("scripts/generate_fleet.py").path,
                                           "--out", dir, "--size", size, "--devices", "\(devices)", "--date", date, "--seed", "\(seed)"])
    #expect(result.status == 0, "\(result.stderr)")
}

/// The device id a generated log's sidecar gives (its UniqueDeviceID).
func sidecarDevice(_ log: String) throws -> String? {
    let text = try String(contentsOfFile: log.replacingOccurrences(of: ".log.gz", with: ".ideviceinfo.txt"), encoding: .utf8)
    return DeviceFacts.parse(ideviceinfo: text).id
}

/// Files under a folder, relative to it, sorted.
func listing(_ dir: String) -> [String] {
    let base = URL(fileURLWithPath: dir).standardizedFileURL.path
    let walker = FileManager.default.enumerator(atPath: base)
    var out: [String] = []
    while let name = walker?.nextObject() as? String {
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: base + "/" + name, isDirectory: &isDir), !isDir.boolValue { out.append(name) }
    }
    return out.sorted()
}

/// Run options for an inbox written a moment ago: no waiting for files to settle.
func settled(_ options: RunOptions) -> RunOptions {
    var options = options
    options.settle = 0
    return options
}

/// `locaudit run` end to end, with the real binary where processes matter.
@Suite(.serialized, .tags(.endToEnd), .ownThreads) struct NightlyRunTests {
    @Test("a fleet inbox goes in, is audited, reported and archived; a second run is a no-op")
    func inboxTwiceThenArchive() throws {
        let ws = try Workspace()
        let inbox = ws.dir.appendingPathComponent("inbox").path
        try generateFleet(into: inbox)
        let before = listing(inbox)
        let db = ws.store.path
        let reports = ws.dir.appendingPathComponent("reports").path
        try FileManager.default.createDirectory(atPath: reports, withIntermediateDirectories: true)   // report folders are never created
        let first = try run(locauditExecutable, ["run", "--inbox", inbox, "--db", db, "--settle", "0", "--jobs", "2",
                                                 "--report", "text:\(reports)/run.txt", "--report", "jsonl:\(reports)/findings.jsonl",
                                                 "--report", "fleet:\(reports)/fleet.txt"])
        #expect([0, 1].contains(first.status), "\(first.stderr)")
        let text = try String(contentsOfFile: reports + "/run.txt", encoding: .utf8)
        let plists = listing(inbox + "/apps").count
        #expect(plists > 0)
        #expect(text.contains("3 new logs, \(plists) new Info.plists, 0 already ingested, 0 failed"), "\(text)")
        #expect(text.contains("Audited: devices all; apps "), "new Info.plists touch their apps on every device: \(text)")
        #expect(!text.contains("Device facts unknown"))
        #expect(try ws.count("SELECT count(*) FROM sources WHERE container = 'idevicesyslog' AND os_version IS NOT NULL") == 3)
        let findings = try ws.count("SELECT count(*) FROM findings")
        #expect(findings > 0)
        let jsonl = try String(contentsOfFile: reports + "/findings.jsonl", encoding: .utf8)
        #expect(jsonl.split(separator: "\n").count == findings)
        #expect(try String(contentsOfFile: reports + "/fleet.txt", encoding: .utf8).contains("Open findings by app and iOS version"))
        #expect(first.stderr.contains("info") && first.stderr.contains("ingested"), "logs go to stderr with levels")
        let events = try ws.count("SELECT count(*) FROM events")

        let second = try run(locauditExecutable, ["run", "--inbox", inbox, "--db", db, "--settle", "0", "--verbose"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stderr.contains("debug") && second.stderr.contains("already ingested \(inbox)/apps/"), "--verbose logs every file")
        #expect(second.stdout.contains("Nothing new: nothing audited."), "\(second.stdout)")
        #expect(second.stderr.contains("nothing new"))
        #expect(try ws.count("SELECT count(*) FROM audit_runs") == 1)
        #expect(try ws.count("SELECT count(*) FROM events") == events)
        #expect(listing(inbox) == before, "without --archive nothing moves")

        let archive = ws.dir.appendingPathComponent("archive").path
        let third = try run(locauditExecutable, ["run", "--inbox", inbox, "--db", db, "--settle", "0", "--archive", archive, "--quiet"])
        #expect(third.status == 0, "\(third.stderr)")
        #expect(third.stdout.isEmpty && third.stderr.isEmpty, "--quiet prints nothing when all is well")
        #expect(listing(archive) == before, "same relative layout, sidecars and apps/ included")
        #expect(listing(inbox).isEmpty)
    }

    @Test("a relative inbox: sidecars travel with their logs (read as facts, archived beside them), never as files of their own")
    func relativeInbox() throws {
        let ws = try Workspace()
        try generateFleet(into: ws.dir.appendingPathComponent("inbox").path, devices: 2, size: "100K")
        let before = listing(ws.dir.appendingPathComponent("inbox").path)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: locauditExecutable)
        p.arguments = ["run", "--inbox", "inbox", "--db", "test.sqlite", "--settle", "0", "--archive", "archive"]
        p.currentDirectoryURL = ws.dir
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect([0, 1].contains(p.terminationStatus))
        #expect(stdout.contains("2 new logs, \(listing(ws.dir.appendingPathComponent("archive/apps").path).count) new Info.plists, 0 already ingested"), "\(stdout)")
        #expect(!stdout.contains("ideviceinfo files") && !stdout.contains("Not archived"), "\(stdout)")
        #expect(try ws.count("SELECT count(*) FROM sources WHERE container = 'ideviceinfo'") == 0)
        #expect(listing(ws.dir.appendingPathComponent("archive").path) == before)
    }

    @Test("new data for one device audits only that device and its apps")
    func auditScopeIsWhatTheNewDataTouches() throws {
        let ws = try Workspace()
        let inbox = ws.dir.appendingPathComponent("inbox").path
        try generateFleet(into: inbox, devices: 2, size: "200K")
        let first = try NightlyRun(options: settled(RunOptions(inbox: inbox, database: ws.store.path)), logger: Logger(label: "test")).run()
        #expect(first.devices == nil, "new Info.plists: their apps on every device")
        #expect(first.audit != nil)
        // The next day: one device only, no new app plists.
        let next = ws.dir.appendingPathComponent("next").path
        try generateFleet(into: next, devices: 1, size: "100K", date: "2026-11-21", seed: 2)
        try FileManager.default.removeItem(atPath: next + "/apps")
        for name in listing(next) { try FileManager.default.moveItem(atPath: next + "/" + name, toPath: inbox + "/" + name) }
        let second = try NightlyRun(options: settled(RunOptions(inbox: inbox, database: ws.store.path)), logger: Logger(label: "test")).run()
        #expect(second.newFiles.map { ($0.path as NSString).lastPathComponent } == ["qa-fleet-01-2026-11-21.log.gz"])
        let device = try #require(try sidecarDevice(inbox + "/qa-fleet-01-2026-11-21.log.gz"))
        #expect(second.devices == [device])
        let apps = try #require(second.apps)
        #expect(!apps.isEmpty)
        let newSource = try #require(second.newFiles.first?.sourceId)
        let inNewLog = Set(try ws.rows("SELECT DISTINCT bundle_id FROM events WHERE source_id = ? AND bundle_id IS NOT NULL", [newSource]).map { $0[0] as String })
        #expect(apps == inNewLog)
        let everyApp = try ws.count("SELECT count(DISTINCT bundle_id) FROM events")
        #expect(apps.count < everyApp, "the other device's apps are not audited again")
        let options = try #require(try ws.rows("SELECT options FROM audit_runs ORDER BY id DESC LIMIT 1").first?[0] as String?)
        #expect(options.contains(#""device":"\#(device)""#), "\(options)")
        let sessions = try ws.count("SELECT count(*) FROM audit_runs r WHERE r.id = ? AND r.sessions > 0", [second.audit?.runId])
        #expect(sessions == 1)
        #expect(second.audit?.findings.allSatisfy { $0.device == device && apps.contains($0.bundleId) } == true)
    }

    @Test("an audit scoped to two devices of three replays and records only theirs")
    func auditScopeOfSeveralDevices() throws {
        let ws = try Workspace()
        let inbox = ws.dir.appendingPathComponent("inbox").path
        try generateFleet(into: inbox, devices: 3, size: "150K")
        _ = try NightlyRun(options: settled(RunOptions(inbox: inbox, database: ws.store.path)), logger: Logger(label: "test")).run()
        let devices = try ws.rows("SELECT DISTINCT device_id FROM sessions ORDER BY 1").map { $0[0] as String }
        #expect(devices.count == 3)
        let third = try ws.rows("SELECT * FROM sessions WHERE device_id = ? ORDER BY id", [devices[2]]).map(\.description)
        var options = AuditOptions()
        options.devices = Set(devices.prefix(2))
        let report = try Auditor(databasePath: ws.store.path, options: options).run()
        #expect(report.coverage.sessions == (try ws.count("SELECT count(*) FROM sessions WHERE device_id IN (?, ?)", [devices[0], devices[1]])))
        #expect(report.coverage.sessions < (try ws.count("SELECT count(*) FROM sessions")))
        #expect(try ws.rows("SELECT * FROM sessions WHERE device_id = ? ORDER BY id", [devices[2]]).map(\.description) == third,
                "the third device's sessions are left as they were")
        #expect(report.findings.allSatisfy { devices.prefix(2).contains($0.device) })
        options.device = devices[2]
        #expect(options.devices == [devices[2]] && options.device == devices[2], "--device is a scope of one")
    }

    @Test("one corrupt file: the others land, the report names it, exit 5, it stays in the inbox")
    func corruptFile() throws {
        let ws = try Workspace()
        let inbox = ws.dir.appendingPathComponent("inbox").path
        try generateFleet(into: inbox, devices: 2, size: "200K")
        let good = try Data(contentsOf: URL(fileURLWithPath: inbox + "/qa-fleet-01-2026-11-20.log.gz"))
        let bad = inbox + "/qa-fleet-09-2026-11-20.log.gz"
        try good.prefix(good.count / 2).write(to: URL(fileURLWithPath: bad))
        let archive = ws.dir.appendingPathComponent("archive").path
        let result = try run(locauditExecutable, ["run", "--inbox", inbox, "--db", ws.store.path, "--settle", "0", "--archive", archive])
        #expect(result.status == 5, "\(result.stderr)")
        #expect(result.stdout.contains("2 new logs, \(listing(archive + "/apps").count) new Info.plists, 0 already ingested, 1 failed"), "\(result.stdout)")
        #expect(result.stdout.contains("Failed (nothing of these was stored"))
        #expect(result.stdout.contains("qa-fleet-09-2026-11-20.log.gz: "))
        #expect(result.stderr.contains("error") && result.stderr.contains("qa-fleet-09"))
        #expect(try ws.count("SELECT count(*) FROM sources WHERE container = 'idevicesyslog'") == 2)
        #expect(try ws.count("SELECT count(*) FROM audit_runs") == 1)
        // Its failure is counted (the third night of the same failure moves it to failed/: NightlyInputsTests).
        #expect(listing(inbox) == [".locaudit-failures", "qa-fleet-09-2026-11-20.log.gz"], "a failed file is never archived")
    }

    @Test("a file changed within --settle seconds waits with its sidecar: not ingested, not archived, named in the report and the log")
    func unsettledFilesWait() throws {
        let ws = try Workspace()
        let inbox = ws.dir.appendingPathComponent("inbox").path
        try generateFleet(into: inbox, devices: 3, size: "100K")
        // Copied two minutes ago, but 02's log and 03's sidecar are still being written.
        func touch(_ name: String, _ date: Date) throws {
            try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: inbox + "/" + name)
        }
        for name in listing(inbox) { try touch(name, Date().addingTimeInterval(-120)) }
        let waiting = ["qa-fleet-02-2026-11-20.log.gz", "qa-fleet-03-2026-11-20.ideviceinfo.txt"]
        for name in waiting { try touch(name, Date()) }
        let archive = ws.dir.appendingPathComponent("archive").path
        let first = try run(locauditExecutable, ["run", "--inbox", inbox, "--db", ws.store.path, "--archive", archive])
        #expect([0, 1].contains(first.status), "\(first.stderr)")
        #expect(first.stdout.contains("1 new logs"), "\(first.stdout)")
        #expect(first.stdout.contains("Left for the next run (it or its sidecar changed in the last 60 s):\n  \(inbox)/qa-fleet-02-2026-11-20.log.gz\n  \(inbox)/qa-fleet-03-2026-11-20.log.gz\n"), "\(first.stdout)")
        for name in ["qa-fleet-02-2026-11-20.log.gz", "qa-fleet-03-2026-11-20.log.gz"] {
            #expect(first.stderr.contains("\(inbox)/\(name): it or its sidecar changed in the last 60 s; left for the next run"), "\(first.stderr)")
        }
        #expect(try ws.count("SELECT count(*) FROM sources WHERE container = 'idevicesyslog'") == 1)
        #expect(listing(inbox) == ["qa-fleet-02-2026-11-20.ideviceinfo.txt", "qa-fleet-02-2026-11-20.log.gz",
                                   "qa-fleet-03-2026-11-20.ideviceinfo.txt", "qa-fleet-03-2026-11-20.log.gz"],
                "a log waits with its sidecar, whichever of the two is still changing")

        // The next night they have settled.
        for name in listing(inbox) { try touch(name, Date().addingTimeInterval(-120)) }
        let second = try run(locauditExecutable, ["run", "--inbox", inbox, "--db", ws.store.path, "--archive", archive])
        #expect([0, 1].contains(second.status), "\(second.stderr)")
        #expect(second.stdout.contains("2 new logs, 0 new Info.plists"), "\(second.stdout)")
        #expect(!second.stdout.contains("Left for the next run"))
        #expect(listing(inbox).isEmpty)
        #expect(try ws.count("SELECT count(*) FROM sources WHERE container = 'idevicesyslog' AND os_version IS NOT NULL") == 3)
    }

    @Test("a log that ends inside a line: the rest is stored, the report says so, it stays in the inbox for the next run")
    func heldBackLineStaysInTheInbox() throws {
        let ws = try Workspace()
        let inbox = ws.dir.appendingPathComponent("inbox").path
        let whole = IncompleteInputTests.coarseLog
        let log = try ws.write("inbox/device-2026-11-20.log", String(whole.dropLast(20)))
        try ws.write("inbox/device-2026-11-20.ideviceinfo.txt", IncompleteInputTests.facts)
        var options = settled(RunOptions(inbox: inbox, database: ws.store.path))
        options.archive = ws.dir.appendingPathComponent("archive").path
        let first = try NightlyRun(options: options, logger: Logger(label: "test")).run()
        let stored = try #require(first.newLogs.first)
        let lines = whole.split(separator: "\n").count
        #expect(stored.heldBackFrom == lines)
        #expect(RunSummaryReporter.generateReport(first).contains("Held back (the file ends inside a line: a copy still under way? It stays in the inbox for the next run):\n  \(log): from line \(lines)\n"),
                "\(RunSummaryReporter.generateReport(first))")
        #expect(first.archived.isEmpty)
        #expect(listing(inbox) == ["device-2026-11-20.ideviceinfo.txt", "device-2026-11-20.log"])

        try ws.write("inbox/device-2026-11-20.log", whole)
        let second = try NightlyRun(options: options, logger: Logger(label: "test")).run()
        #expect(second.newLogs.first?.events == 1, "only the line held back")
        #expect(second.newLogs.first?.heldBackFrom == nil)
        #expect(listing(inbox).isEmpty)
        #expect(try ws.count("SELECT count(*) FROM events") == (stored.events ?? 0) + 1)
    }

    @Test("two runs started together: the lock holds, nothing is doubled, one audit")
    func twoRunsTogether() throws {
        let ws = try Workspace()
        let inbox = ws.dir.appendingPathComponent("inbox").path
        try generateFleet(into: inbox, devices: 3, size: "300K")
        let processes = (0..<2).map { n in
            let p = Process()
            p.executableURL = URL(fileURLWithPath: locauditExecutable)
            let report = ws.dir.appendingPathComponent("report-\(n).txt").path
            p.arguments = ["run", "--inbox", inbox, "--db", ws.store.path, "--settle", "0", "--jobs", "1", "--wait", "60", "--report", "text:\(report)"]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            return p
        }
        for p in processes { try p.run() }
        for p in processes { p.waitUntilExit() }
        #expect(processes.allSatisfy { [0, 1].contains($0.terminationStatus) }, "\(processes.map(\.terminationStatus))")
        #expect(try ws.count("SELECT count(*) FROM sources WHERE container = 'idevicesyslog'") == 3)
        #expect(try ws.count("SELECT count(*) FROM (SELECT content_sha256 FROM sources GROUP BY 1 HAVING count(*) > 1)") == 0)
        #expect(try ws.count("SELECT count(*) FROM audit_runs") == 1, "the second run found nothing new")
    }

    @Test("a run that cannot get the lock in --wait exits 4 and says who holds it")
    func lockTimeout() throws {
        let ws = try Workspace()
        let inbox = ws.dir.appendingPathComponent("inbox").path
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        let held = try RunLock(database: ws.store.path, wait: 0)
        let started = Date()
        let result = try run(locauditExecutable, ["run", "--inbox", inbox, "--db", ws.store.path, "--wait", "1"])
        #expect(result.status == 4)
        #expect(Date().timeIntervalSince(started) >= 1)
        #expect(result.stderr.contains("holds \(ws.store.path).lock"), "\(result.stderr)")
        #expect(result.stderr.contains("pid \(getpid())"))
        withExtendedLifetime(held) {}
        let prune = try run(locauditExecutable, ["prune", "--older-than", "30d", "--db", ws.store.path, "--wait", "0"])
        #expect(prune.status == 4, "prune takes the same lock")
    }

    @Test("usage errors exit 2: no inbox, a lock file that cannot be locked, bad inventory, negative --settle")
    func usageErrors() throws {
        let ws = try Workspace()
        #expect(try run(locauditExecutable, ["run", "--inbox", ws.dir.appendingPathComponent("nope").path, "--db", ws.store.path]).status == 2)
        // (A database in a missing folder is a store error, exit 6: StoreErrorTests.)
        try FileManager.default.createDirectory(atPath: RunLock.path(forDatabase: ws.store.path), withIntermediateDirectories: true)
        let unlockable = try run(locauditExecutable, ["run", "--inbox", ws.dir.path, "--db", ws.store.path])
        #expect(unlockable.status == 2)
        #expect(unlockable.stderr.contains("cannot lock"), "\(unlockable.stderr)")
        try FileManager.default.removeItem(atPath: RunLock.path(forDatabase: ws.store.path))
        let csv = try ws.write("inv.csv", "udid,name\nA,b\n")
        let bad = try run(locauditExecutable, ["run", "--inbox", ws.dir.path, "--db", ws.store.path, "--inventory", csv])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("header row"))
        let settle = try run(locauditExecutable, ["run", "--inbox", ws.dir.path, "--db", ws.store.path, "--settle=-1"])
        #expect(settle.status == 2)
        #expect(settle.stderr.contains("--settle must be a number of seconds, 0 or more"), "\(settle.stderr)")
    }
}

/// Device facts for fleet files: sidecar, inventory, neither.
@Suite(.tags(.endToEnd), .ownThreads) struct DeviceFactsLookupTests {
    @Test("a sidecar wins, the inventory fills logs without one, the rest are reported unknown")
    func sidecarInventoryUnknown() throws {
        let ws = try Workspace()
        let inbox = ws.dir.appendingPathComponent("inbox").path
        try generateFleet(into: inbox, devices: 3, size: "150K")
        // 01 keeps its sidecar; 02 loses it and is in the inventory (by name); 03 loses it and is not.
        try FileManager.default.removeItem(atPath: inbox + "/qa-fleet-02-2026-11-20.ideviceinfo.txt")
        try FileManager.default.removeItem(atPath: inbox + "/qa-fleet-03-2026-11-20.ideviceinfo.txt")
        let inventory = try Inventory.parse("""
            udid,name,product_type,os_version
            00008030-AAAA,qa-fleet-01,"iPhone12,1",9.9
            00008030-BBBB,QA-Fleet-02,"iPhone13,2",16.7.2
            """, path: "inv.csv")
        var options = settled(RunOptions(inbox: inbox, database: ws.store.path))
        options.inventory = inventory
        let report = try NightlyRun(options: options, logger: Logger(label: "test")).run()
        let byName = Dictionary(uniqueKeysWithValues: report.newLogs.map { (($0.path as NSString).lastPathComponent, $0) })
        let sidecar = try String(contentsOfFile: inbox + "/qa-fleet-01-2026-11-20.ideviceinfo.txt", encoding: .utf8)
        #expect(byName["qa-fleet-01-2026-11-20.log.gz"]?.iosVersion == DeviceFacts.parse(ideviceinfo: sidecar).osVersion)
        #expect(byName["qa-fleet-02-2026-11-20.log.gz"]?.iosVersion == "16.7.2")
        #expect(byName["qa-fleet-02-2026-11-20.log.gz"]?.device == "00008030-BBBB")
        #expect(inventory.devices[1].productType == "iPhone13,2", "quoted cells keep their commas")
        #expect(byName["qa-fleet-03-2026-11-20.log.gz"]?.iosVersion == nil)
        #expect(report.unknownFacts.map { ($0.path as NSString).lastPathComponent } == ["qa-fleet-03-2026-11-20.log.gz"])
        let text = RunSummaryReporter.generateReport(report)
        #expect(text.contains("Device facts unknown"))
        #expect(text.contains("qa-fleet-03-2026-11-20.log.gz: device qa-fleet-03, iOS unknown"), "\(text)")
    }

}
