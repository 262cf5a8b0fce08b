import Foundation
import LocAuditIngest
import LocAuditModel
import LocAuditRead
#if canImport(Glibc)
import Glibc
#endif

/// The program that reads one device's live log.
public enum CaptureCollector: String, CaseIterable, Sendable {
    case idevicesyslog, pymobiledevice3

    /// The program looked for on PATH.
    public var tool: String { rawValue }

    /// Its command line for one device.
    public func arguments(udid: String) -> [String] {
        switch self {
        case .idevicesyslog: return ["idevicesyslog", "-u", udid]
        case .pymobiledevice3: return ["pymobiledevice3", "syslog", "live", "--udid", udid]
        }
    }
}

/// What `locaudit capture` is asked to do.
public struct CaptureOptions: Sendable {
    /// The inbox the files go to (the folder `locaudit run --inbox` reads).
    public var out: String
    public var collector: CaptureCollector = .idevicesyslog
    /// Seconds between two `idevice_id -l`.
    public var poll: TimeInterval = 5
    /// Seconds between two gzip members of a file: what a crash or a full disk can lose at most.
    public var flush: TimeInterval = 10
    /// The longest wait before a collector that exited (or a device whose file could not be
    /// written) is tried again; the wait starts at a second and doubles.
    public var maxBackoff: TimeInterval = 60
    /// Stop after this many seconds (`--for`), as on SIGTERM; nil: run until a signal.
    public var duration: TimeInterval?

    public init(out: String) { self.out = out }
}

/// Capture cannot start: a missing folder or program (exit 2).
public struct CaptureError: Error, CustomStringConvertible, Sendable {
    public var description: String
}

/// `locaudit capture`: one collector per attached device, one gzipped file per device and local
/// day in the inbox layout `run` reads (`InboxName`), each written under a hidden name and
/// renamed once whole (at local midnight, on unplug, after a failed write, when capture stops).
/// One thread: it polls the device list, reads every collector's pipes (`poll(2)`), and writes
/// whole lines as gzip members (`GzipMemberFile`), so that a file is a valid gzip at every moment.
public final class Capture {
    let options: CaptureOptions
    let log: (String) -> Void
    private var devices: [String: DeviceCapture] = [:]
    /// UDIDs `idevice_id -l` listed last.
    private var present: Set<String> = []
    private let stopSignal = Locked<String?>(nil)
    private var listFailed = false
    private var sequence = 0
    /// Temporary files whose rename failed: tried again at every poll.
    private var unplaced: [PendingFile] = []
    /// Files closed (renamed to their final names) so far.
    public private(set) var closed: [String] = []

    public init(options: CaptureOptions, log: @escaping (String) -> Void) {
        self.options = options
        self.log = log
    }

    /// Runs until SIGTERM or SIGINT, then closes every file. Throws only when it cannot start.
    public func run() throws {
        try preflight()
        let lock = try lockFolder()
        defer { _ = close(lock) }
        tzset()
        let signals = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [stopSignal] in stopSignal.withLock { $0 = $0 ?? (number == SIGINT ? "SIGINT" : "SIGTERM") } }
            source.resume()
            return source
        }
        defer { signals.forEach { $0.cancel() } }
        recoverLeftovers()
        note("capture: into \(options.out); devices from `idevice_id -l` every \(RunReport.seconds(options.poll)) s, "
            + "`\(options.collector.arguments(udid: "UDID").joined(separator: " "))` for each")
        var nextPoll = Date.distantPast
        let end = options.duration.map { Date().addingTimeInterval($0) }
        while stopSignal.withLock({ $0 }) == nil {
            let now = Date()
            if let end, now >= end {
                stopSignal.withLock { $0 = $0 ?? "--for \(RunReport.seconds(options.duration ?? 0)) s" }
                break
            }
            if now >= nextPoll {
                pollDevices()
                retryUnplaced()
                nextPoll = Date().addingTimeInterval(options.poll)
            }
            let today = Capture.localDay()
            for udid in devices.keys.sorted() { if let d = devices[udid] { step(d, today: today) } }
            readOutput(timeout: 200)
            reap()
        }
        let why = stopSignal.withLock { $0 } ?? "stop"
        // Every collector told at once, then each waited for in turn: a stop takes about the
        // slowest one's time, not their sum.
        for d in devices.values { d.child?.signal(SIGTERM) }
        for udid in devices.keys.sorted() { if let d = devices[udid] { detach(d, why: "capture stopped (\(why))") } }
        devices = [:]
        retryUnplaced()
        note("capture: stopped (\(why)); \(closed.count) files closed")
    }

    // MARK: Devices

    private func preflight() throws {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: options.out, isDirectory: &isDir), isDir.boolValue else {
            throw CaptureError(description: "--out \(options.out): no such folder; create it (mkdir -p \(options.out)), "
                + "the inbox `locaudit run --inbox` reads.")
        }
        guard access(options.out, W_OK | X_OK) == 0 else {
            throw CaptureError(description: "--out \(options.out): this user cannot write there; let it (chown or chmod), or give another folder.")
        }
        for tool in ["idevice_id", "ideviceinfo", options.collector.tool] where Capture.onPath(tool) == nil {
            let package = tool == "pymobiledevice3"
                ? "pymobiledevice3 (pipx install pymobiledevice3)" : "libimobiledevice-utils (apt-get install libimobiledevice-utils)"
            throw CaptureError(description: "\(tool) is not on PATH (\(ProcessInfo.processInfo.environment["PATH"] ?? "")): install \(package)"
                + (tool == "idevicesyslog" ? ", or give --collector pymobiledevice3." : "."))
        }
    }

    /// One capture a folder: `OUT/.locaudit-capture.lock` (hidden: run never reads it), held
    /// with `flock` while capture runs, its pid inside. A second capture is told who holds it.
    private func lockFolder() throws -> Int32 {
        let path = "\(options.out)/.locaudit-capture.lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw CaptureError(description: "--out \(options.out): cannot create \(path): \(String(cString: strerror(errno))).") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            var bytes = [UInt8](repeating: 0, count: 32)
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
            let holder = String(decoding: bytes.prefix(max(0, n)), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            _ = close(fd)
            throw CaptureError(description: "another locaudit capture\(holder.isEmpty ? "" : " (pid \(holder))") writes to \(options.out): "
                + "one capture a folder. Stop it first, or give another --out.")
        }
        _ = ftruncate(fd, 0)
        let pid = Array("\(getpid())\n".utf8)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return fd
    }

    static func onPath(_ tool: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let path = "\(dir)/\(tool)"
            if access(path, X_OK) == 0 { return path }
        }
        return nil
    }

    private func pollDevices() {
        let result = Child.output(["idevice_id", "-l"], timeout: 10)
        guard result.status == 0 else {
            if !listFailed {
                note("capture: `idevice_id -l` failed (exit \(result.status): \(Capture.firstLine(result.err + result.out))); is usbmuxd running? "
                    + "The devices attached stay as they are; asking again every \(RunReport.seconds(options.poll)) s")
            }
            listFailed = true
            return
        }
        if listFailed { note("capture: `idevice_id -l` answers again") }
        listFailed = false
        var listed: [String] = []
        for line in result.out.split(separator: 0x0a) {
            guard let word = line.split(whereSeparator: { $0 == 0x20 || $0 == 0x09 || $0 == 0x0d }).first,
                  (8...64).contains(word.count),
                  word.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5a).contains($0) || (0x61...0x7a).contains($0) || $0 == 0x2d })
            else { continue }
            let udid = String(decoding: word, as: UTF8.self)
            if !listed.contains(udid) { listed.append(udid) }
        }
        present = Set(listed)
        for udid in devices.keys.sorted() where !present.contains(udid) {
            if let d = devices[udid] { detach(d, why: "unplugged") }
            devices[udid] = nil
        }
        for udid in listed where devices[udid] == nil { attach(udid) }
    }

    private func attach(_ udid: String) {
        let d = DeviceCapture(udid: udid)
        devices[udid] = d
        guard refreshInfo(d) else { d.nextInfo = Date().addingTimeInterval(options.poll); return }
        note("\(d.label): attached (\(d.facts.productType ?? "?"), iOS \(d.facts.osVersion ?? "?")\(d.facts.timeZone.map { ", \($0)" } ?? ""))")
        d.restartAt = .distantPast
    }

    /// `ideviceinfo -u UDID` into the device's facts; false (logged once) when it fails: a
    /// device that does not trust this host yet. Tried again at the next poll.
    private func refreshInfo(_ d: DeviceCapture) -> Bool {
        let result = Child.output(["ideviceinfo", "-u", d.udid], timeout: 15)
        let facts = DeviceFacts.parse(ideviceinfo: String(decoding: result.out, as: UTF8.self))
        guard result.status == 0, facts.udid != nil || facts.osVersion != nil else {
            if d.info == nil, !d.infoFailed {
                note("\(d.udid): `ideviceinfo -u \(d.udid)` failed (exit \(result.status): \(Capture.firstLine(result.err + result.out))); "
                    + "not captured until it answers (unlock the device and trust this computer)")
            }
            d.infoFailed = true
            return false
        }
        d.infoFailed = false
        d.info = result.out
        d.facts = facts
        d.name = facts.name.flatMap(InboxName.sanitised) ?? InboxName.sanitised(d.udid) ?? "device"
        return true
    }

    /// One turn of the loop for a device: its day, its collector, its pending lines.
    private func step(_ d: DeviceCapture, today: CivilDate) {
        if d.info == nil {
            // Not trusted yet: ask again at the next poll, not on every turn.
            if Date() >= d.nextInfo {
                d.nextInfo = Date().addingTimeInterval(options.poll)
                if refreshInfo(d) {
                    note("\(d.label): attached (\(d.facts.productType ?? "?"), iOS \(d.facts.osVersion ?? "?"))")
                    d.restartAt = .distantPast
                }
            }
            return
        }
        if let file = d.file, file.day != today {
            flush(d)
            // The new day's sidecar holds the facts read at attach, not asked again: 40 devices'
            // `ideviceinfo` would stall every collector's pipe at midnight. An iOS update
            // reboots the device, which detaches and attaches it (facts read again).
            closeFile(d, why: "midnight")
        }
        if d.file == nil, d.child != nil || !d.pending.isEmpty, !openFile(d, day: today) {
            // No file to write the running collector's lines to (openFile said why): it stops.
            if let c = d.child { stopChild(c, d) }
            d.child = nil
            d.pending = []
            d.fragment = []
        }
        if d.child == nil, let at = d.restartAt, Date() >= at, present.contains(d.udid) { startCollector(d, today: today) }
        if d.pending.count >= DeviceCapture.memberBytes || (!d.pending.isEmpty && Date().timeIntervalSince(d.lastFlush) >= options.flush) {
            flush(d)
        }
    }

    private func startCollector(_ d: DeviceCapture, today: CivilDate) {
        d.restartAt = nil
        if d.file == nil, !openFile(d, day: today) { return }
        switch Child.start(options.collector.arguments(udid: d.udid)) {
        case .success(let child):
            d.child = child
            if d.starts > 0 { note("\(d.label): \(options.collector.tool) restarted (pid \(child.pid))") }
            d.starts += 1
        case .failure(let error):
            retryLater(d, "cannot start \(options.collector.tool): \(error)")
        }
    }

    private func retryLater(_ d: DeviceCapture, _ why: String, doing: String = "restarting") {
        let wait = d.backoff
        d.backoff = min(d.backoff * 2, options.maxBackoff)
        d.restartAt = Date().addingTimeInterval(wait)
        note("\(d.label): \(why); \(doing) in \(RunReport.seconds(wait)) s")
    }

    // MARK: Output

    /// Waits up to `timeout` ms for output of any collector, and takes what is there.
    private func readOutput(timeout: Int32) {
        var fds: [pollfd] = []
        for c in devices.values.compactMap(\.child) {
            for fd in [c.out, c.err] where fd >= 0 { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
        }
        if fds.isEmpty { usleep(UInt32(timeout) * 1000); return }
        guard poll(&fds, nfds_t(fds.count), timeout) > 0 else { return }
        for d in devices.values { take(d) }
    }

    private func take(_ d: DeviceCapture) {
        guard let c = d.child else { return }
        d.add(Child.readAvailable(&c.out))
        let err = Child.readAvailable(&c.err)
        if !err.isEmpty {
            d.errFragment += err
            while let nl = d.errFragment.firstIndex(of: 0x0a) {
                let line = Array(d.errFragment[..<nl])
                d.errFragment.removeSubrange(...nl)
                if !line.isEmpty { note("\(d.label): \(options.collector.tool): \(Capture.firstLine(line))") }
            }
            if d.errFragment.count > 4096 { d.errFragment = [] }
        }
    }

    /// Collectors that exited: restarted after a wait that doubles (up to `maxBackoff`), back
    /// to a second after a run of a minute or more. The file stays open: both runs' lines go in it.
    private func reap() {
        for udid in devices.keys.sorted() {
            guard let d = devices[udid], let c = d.child, let status = c.exited() else { continue }
            take(d)
            c.closePipes()
            d.endLine()
            d.child = nil
            let ran = Date().timeIntervalSince(c.started)
            if ran >= 60 { d.backoff = 1 }
            flush(d)
            let how = status > 128 ? "signal \(status - 128)" : "status \(status)"
            retryLater(d, "\(options.collector.tool) exited (\(how)) after \(String(format: "%.1f", ran)) s")
        }
    }

    /// Writes the device's whole lines as one gzip member.
    private func flush(_ d: DeviceCapture) {
        d.lastFlush = Date()
        guard !d.pending.isEmpty, let file = d.file else { return }
        do {
            try file.gzip.append(d.pending)
            file.lines += d.pending.reduce(0) { $0 + ($1 == 0x0a ? 1 : 0) }
            d.pending = []
        } catch let error as GzipWriteError {
            writeFailed(d, error)
        } catch {
            note("\(d.label): ERROR compressing: \(error)")
            d.pending = []
        }
    }

    /// A write failed (a full disk): the file keeps its whole members and is closed under its
    /// final name, the collector stops, the device is tried again later. Capture goes on.
    private func writeFailed(_ d: DeviceCapture, _ error: GzipWriteError) {
        let lost = d.pending.reduce(0) { $0 + ($1 == 0x0a ? 1 : 0) }
        d.pending = []
        d.fragment = []
        let kept = d.file.map { $0.gzip.size > 0
            ? "the \(Capture.lines($0.lines)) written before stay in it (\($0.gzip.size) bytes, whole gzip members)"
            : "it held nothing yet and is removed" } ?? ""
        note("\(d.label): ERROR writing \(error.path): \(error.cause); \(Capture.lines(lost)) not stored; \(kept). "
            + (error.isFull ? "Free space in \(options.out) (or move the closed files out of it)" : "Check the folder and its disk")
            + "; this device is tried again later")
        if let c = d.child { stopChild(c, d); d.child = nil }
        d.pending = []
        closeFile(d, why: "write failed")
        retryLater(d, "\(options.collector.tool) stopped after the failed write", doing: "retrying")
    }

    // MARK: Files

    private func openFile(_ d: DeviceCapture, day: CivilDate) -> Bool {
        sequence += 1
        let base = "\(options.out)/.\(d.udid)-\(day).\(getpid())-\(sequence)"
        let pending = PendingFile(log: base + Capture.tempLog, sidecar: base + Capture.tempSidecar, name: d.name, day: day)
        do {
            try Capture.create(pending.sidecar, d.info ?? [])
            d.file = OpenFile(pending: pending, gzip: try GzipMemberFile(creating: pending.log))
            d.lastFlush = Date()
            return true
        } catch {
            unlink(pending.sidecar)
            let why = (error as? GzipWriteError).map { "\($0.path): \($0.cause)" } ?? "\(error)"
            note("\(d.label): ERROR creating its file \(why); free space in \(options.out) or fix its permissions; this device is tried again later")
            retryLater(d, "no file to write to", doing: "retrying")
            return false
        }
    }

    /// Closes a device's file: renamed to its final name, or removed when it holds nothing.
    private func closeFile(_ d: DeviceCapture, why: String) {
        guard let file = d.file else { return }
        d.file = nil
        file.gzip.close()
        guard file.gzip.size > 0 else {
            unlink(file.pending.log)
            unlink(file.pending.sidecar)
            return
        }
        if let final = place(file.pending) {
            note("\(d.label): closed \(final) (\(why); \(Capture.lines(file.lines)), \(file.gzip.size) bytes)")
        } else {
            unplaced.append(file.pending)
        }
    }

    /// Renames a closed file and its sidecar to their final names, never over an existing file:
    /// `NAME-DAY`, else `NAME-DAY-2`, `-3`... (nor over a name this capture gave before). The sidecar goes first, its time set to now, so
    /// that a `run` that looks between the two renames leaves the pair for its next night
    /// (`--settle`). Nil (logged) when it cannot.
    private func place(_ file: PendingFile) -> String? {
        for serial in 1...999 {
            let stem = InboxName.stem(device: file.name, day: file.day, serial: serial)
            let log = "\(options.out)/\(InboxName.log(stem))", sidecar = "\(options.out)/\(InboxName.sidecar(stem))"
            // A name this capture gave already is not reused either: the nightly run may have
            // archived that file since, and would find its name taken in the archive.
            if closed.contains(log) || FileManager.default.fileExists(atPath: log) || FileManager.default.fileExists(atPath: sidecar) { continue }
            switch Capture.move(file.sidecar, to: sidecar) {
            case .exists: continue
            case .failed(let code):
                note("capture: ERROR renaming \(file.sidecar) to \(sidecar): \(String(cString: strerror(code))); tried again at the next poll")
                return nil
            case .done: break
            }
            _ = utimes(sidecar, nil)
            switch Capture.move(file.log, to: log) {
            case .done: closed.append(log); return log
            case .exists:
                _ = Capture.move(sidecar, to: file.sidecar)
                continue
            case .failed(let code):
                _ = Capture.move(sidecar, to: file.sidecar)
                note("capture: ERROR renaming \(file.log) to \(log): \(String(cString: strerror(code))); tried again at the next poll")
                return nil
            }
        }
        note("capture: ERROR: 999 files of \(file.name) on \(file.day) already; \(file.log) stays as it is")
        return nil
    }

    enum Move { case done, exists, failed(Int32) }

    /// `from` to `to`, never replacing `to`: a hard link then an unlink (atomic: `link` fails on an
    /// existing name); where the file system has no hard links, a rename after a look.
    static func move(_ from: String, to: String) -> Move {
        if link(from, to) == 0 { unlink(from); return .done }
        let code = errno
        if code == EEXIST { return .exists }
        guard code == EPERM || code == ENOTSUP || code == EOPNOTSUPP || code == EMLINK else { return .failed(code) }
        if access(to, F_OK) == 0 { return .exists }
        return rename(from, to) == 0 ? .done : .failed(errno)
    }

    private func retryUnplaced() {
        unplaced = unplaced.filter { file in
            guard let final = place(file) else { return true }
            note("capture: closed \(final) (its rename had failed before)")
            return false
        }
    }

    static let tempLog = ".log.gz.capturing"
    static let tempSidecar = ".ideviceinfo.txt.capturing"

    /// Files a capture left under their temporary names (killed, a power cut): whole gzip
    /// members up to its last write, renamed now as a file closed then would have been.
    private func recoverLeftovers() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: options.out)) ?? []
        for name in names.sorted() where name.hasPrefix(".") && name.hasSuffix(Capture.tempLog) {
            let base = String(name.dropLast(Capture.tempLog.count))
            let log = "\(options.out)/\(name)", sidecar = "\(options.out)/\(base)\(Capture.tempSidecar)"
            guard let day = InboxName.day(ofFileName: base) else { continue }
            let info = FileManager.default.contents(atPath: sidecar).map { Array($0) } ?? []
            if info.isEmpty { _ = FileManager.default.createFile(atPath: sidecar, contents: nil) }
            let facts = DeviceFacts.parse(ideviceinfo: String(decoding: info, as: UTF8.self))
            let udid = InboxName.deviceKey(ofFileName: String(base.dropFirst())).map(String.init)
            let deviceName = facts.name.flatMap(InboxName.sanitised) ?? udid.flatMap(InboxName.sanitised) ?? "device"
            let size = (try? FileManager.default.attributesOfItem(atPath: log)[.size] as? Int64) ?? 0
            if size == 0 {
                unlink(log); unlink(sidecar)
                continue
            }
            if let final = place(PendingFile(log: log, sidecar: sidecar, name: deviceName, day: day)) {
                note("capture: closed \(final) (left by a capture that did not stop cleanly)")
            }
        }
    }

    // MARK: Stopping

    /// Stops a collector: SIGTERM to its group, its last output read for up to 2 s, then SIGKILL.
    private func stopChild(_ c: Child, _ d: DeviceCapture) {
        c.signal(SIGTERM)
        let deadline = Date().addingTimeInterval(2)
        while Date() < deadline, c.exited() == nil {
            var fds = [c.out, c.err].filter { $0 >= 0 }.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            if fds.isEmpty { usleep(20_000) } else { _ = poll(&fds, nfds_t(fds.count), 50) }
            if d.file != nil { take(d) }
        }
        if c.exited() == nil {
            c.signal(SIGKILL)
            _ = c.exited(wait: true)
        }
        if d.file != nil { take(d) }
        c.closePipes()
    }

    private func detach(_ d: DeviceCapture, why: String) {
        if why == "unplugged" { note("\(d.label): detached (no longer listed by idevice_id)") }
        if let c = d.child { stopChild(c, d) }
        d.child = nil
        d.endLine()
        flush(d)
        closeFile(d, why: why)
    }

    /// A new file holding `bytes` (the sidecar), written whole or removed.
    static func create(_ path: String, _ bytes: [UInt8]) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw GzipWriteError(path: path, errno: errno, lost: 0) }
        if let code = GzipMemberFile.writeAll(fd, bytes) {
            _ = close(fd)
            unlink(path)
            throw GzipWriteError(path: path, errno: code, lost: 0)
        }
        _ = close(fd)
    }

    // MARK: Helpers

    private func note(_ text: String) { log(Printable.line(text)) }

    /// Today in the local zone (`TZ`, POSIX strings included), as the C library reads it.
    static func localDay() -> CivilDate {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        return CivilDate(year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday)) ?? CivilDate(year: 1970, month: 1, day: 1)!
    }

    static func lines(_ n: Int) -> String { n == 1 ? "1 line" : "\(n) lines" }

    /// A program's first line of output, for a log line.
    static func firstLine(_ bytes: [UInt8]) -> String {
        let line = bytes.split(separator: 0x0a).first.map { Array($0.prefix(200)) } ?? []
        return line.isEmpty ? "no output" : String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// A file being written, by its temporary names.
struct PendingFile {
    var log: String
    var sidecar: String
    var name: String
    var day: CivilDate
}

final class OpenFile {
    let pending: PendingFile
    let gzip: GzipMemberFile
    var lines = 0
    var day: CivilDate { pending.day }

    init(pending: PendingFile, gzip: GzipMemberFile) {
        self.pending = pending
        self.gzip = gzip
    }
}

/// One attached device.
final class DeviceCapture {
    /// The most a member holds before it is written (whole lines).
    static let memberBytes = 1 << 20
    /// A line longer than this without its newline is cut (memory stays bounded).
    static let longestLine = 1 << 20

    let udid: String
    var info: [UInt8]?
    var infoFailed = false
    var nextInfo = Date.distantPast
    var facts = DeviceFacts()
    var name = ""
    var child: Child?
    var starts = 0
    var restartAt: Date?
    var backoff: TimeInterval = 1
    var file: OpenFile?
    /// Whole lines waiting for the next member.
    var pending: [UInt8] = []
    /// The start of a line whose newline has not come yet.
    var fragment: [UInt8] = []
    var errFragment: [UInt8] = []
    var lastFlush = Date()

    init(udid: String) { self.udid = udid }

    var label: String { facts.name.map { "\($0) (\(udid))" } ?? udid }

    /// Bytes of the collector's output: whole lines to `pending`, the rest waits for its newline.
    func add(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        guard let last = bytes.lastIndex(of: 0x0a) else {
            fragment += bytes
            if fragment.count > DeviceCapture.longestLine { endLine() }
            return
        }
        pending += fragment
        pending += bytes[...last]
        fragment = Array(bytes[(last + 1)...])
    }

    /// The collector ended (or a line grew too long): its last partial line ends here.
    func endLine() {
        guard !fragment.isEmpty else { return }
        pending += fragment + [0x0a]
        fragment = []
    }
}
