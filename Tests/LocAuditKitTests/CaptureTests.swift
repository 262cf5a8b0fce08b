import Foundation
import Testing
@testable import LocAuditUnitTests
@testable import LocAuditIngest
@testable import LocAuditModel

/// `locaudit capture`, the real binary, with libimobiledevice's programs replaced by shell
/// scripts on PATH that print real-shaped lines (no device here): `idevice_id -l` reads the
/// device list from a file the test edits (plug, unplug), `ideviceinfo -u UDID` prints a
/// device's `Key: Value` lines, `idevicesyslog -u UDID` runs the script the test gave for
/// that device and run (print lines, exit, or hang).
final class CaptureLab {
    let workspace: Workspace
    var dir: URL { workspace.dir }
    let bin: URL
    let inbox: URL
    let errors: URL
    private(set) var process: Process?

    init() throws {
        workspace = try Workspace()
        bin = workspace.dir.appendingPathComponent("bin")
        inbox = workspace.dir.appendingPathComponent("inbox")
        errors = workspace.dir.appendingPathComponent("capture.err")
        let fm = FileManager.default
        for sub in ["bin", "inbox", "info", "syslog", "runs"] {
            try fm.createDirectory(at: dir.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        let lab = dir.path
        try tool("idevice_id", """
            [ "$1" = "-l" ] || { echo "usage: idevice_id -l" >&2; exit 64; }
            cat '\(lab)/devices.txt' 2>/dev/null
            exit 0
            """)
        try tool("ideviceinfo", """
            [ "$1" = "-u" ] && [ -f '\(lab)/info/'"$2.txt" ] && exec cat '\(lab)/info/'"$2.txt"
            echo "ERROR: Device $2 not found!" >&2
            exit 1
            """)
        // Run N of a device: syslog/UDID.N.sh when there is one, else syslog/UDID.sh.
        try tool("idevicesyslog", """
            [ "$1" = "-u" ] || { echo "usage: idevicesyslog -u UDID" >&2; exit 64; }
            n=$(( $(cat '\(lab)/runs/'"$2" 2>/dev/null || echo 0) + 1 ))
            echo $n > '\(lab)/runs/'"$2"
            [ -f '\(lab)/syslog/'"$2.$n.sh" ] && exec sh '\(lab)/syslog/'"$2.$n.sh"
            exec sh '\(lab)/syslog/'"$2.sh"
            """)
        try tool("pymobiledevice3", """
            [ "$1 $2 $3" = "syslog live --udid" ] || { echo "pymobiledevice3: unexpected arguments: $*" >&2; exit 64; }
            exec '\(bin.path)/idevicesyslog' -u "$4"
            """)
        try plug([])
    }

    private func tool(_ name: String, _ body: String) throws {
        let path = bin.appendingPathComponent(name).path
        try ("#!/bin/sh\n" + body + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
    }

    /// A device `ideviceinfo -u` knows (the keys real output has, among its others).
    func device(_ udid: String, name: String, type: String = "iPhone15,2", os: String = "17.5.1", zone: String = "Europe/Paris") throws {
        try workspace.write("info/\(udid).txt", """
            ActivationState: Activated
            BuildVersion: 21F90
            DeviceClass: iPhone
            DeviceName: \(name)
            HardwareModel: D73AP
            ProductName: iPhone OS
            ProductType: \(type)
            ProductVersion: \(os)
            TimeZone: \(zone)
            UniqueDeviceID: \(udid)

            """)
    }

    /// What the device's collector does on run `run` (nil: every run without its own script).
    func syslog(_ udid: String, run: Int? = nil, _ script: String) throws {
        try workspace.write("syslog/\(udid)\(run.map { ".\($0)" } ?? "").sh", script + "\n")
    }

    /// The devices `idevice_id -l` lists from now on (written whole, then renamed).
    func plug(_ udids: [String]) throws {
        let list = dir.appendingPathComponent("devices.txt")
        try (udids.map { $0 + "\n" }.joined()).write(to: list, atomically: true, encoding: .utf8)
    }

    var environment: [String: String] {
        ["PATH": bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"), "TZ": "UTC"]
    }

    /// Starts `locaudit capture --out inbox`, its stderr in capture.err.
    func start(_ extra: [String] = [], environment more: [String: String] = [:]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: locauditExecutable)
        process.arguments = ["capture", "--out", inbox.path, "--poll", "0.2", "--flush", "0.2"] + extra
        process.environment = ProcessInfo.processInfo.environment.merging(environment.merging(more) { $1 }) { $1 }
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: errors)
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
    }

    var pid: Int32 { process?.processIdentifier ?? 0 }

    /// What capture logged so far.
    var log: String { (try? String(contentsOf: errors, encoding: .utf8)) ?? "" }

    /// Waits (up to `seconds`) until `condition` holds; false when it never did.
    @discardableResult
    func wait(_ seconds: Double = 15, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(50_000)
        }
        return condition()
    }

    func waitForLog(_ text: String, _ seconds: Double = 15) -> Bool { wait(seconds) { log.contains(text) } }

    /// SIGTERM, as `systemctl stop` sends it; the exit status.
    func stop() -> Int32 {
        guard let process else { return -1 }
        process.terminate()
        process.waitUntilExit()
        self.process = nil
        return process.terminationStatus
    }

    deinit {
        if let process, process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// The inbox's file names, sorted.
    var files: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: inbox.path)) ?? []).sorted() }

    /// A gzip file's text, checked with the real gzip (`gzip -t` first).
    func gunzip(_ path: String) throws -> String? {
        guard try run("/bin/sh", ["-c", "gzip -t \"$0\"", path]).status == 0 else { return nil }
        return try run("/bin/sh", ["-c", "gzip -dc \"$0\"", path]).stdout
    }

    static func today() -> String {
        let f = DateFormatter()
        f.timeZone = TimeZone(identifier: "UTC")
        f.locale = Locale(identifier: "en_US_POSIX")
        f.dateFormat = "yyyy-MM-dd"
        return f.string(from: Date())
    }
}

/// An idevicesyslog line as a script prints it.
private func line(_ device: String, _ message: String) -> String {
    "echo '\(syslogLine("Nov 27 09:14:07", "locationd", 66, message, device: device))'"
}

@Suite(.serialized, .tags(.endToEnd), .ownThreads) struct CaptureTests {
    static let ipad = "00008103-001A2B3C4D5E6F70"
    static let phone = "00008110-000A1B2C3D4E5F60"

    @Test("plug, a collector that dies, a second device, unplug, SIGTERM: every file closed as a valid gzip with its sidecar; run ingests them with the right devices")
    func plugDieUnplugStop() throws {
        let lab = try CaptureLab()
        let day = CaptureLab.today()
        try lab.device(Self.ipad, name: "QA iPad 12", type: "iPad13,4", os: "17.5.1")
        try lab.device(Self.phone, name: "qa-iphone14", type: "iPhone14,7", os: "16.7.2", zone: "America/New_York")
        // The iPad's first run prints two lines and dies; the second prints one more and hangs.
        try lab.syslog(Self.ipad, run: 1, [line("QA-iPad", "run 1 line 1"), line("QA-iPad", "run 1 line 2"),
                                           "echo 'ERROR: Could not connect to lockdownd' >&2", "exit 3"].joined(separator: "\n"))
        try lab.syslog(Self.ipad, [line("QA-iPad", "run 2 line 1"), "exec sleep 4711.5"].joined(separator: "\n"))
        try lab.syslog(Self.phone, [line("qa-iphone14", "phone line 1"), line("qa-iphone14", "phone line 2"), "exec sleep 4711.5"].joined(separator: "\n"))

        try lab.plug([Self.ipad])
        try lab.start()
        #expect(lab.waitForLog("QA iPad 12 (\(Self.ipad)): attached (iPad13,4, iOS 17.5.1, Europe/Paris)"), "\(lab.log)")
        #expect(lab.waitForLog("idevicesyslog exited (status 3)"), "\(lab.log)")
        #expect(lab.log.contains("idevicesyslog: ERROR: Could not connect to lockdownd"))
        #expect(lab.log.contains("restarting in 1 s"))
        #expect(lab.waitForLog("idevicesyslog restarted"), "\(lab.log)")
        // While it is written, the file has a hidden name only: run reads nothing of it.
        #expect(lab.files.allSatisfy { $0.hasPrefix(".") }, "\(lab.files)")
        #expect(try Ingester.expand([lab.inbox.path]).files.isEmpty)

        // Plug the phone in.
        try lab.plug([Self.ipad, Self.phone])
        #expect(lab.waitForLog("qa-iphone14 (\(Self.phone)): attached"), "\(lab.log)")

        // Unplug the iPad: its file is closed, renamed, whole.
        try lab.plug([Self.phone])
        #expect(lab.waitForLog("QA iPad 12 (\(Self.ipad)): detached"), "\(lab.log)")
        let ipadLog = lab.inbox.appendingPathComponent("QA-iPad-12-\(day).log.gz").path
        #expect(lab.waitForLog("closed \(ipadLog) (unplugged; 3 lines"), "\(lab.log)")
        let text = try #require(try lab.gunzip(ipadLog))
        #expect(text.split(separator: "\n").map { String($0.split(separator: ": ").last ?? "") } == ["run 1 line 1", "run 1 line 2", "run 2 line 1"])
        let sidecar = try String(contentsOfFile: lab.inbox.appendingPathComponent("QA-iPad-12-\(day).ideviceinfo.txt").path, encoding: .utf8)
        #expect(DeviceFacts.parse(ideviceinfo: sidecar).udid == Self.ipad)

        // The closed file reads as it is, with the sidecar's facts.
        let db = lab.dir.appendingPathComponent("unplugged.sqlite").path
        let ingest = try run(locauditExecutable, ["ingest", "--db", db, ipadLog])
        #expect(ingest.status == 0, "\(ingest.stdout)\(ingest.stderr)")
        #expect(ingest.stdout.contains("idevicesyslog · \(Self.ipad) · iOS 17.5.1"), "\(ingest.stdout)")

        // A run archives the closed file during the day; the iPad comes back: its new file does
        // not take the name again (the archive holds it).
        let archived = lab.dir.appendingPathComponent("archived")
        try FileManager.default.createDirectory(at: archived, withIntermediateDirectories: true)
        for name in ["QA-iPad-12-\(day).log.gz", "QA-iPad-12-\(day).ideviceinfo.txt"] {
            try FileManager.default.moveItem(at: lab.inbox.appendingPathComponent(name), to: archived.appendingPathComponent(name))
        }
        try lab.plug([Self.phone, Self.ipad])
        #expect(lab.wait { lab.log.components(separatedBy: "QA iPad 12 (\(Self.ipad)): attached").count == 3 }, "\(lab.log)")
        usleep(500_000)

        // SIGTERM: the open files are closed too; capture exits 0; nothing hidden is left.
        #expect(lab.stop() == 0, "\(lab.log)")
        #expect(lab.log.contains("closed \(lab.inbox.path)/qa-iphone14-\(day).log.gz (capture stopped (SIGTERM); 2 lines"), "\(lab.log)")
        #expect(lab.log.contains("capture: stopped (SIGTERM); 3 files closed"))
        #expect(lab.files == [".locaudit-capture.lock", "QA-iPad-12-\(day)-2.ideviceinfo.txt", "QA-iPad-12-\(day)-2.log.gz",
                              "qa-iphone14-\(day).ideviceinfo.txt", "qa-iphone14-\(day).log.gz"])
        #expect(try lab.gunzip(lab.inbox.appendingPathComponent("qa-iphone14-\(day).log.gz").path)?.contains("phone line 2") == true)
        // Nothing capture started is left running.
        #expect(try run("/usr/bin/env", ["pgrep", "-f", "sleep 4711.5"]).status == 1, "a collector outlived capture")

        // The nightly run over capture's inbox: both logs, each with its device's facts.
        let nightly = lab.workspace.store.path
        let result = try run(locauditExecutable, ["run", "--inbox", lab.inbox.path, "--db", nightly, "--settle", "0"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let rows = try lab.workspace.rows("SELECT path, device_id, os_version, container, gzip_members FROM sources ORDER BY path")
        #expect(rows.map { ($0["path"] as String).hasSuffix(".log.gz") } == [true, true], "\(rows)")
        #expect(rows.map { $0["device_id"] as String } == [Self.ipad, Self.phone])
        #expect(rows.map { $0["os_version"] as String } == ["17.5.1", "16.7.2"])
        #expect(rows.allSatisfy { ($0["container"] as String) == "idevicesyslog" && ($0["gzip_members"] as Int) >= 1 })
        let devices = try lab.workspace.rows("SELECT id, name, product_type FROM devices ORDER BY id")
        #expect(devices.map { $0["name"] as String } == ["QA iPad 12", "qa-iphone14"])
    }

    @Test("local midnight (TZ as a POSIX string seconds before it): the day's file is closed and a new one with its sidecar starts, no line lost or doubled")
    func midnight() throws {
        let lab = try CaptureLab()
        try lab.device(Self.ipad, name: "QA iPad 12")
        try lab.syslog(Self.ipad, """
            i=1
            while :; do echo "Nov 27 23:59:58 QA-iPad locationd[66] <Notice>: line $i"; i=$((i+1)); sleep 0.1; done
            """)
        try lab.plug([Self.ipad])
        // A zone where local midnight is 5 s away: "CAP-hh:mm:ss" is UTC+hh:mm:ss (POSIX TZ).
        let utc = Int(Date().timeIntervalSince1970) % 86_400
        let offset = (86_400 - 5 - utc + 86_400) % 86_400
        let zone = String(format: "CAP-%02d:%02d:%02d", offset / 3600, offset % 3600 / 60, offset % 60)
        let local = Date().addingTimeInterval(TimeInterval(offset))
        let f = DateFormatter()
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd"
        let before = f.string(from: local), after = f.string(from: local.addingTimeInterval(10))
        #expect(before != after)
        try lab.start(environment: ["TZ": zone])
        #expect(lab.waitForLog("closed \(lab.inbox.path)/QA-iPad-12-\(before).log.gz (midnight;", 12), "\(zone): \(lab.log)")
        // A few lines into the new day, then stop.
        usleep(700_000)
        #expect(lab.stop() == 0)
        #expect(lab.files == [".locaudit-capture.lock", "QA-iPad-12-\(after).ideviceinfo.txt", "QA-iPad-12-\(after).log.gz",
                              "QA-iPad-12-\(before).ideviceinfo.txt", "QA-iPad-12-\(before).log.gz"].sorted(), "\(lab.log)")
        let first = try #require(try lab.gunzip(lab.inbox.appendingPathComponent("QA-iPad-12-\(before).log.gz").path))
        let second = try #require(try lab.gunzip(lab.inbox.appendingPathComponent("QA-iPad-12-\(after).log.gz").path))
        let numbers = (first + second).split(separator: "\n").compactMap { Int($0.split(separator: " ").last ?? "") }
        #expect(!first.isEmpty && !second.isEmpty)
        #expect(numbers == Array(1...max(1, numbers.count)), "\(numbers)")
        let sidecar = try String(contentsOfFile: lab.inbox.appendingPathComponent("QA-iPad-12-\(after).ideviceinfo.txt").path, encoding: .utf8)
        #expect(DeviceFacts.parse(ideviceinfo: sidecar).osVersion == "17.5.1")
    }

    @Test("a full disk (a 96 KiB tmpfs in a private mount namespace): a clear error naming the file, the lines written before kept as a valid gzip under the final name, the device retried, capture alive until SIGTERM")
    func fullDisk() throws {
        let probe = try run("/usr/bin/env", ["unshare", "-m", "sh", "-c", "mount -t tmpfs -o size=16k tmpfs /mnt && umount /mnt"])
        try #require(probe.status == 0, "unshare -m and a tmpfs mount need root in a container that allows them: \(probe.stderr)")
        let lab = try CaptureLab()
        let day = CaptureLab.today()
        try lab.device(Self.ipad, name: "QA iPad 12")
        let printed = lab.dir.appendingPathComponent("printed").path
        // Lines that do not compress (random base64), in bursts, more than the disk holds.
        try lab.syslog(Self.ipad, run: 1, """
            for i in $(seq 1 60); do
              head -c 3000 /dev/urandom | base64 -w 76 | sed 's/^/Nov 27 09:14:07 QA-iPad locationd[66] <Notice>: /' | tee -a '\(printed)'
              sleep 0.05
            done
            exec sleep 1000
            """)
        try lab.syslog(Self.ipad, [line("QA-iPad", "after the full disk"), "exec sleep 1000"].joined(separator: "\n"))
        try lab.plug([Self.ipad])
        let copy = lab.dir.appendingPathComponent("copy")
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        // The tmpfs lives as long as its namespace: the script copies what capture left out of it.
        // Once the disk is full, it does what the error says: moves the closed file out, which
        // frees the space; the device's next try then writes again.
        let inbox = lab.inbox.path, stem = "\(inbox)/QA-iPad-12-\(day)"
        let script = """
            mount -t tmpfs -o size=96k tmpfs '\(inbox)' || exit 90
            '\(locauditExecutable)' capture --out '\(inbox)' --poll 0.2 --flush 0.2 2> '\(lab.errors.path)' &
            pid=$!
            for i in $(seq 1 150); do grep -q 'ERROR writing' '\(lab.errors.path)' && break; sleep 0.1; done
            sleep 0.5
            kill -0 $pid && echo alive
            mkdir -p '\(copy.path)/first' && mv '\(stem).log.gz' '\(stem).ideviceinfo.txt' '\(copy.path)/first/'
            for i in $(seq 1 150); do grep -q 'idevicesyslog restarted' '\(lab.errors.path)' && break; sleep 0.1; done
            sleep 1
            kill -TERM $pid; wait $pid; echo "exit=$?"
            cp -a '\(inbox)/.' '\(copy.path)/'
            """
        let result = try run("/usr/bin/env", ["unshare", "-m", "sh", "-c", script], environment: lab.environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("alive") && result.stdout.contains("exit=0"), "\(result.stdout)\(lab.log)")
        let log = lab.log
        #expect(log.contains("ERROR writing \(lab.inbox.path)/.\(Self.ipad)-\(day)."), "\(log)")
        #expect(log.contains(": No space left on device;") && log.contains("Free space in \(lab.inbox.path)"), "\(log)")
        #expect(log.contains("closed \(lab.inbox.path)/QA-iPad-12-\(day).log.gz (write failed;"), "\(log)")
        #expect(log.contains("idevicesyslog stopped after the failed write; retrying in 1 s") && log.contains("idevicesyslog restarted"), "\(log)")
        #expect(log.contains("capture: stopped (SIGTERM)"))
        let names = try FileManager.default.contentsOfDirectory(atPath: copy.path)
        #expect(!names.contains { $0.hasSuffix(".capturing") }, "\(names)")
        // After the space was freed: the device's next run, in a new file (not under the name
        // of the one moved out).
        let next = try #require(try lab.gunzip(copy.appendingPathComponent("QA-iPad-12-\(day)-2.log.gz").path))
        #expect(next.hasSuffix("after the full disk\n"))
        // The file the disk filled: what was written before the failed write, a valid gzip.
        let kept = try #require(try lab.gunzip(copy.appendingPathComponent("first/QA-iPad-12-\(day).log.gz").path))
        let all = try String(contentsOfFile: printed, encoding: .utf8)
        // Whole lines, the first ones printed, fewer than all of them.
        #expect(kept.count > 10_000 && kept.count < all.count && kept.hasSuffix("\n"))
        #expect(all.hasPrefix(kept))
        #expect(names.contains("QA-iPad-12-\(day)-2.ideviceinfo.txt"))
        #expect(FileManager.default.fileExists(atPath: copy.appendingPathComponent("first/QA-iPad-12-\(day).ideviceinfo.txt").path))
    }

    @Test("capture started again the same day never overwrites a file: the next is NAME-DAY-2; a file left hidden by a killed capture is renamed at start; --collector pymobiledevice3")
    func restartSameDay() throws {
        let lab = try CaptureLab()
        let day = CaptureLab.today()
        try lab.device(Self.ipad, name: "QA iPad 12")
        try lab.syslog(Self.ipad, [line("QA-iPad", "a line"), "exec sleep 1000"].joined(separator: "\n"))
        try lab.plug([Self.ipad])
        try lab.start()
        #expect(lab.waitForLog("attached"), "\(lab.log)")
        usleep(600_000)
        #expect(lab.stop() == 0)
        let first = lab.inbox.appendingPathComponent("QA-iPad-12-\(day).log.gz")
        let firstBytes = try Data(contentsOf: first)

        // A capture killed with -9 left a file and its sidecar under their hidden names.
        let base = ".\(Self.ipad)-\(day).4242-1"
        try Data(try gzip(Array("Nov 27 09:00:00 QA-iPad locationd[66] <Notice>: left behind\n".utf8)))
            .write(to: lab.inbox.appendingPathComponent(base + ".log.gz.capturing"))
        try FileManager.default.copyItem(at: lab.dir.appendingPathComponent("info/\(Self.ipad).txt"),
                                         to: lab.inbox.appendingPathComponent(base + ".ideviceinfo.txt.capturing"))

        try lab.start(["--collector", "pymobiledevice3"])
        #expect(lab.waitForLog("closed \(lab.inbox.path)/QA-iPad-12-\(day)-2.log.gz (left by a capture that did not stop cleanly)"), "\(lab.log)")
        #expect(lab.waitForLog("`pymobiledevice3 syslog live --udid UDID` for each"), "\(lab.log)")
        #expect(lab.waitForLog("attached"), "\(lab.log)")
        usleep(600_000)
        #expect(lab.stop() == 0)
        #expect(!lab.log.contains("unexpected arguments"), "\(lab.log)")
        #expect(try Data(contentsOf: first) == firstBytes)
        #expect(lab.files == [".locaudit-capture.lock", "QA-iPad-12-\(day)-2.ideviceinfo.txt", "QA-iPad-12-\(day)-2.log.gz",
                              "QA-iPad-12-\(day)-3.ideviceinfo.txt", "QA-iPad-12-\(day)-3.log.gz",
                              "QA-iPad-12-\(day).ideviceinfo.txt", "QA-iPad-12-\(day).log.gz"].sorted(), "\(lab.log)")
        #expect(try lab.gunzip(lab.inbox.appendingPathComponent("QA-iPad-12-\(day)-2.log.gz").path)?.contains("left behind") == true)
        #expect(try lab.gunzip(lab.inbox.appendingPathComponent("QA-iPad-12-\(day)-3.log.gz").path)?.contains("a line") == true)
        // Each suffixed file finds its own sidecar, and the inventory's device key is the name.
        let third = lab.inbox.appendingPathComponent("QA-iPad-12-\(day)-3.log.gz").path
        #expect(Ingester.sidecar(of: third) == lab.inbox.appendingPathComponent("QA-iPad-12-\(day)-3.ideviceinfo.txt").path)
        #expect(InboxName.deviceKey(ofFileName: "QA-iPad-12-\(day)-3.log.gz") == "QA-iPad-12")
    }

    @Test("a device that does not answer ideviceinfo is not captured until it does; a missing program or --out folder is exit 2 with what to do")
    func untrustedAndMissing() throws {
        let lab = try CaptureLab()
        try lab.syslog(Self.ipad, "exec sleep 1000")
        try lab.plug([Self.ipad])
        try lab.start()
        #expect(lab.waitForLog("`ideviceinfo -u \(Self.ipad)` failed (exit 1: ERROR: Device \(Self.ipad) not found!)"), "\(lab.log)")
        try lab.device(Self.ipad, name: "QA iPad 12")
        #expect(lab.waitForLog("QA iPad 12 (\(Self.ipad)): attached"), "\(lab.log)")
        // One capture a folder: a second one is refused, the first goes on.
        let second = try run(locauditExecutable, ["capture", "--out", lab.inbox.path], environment: lab.environment)
        #expect(second.status == 2)
        #expect(second.stderr.contains("another locaudit capture (pid \(lab.pid)) writes to \(lab.inbox.path): one capture a folder."), "\(second.stderr)")
        #expect(lab.stop() == 0)

        let noTools = try run(locauditExecutable, ["capture", "--out", lab.inbox.path], environment: ["PATH": "/nonexistent"])
        #expect(noTools.status == 2)
        #expect(noTools.stderr.contains("idevice_id is not on PATH (/nonexistent): install libimobiledevice-utils"), "\(noTools.stderr)")
        let noFolder = try run(locauditExecutable, ["capture", "--out", lab.dir.appendingPathComponent("missing").path], environment: lab.environment)
        #expect(noFolder.status == 2)
        #expect(noFolder.stderr.contains("no such folder; create it (mkdir -p"), "\(noFolder.stderr)")
    }

    @Test("docs/ingest.md's systemd unit for capture: the installed path, Restart=always, SIGTERM to capture alone; its command line runs as written (for a second, on a lab)")
    func readmeSystemdService() throws {
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("docs/ingest.md"), encoding: .utf8)
        let blocks = readme.components(separatedBy: "```ini\n").dropFirst().map { $0.components(separatedBy: "\n```").first ?? "" }
        let unit = try #require(blocks.first { $0.contains("locaudit capture") })
        let lines = unit.split(separator: "\n").map(String.init)
        #expect(lines.contains("Restart=always") && lines.contains("KillMode=mixed"))
        let exec = try #require(lines.first { $0.hasPrefix("ExecStart=") })
        let words = exec.dropFirst("ExecStart=".count).split(separator: " ").map(String.init)
        #expect(words.prefix(2) == ["/usr/local/bin/locaudit", "capture"])
        #expect(readme.contains("/etc/systemd/system/locaudit-capture.service"))

        let lab = try CaptureLab()
        try lab.device(Self.ipad, name: "QA iPad 12")
        try lab.syslog(Self.ipad, [line("QA-iPad", "from the unit command line"), "exec sleep 1000"].joined(separator: "\n"))
        try lab.plug([Self.ipad])
        let arguments = words.dropFirst().map { $0 == "/srv/fleet/inbox" ? lab.inbox.path : $0 } + ["--poll", "0.2", "--for", "1.5"]
        #expect(arguments.contains(lab.inbox.path))
        let result = try run(locauditExecutable, Array(arguments), environment: lab.environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("capture: stopped (--for 1.5 s); 1 files closed"), "\(result.stderr)")
        #expect(try lab.gunzip(lab.inbox.appendingPathComponent("QA-iPad-12-\(CaptureLab.today()).log.gz").path)?
            .contains("from the unit command line") == true)
    }

}
