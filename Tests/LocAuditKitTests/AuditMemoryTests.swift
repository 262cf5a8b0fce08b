import Foundation
import Testing
@testable import LocAuditUnitTests

/// The audit streams the events one app on one device at a time (issue 13): its memory
/// does not grow with the number of devices and apps in the store.
@Suite(.tags(.endToEnd), .ownThreads) struct AuditMemoryTests {
    /// A store of `devices` generated devices (about 5 apps and 16,000 events each).
    static func fleetStore(_ ws: Workspace, devices: Int) throws -> String {
        let inbox = ws.dir.appendingPathComponent("fleet-\(devices)").path
        let generated = try run("/usr/bin/env", ["python3", packageRoot.appendingPathComponent("scripts/generate_fleet.py").path,
                                                 "--out", inbox, "--size", "\(8 * devices)M", "--devices", "\(devices)",
                                                 "--location-share", "0.5"])
        #expect(generated.status == 0, "\(generated.stderr)")
        let db = ws.dir.appendingPathComponent("fleet-\(devices).sqlite").path
        let ingest = try run(locauditExecutable, ["ingest", "--db", db, "--quiet", inbox])
        #expect(ingest.status == 0, "\(ingest.stderr)")
        return db
    }

    /// Peak resident memory (KB) of `locaudit audit` on `db`, from python's rusage of its child.
    static func auditPeakKB(_ db: String) throws -> Int {
        let script = """
            import resource, subprocess, sys
            rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
            print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
            """
        let result = try run("/usr/bin/env", ["python3", "-c", script, locauditExecutable, "audit", "--db", db, "--quiet"])
        let fields = result.stdout.split(separator: " ").map { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        #expect(fields.count == 2 && [0, 1].contains(fields[0]), "audit failed: \(result.stdout) \(result.stderr)")
        return fields.count == 2 ? fields[1] ?? 0 : 0
    }

    @Test("auditing four devices takes about the memory of auditing one: events are read app by app, not all at once")
    func memoryFlatInDevices() throws {
        let ws = try Workspace()
        let one = try Self.auditPeakKB(try Self.fleetStore(ws, devices: 1))
        let four = try Self.auditPeakKB(try Self.fleetStore(ws, devices: 4))
        // Holding every event (and SQLite's cache of every page read) at once costs about
        // 40 MB more for the three more devices; one app's events at a time, a few.
        #expect(four - one < 12_000, "peak \(one) KB for one device, \(four) KB for four")
    }
}
