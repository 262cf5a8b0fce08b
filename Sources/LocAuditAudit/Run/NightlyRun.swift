import Foundation
import Logging
import LocAuditIngest
import LocAuditModel
import LocAuditRules
import LocAuditNormalise
import LocAuditRead
import LocAuditStore

/// What `locaudit run` is asked to do.
public struct RunOptions: Sendable {
    /// The folder the day's exports land in (read recursively).
    public var inbox: String
    public var database: String
    /// Device facts for logs without a sidecar.
    public var inventory: Inventory?
    /// Where ingested (and already ingested) files are moved, keeping their path under the inbox.
    public var archive: String?
    public var failOn: Severity = .high
    /// What the audit starts from: skipped rules, rule settings, suppressions (the project's config).
    public var audit = AuditOptions()
    public var jobs = IngestOptions.defaultJobs
    public var catalogFiles: [String] = []
    /// Seconds to wait for another run's lock before giving up (exit 4).
    public var lockWait: TimeInterval = 60
    /// The files are whole (`--complete`): a last line without its newline is read.
    public var complete = false
    /// A file modified less than this many seconds ago is still being written: it (with its
    /// sidecar) is left for the next run (`--settle`; 0 reads everything at once).
    public var settle: TimeInterval = 60
    /// The day of the first line of logs with times of day only (`--date`).
    public var date: CivilDate?
    /// The zone of zone-less logs whose device has none (`--tz`): a sidecar's or the
    /// inventory's zone wins.
    public var timeZone: TimeZone?
    /// Draw a progress bar on standard error when it is a terminal (not with `--quiet`).
    public var progress = false

    public init(inbox: String, database: String) {
        self.inbox = inbox
        self.database = database
    }
}

/// The outcome of one nightly run.
public struct RunReport: Sendable {
    public var inbox: String
    public var ingest: IngestReport
    /// The audit of what the new data touches; nil when nothing new was stored (or it mentions no app).
    public var audit: AuditReport?
    /// The devices and apps audited (nil: every one).
    public var devices: Set<String>?
    public var apps: Set<String>?
    /// Newly ingested logs whose device or iOS version stayed unknown.
    public var unknownFacts: [FileReport]
    /// Files left for the next run, untouched: they (or their sidecar) changed less than
    /// `settle` seconds before the run looked.
    public var settling: [String] = []
    /// The run's `--settle` seconds.
    public var settle: TimeInterval = 0
    /// New logs that ended inside a line: the rest is stored, the file stays in the inbox.
    public var heldBack: [FileReport] { newLogs.filter { $0.heldBackFrom != nil } }
    /// Files moved to the archive (inbox path -> archive path).
    public var archived: [(from: String, to: String)] = []
    /// Files that could not be moved, and why (they stay in the inbox).
    public var notArchived: [(path: String, why: String)] = []
    /// Files of the inbox that are no log at all (a README, an HTML page, a zip), and why:
    /// not read, not failed, left where they are.
    public var ignored: [(path: String, why: String)] = []
    /// Files that failed the same way on `FailureLedger.nights` nights, moved tonight to the
    /// inbox's `failed/` folder (with a `.why` beside each): inbox path, new path, the nights.
    public var quarantined: [(from: String, to: String, nights: [String])] = []
    /// When the earlier runs started that stored files but were stopped before their audit
    /// (killed, a reboot, a timeout): this run audited what they stored, with its own.
    public var owed: [String] = []

    public var newFiles: [FileReport] { ingest.files.filter { $0.outcome == .ingested } }
    /// New logs (not Info.plists, not ideviceinfo files).
    public var newLogs: [FileReport] { newFiles.filter(\.isLog) }
    public var failedFiles: [FileReport] { ingest.files.filter { $0.outcome == .failed } }
    public var nothingNew: Bool { newFiles.isEmpty && failedFiles.isEmpty }

    /// 5 when a file failed (the others were stored, audited and reported), else the audit's
    /// code (0, 1, 3); 0 when there was nothing new.
    public var exitCode: Int32 {
        if !failedFiles.isEmpty { return 5 }
        return audit?.exitCode ?? 0
    }
}

extension RunReport {
    /// Seconds as people write them: 60, 0.5.
    package static func seconds(_ value: TimeInterval) -> String { String(format: "%g", value) }
}

extension FileReport {
    /// A log (its events stored), not an Info.plist or an ideviceinfo file.
    var isLog: Bool { app == nil && container != Container.deviceInfo.rawValue }
}

/// `locaudit run`: ingest what is new in the inbox, audit what it touches, archive it.
public struct NightlyRun {
    let options: RunOptions
    let log: Logger

    public init(options: RunOptions, logger: Logger) {
        self.options = options
        self.log = logger
    }

    /// Runs under the database's lock. Reports are written by the caller from the result.
    public func run() throws -> RunReport {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: options.inbox, isDirectory: &isDir), isDir.boolValue else {
            throw RunError.inboxMissing(options.inbox)
        }
        // The store first: one that cannot be used is a store error (exit 6), not a lock error.
        let store = try Store(path: options.database)
        let lock = try RunLock(database: options.database, wait: options.lockWait) { holder in
            log.notice("waiting up to \(Int(options.lockWait)) s for another locaudit run\(holder.map { " (pid \($0))" } ?? "") to finish")
        }
        defer { withExtendedLifetime(lock) {} }
        log.debug("locked \(lock.path)")

        // What earlier runs stored but never audited (stopped between their ingest and their
        // audit): settled first, in this run's audit. Then this run's own debt, recorded
        // before anything is stored and settled once its audit is recorded.
        let owed = try store.owedAudits()
        let mine = try store.oweAudit()
        // New events get ids above this one: the scope query reads only them.
        let lastEventBefore = mine.afterEvent
        let inbox = try Ingester.expand([options.inbox])
        for link in inbox.links { log.notice("\(Ingester.linkSkipped(link, inside: "inbox"))") }
        // The inbox's failed/ folder holds the files that failed night after night: never read.
        var ignored: [(path: String, why: String)] = inbox.documents.filter { !isQuarantined($0) }
            .map { (path: $0, why: NotALog.reason($0) ?? "a document (.md), not a log") }
        var candidates: [String] = []
        for path in inbox.files where !isQuarantined(path) {
            if let why = NotALog.reason(path) { ignored.append((path: path, why: why)) } else { candidates.append(path) }
        }
        for (path, why) in ignored { log.info("\(Printable.line(path)): ignored, \(why)") }
        // An unreadable folder goes on to the ingest, which fails it (exit 5) with a sentence.
        let (ready, settling) = settled(candidates + inbox.unreadable.filter { !isQuarantined($0) })
        for path in settling {
            log.notice("\(Printable.line(path)): it or its sidecar changed in the last \(RunReport.seconds(options.settle)) s; left for the next run")
        }
        var ingestOptions = IngestOptions(paths: ready)
        ingestOptions.inventory = options.inventory
        ingestOptions.jobs = options.jobs
        ingestOptions.catalogFiles = options.catalogFiles
        ingestOptions.complete = options.complete
        ingestOptions.parse.date = options.date
        ingestOptions.fallbackZone = options.timeZone
        ingestOptions.quiet = !options.progress
        let ingest = try Ingester(store: store, options: ingestOptions).run { [log] file in
            switch file.outcome {
            case .ingested:
                log.info("ingested \(Printable.line(file.path)): \(Printable.line(file.device ?? file.app ?? "?")), \(file.events ?? 0) events")
                if let line = file.heldBackFrom {
                    log.notice("\(Printable.line(file.path)) ends inside line \(line): held back from there, the file stays in the inbox")
                }
            case .alreadyIngested: log.debug("already ingested \(Printable.line(file.path))")
            case .failed: log.error("FAILED \(Printable.line(file.path)): \(file.error ?? "unknown error")")
            }
        }
        let new = ingest.files.filter { $0.outcome == .ingested }
        let unknown = new.filter { $0.isLog && ($0.device == nil || $0.device == "unknown" || $0.iosVersion == nil) }
        var report = RunReport(inbox: options.inbox, ingest: ingest, unknownFacts: unknown, settling: settling, settle: options.settle)
        report.ignored = ignored
        for file in unknown {
            log.warning("\(Printable.line(file.path)): \(file.iosVersion == nil ? "iOS version" : "device") unknown; add a sidecar .ideviceinfo.txt or a row to the inventory")
        }

        NightlyRun.testHook("LOCAUDIT_TEST_STOP_BEFORE_AUDIT")
        var owedScope: Scope? = nil
        if !owed.isEmpty {
            report.owed = owed.map(\.startedAt)
            let earliest = AuditOwed(id: 0, startedAt: "", afterSource: owed.map(\.afterSource).min()!, afterEvent: owed.map(\.afterEvent).min()!)
            owedScope = try scope(storedAfter: earliest, in: store)
            for run in owed {
                log.notice("the run started \(run.startedAt) stored files but was stopped before its audit; auditing what it stored with this run's")
            }
        }
        let newScope = new.isEmpty ? nil : try scope(of: new, eventsAfter: lastEventBefore, in: store)
        if new.isEmpty, owedScope?.apps.isEmpty ?? true {
            log.notice(report.failedFiles.isEmpty
                ? "nothing new in \(Printable.line(options.inbox)) (\(ingest.files.count) files, all already ingested\(settling.isEmpty ? "" : "; \(settling.count) left for the next run")); nothing audited"
                : "nothing new stored from \(Printable.line(options.inbox)); \(report.failedFiles.count) files failed")
        } else {
            (report.devices, report.apps) = NightlyRun.union(owedScope, newScope)
            if let apps = report.apps, apps.isEmpty {
                log.notice("the \(new.count) new files mention no app; nothing to audit")
            } else {
                var audit = options.audit
                audit.devices = report.devices
                audit.bundleIds = report.apps
                audit.failOn = options.failOn
                audit.nightly = true
                log.info("auditing \(report.devices.map { "\($0.count) devices" } ?? "every device"), \(report.apps.map { "\($0.count) apps" } ?? "every app")")
                report.audit = try Auditor(databasePath: options.database, options: audit).run(progress: ProgressBar(quiet: !options.progress))
            }
        }
        // The audit is recorded (or there was nothing to audit): this run and those before owe nothing.
        try store.settle(owed + [mine])
        countFailures(&report)
        if let archive = options.archive { self.archive(into: archive, store: store, &report) }
        return report
    }

    /// A test hook, for the tests only: with `NAME=1` in the environment the process stops
    /// itself (SIGSTOP) at the moment the hook names, so that a test can kill it (`kill -9`)
    /// exactly there. `LOCAUDIT_TEST_STOP_BEFORE_AUDIT`: after the ingest, before the audit.
    /// Listed in docs/architecture.md (Test hooks); no user needs one.
    static func testHook(_ name: String) {
        if ProcessInfo.processInfo.environment[name] == "1" { raise(SIGSTOP) }
    }

    /// The inbox's files split into those to read now and those still being written: a
    /// file whose modification time is less than `settle` seconds old (every write moves it;
    /// a copy that sets it back, like `cp -p`, does so once the file is whole). A log and its
    /// sidecar wait together, whichever of the two is changing; a sidecar is never listed on
    /// its own (the ingest reads it with its log).
    func settled(_ files: [String]) -> (ready: [String], settling: [String]) {
        guard options.settle > 0 else { return (files, []) }
        let now = Date()
        func changing(_ path: String) -> Bool {
            guard let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date else { return false }
            return now.timeIntervalSince(modified) < options.settle
        }
        let sidecars = Set(files.compactMap(Ingester.sidecar(of:)))
        var ready: [String] = [], settling: [String] = []
        for path in files where !sidecars.contains(path) {
            if changing(path) || Ingester.sidecar(of: path).map(changing) == true { settling.append(path) } else { ready.append(path) }
        }
        return (ready, settling)
    }

    /// Devices (nil: every one) and apps to audit.
    typealias Scope = (devices: Set<String>?, apps: Set<String>)

    /// Two scopes as one: every device and app of either (a scope without apps adds nothing).
    static func union(_ a: Scope?, _ b: Scope?) -> Scope {
        let parts = [a, b].compactMap { $0 }.filter { !$0.apps.isEmpty }
        guard let first = parts.first else { return [a, b].compactMap { $0 }.first ?? (devices: [], apps: []) }
        return parts.dropFirst().reduce(first) { sum, next in
            let devices = sum.devices.flatMap { d in next.devices.map { d.union($0) } }
            return (devices: devices, apps: sum.apps.union(next.apps))
        }
    }

    /// What the sources stored after a run's record touch (the run was stopped before its
    /// audit), as `scope(of:)` reads it from the files' reports.
    func scope(storedAfter owed: AuditOwed, in store: Store) throws -> Scope {
        let stored = try store.stored(after: owed)
        var apps = stored.plistApps
        let sourceIds = stored.logs.map(\.sourceId)
        if !sourceIds.isEmpty {
            apps.formUnion(try store.apps(ofSources: sourceIds, eventsAfter: owed.afterEvent))
        }
        let devices: Set<String>? = stored.plistApps.isEmpty ? Set(stored.logs.compactMap(\.device)) : nil
        return (devices, apps)
    }

    /// The devices and apps new files touch: the devices of new logs and the apps of their
    /// events; a new Info.plist touches its app on every device.
    func scope(of new: [FileReport], eventsAfter lastEventBefore: Int64, in store: Store) throws -> (devices: Set<String>?, apps: Set<String>) {
        let plistApps = Set(new.compactMap(\.app))
        let logs = new.filter(\.isLog)
        let sourceIds = logs.compactMap(\.sourceId)
        var apps = plistApps
        if !sourceIds.isEmpty {
            apps.formUnion(try store.apps(ofSources: sourceIds, eventsAfter: lastEventBefore))
        }
        let devices: Set<String>? = plistApps.isEmpty ? Set(logs.compactMap(\.device)) : nil
        return (devices, apps)
    }

    /// Moves every file that is in the store (new or already there), with its sidecar, to the
    /// archive under the same relative path. A failed file stays where it is, and so does a
    /// file that ended inside a line (a copy that may yet be completed in place), and a file
    /// whose bytes are no longer those the store holds (replaced since its ingest: the next
    /// run reads it). Across file systems a file is copied to a hidden temporary name beside
    /// its target, synced, then renamed: a copy stopped half-way never stands under the
    /// final name. A file already under the final name is verified: the same bytes (a move
    /// stopped before the inbox's copy went) empty the inbox; bytes the store does not hold
    /// (a copy an earlier version left truncated) are replaced.
    func archive(into archive: String, store: Store, _ report: inout RunReport) {
        let fm = FileManager.default
        let inbox = URL(fileURLWithPath: options.inbox).standardizedFileURL.path
        let stored = report.ingest.files.filter { $0.outcome != .failed && $0.heldBackFrom == nil }.map(\.path)
        let queue = try? store.connect(readOnly: true)
        /// Whether these bytes (a file's size and SHA-256) are a file the store holds.
        func inStore(_ path: String) -> Bool {
            guard let queue, let size = FileIdentity(path)?.size else { return false }
            return (try? Store.firstIngest(size: size, sha256: { try ByteStream.fileSHA256(path: path) }, in: queue)) != nil
        }
        var moved = Set<String>()
        func move(_ path: String, sidecar: Bool) -> Bool {
            let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
            guard absolute.hasPrefix(inbox + "/"), moved.insert(absolute).inserted else { return false }
            let target = URL(fileURLWithPath: archive).appendingPathComponent(String(absolute.dropFirst(inbox.count + 1)))
            do {
                // The bytes the ingest read, still: else the file took the name since (mv, rsync).
                let before = FileIdentity(path)
                guard sidecar || inStore(path), let before, FileIdentity(path) == before else {
                    throw IngestError(description: "changed since its ingest (another file took its name?); left in the inbox, the next run reads it")
                }
                try ArchiveMove.makeFolders(target.deletingLastPathComponent().path)
                if fm.fileExists(atPath: target.path) {
                    if FileIdentity.sameBytes(path, target.path) {
                        try fm.removeItem(atPath: path)
                        log.notice("\(Printable.line(path)): already in the archive as \(Printable.line(target.path)) (a move stopped before it was done); removed from the inbox")
                        report.archived.append((path, target.path))
                        return true
                    }
                    guard !sidecar, !inStore(target.path) else {
                        throw IngestError(description: "\(Printable.line(target.path)) already exists; left in the inbox (it is in the store: remove it or the archived copy)")
                    }
                    log.notice("\(Printable.line(target.path)) was not the file it names (a copy that was stopped?); replaced by \(Printable.line(path))")
                }
                try ArchiveMove.move(path, to: target.path)
                report.archived.append((path, target.path))
                log.debug("archived \(Printable.line(path)) -> \(Printable.line(target.path))")
                return true
            } catch {
                let why = (error as? IngestError)?.description ?? ArchiveMove.sentence(error, target: target.path)
                report.notArchived.append((path, why))
                log.warning("not archived \(Printable.line(path)): \(Printable.line(why))")
                return false
            }
        }
        for path in stored where move(path, sidecar: false) {
            if let sidecar = Ingester.sidecar(of: path) { _ = move(sidecar, sidecar: true) }
        }
        // Reports cite the files where they are now: the store's sources and findings, and this run's report.
        do {
            try store.relocate(report.archived)
        } catch {
            log.warning("the archived files' new paths could not be recorded (\(error)); reports cite them in the inbox")
            return
        }
        let to = Dictionary(report.archived.map { ($0.from, $0.to) }, uniquingKeysWith: { _, last in last })
        if var audit = report.audit {
            for i in audit.findings.indices {
                for j in audit.findings[i].evidence.indices { audit.findings[i].evidence[j].file = to[audit.findings[i].evidence[j].file] ?? audit.findings[i].evidence[j].file }
            }
            report.audit = audit
        }
    }
}

/// What tells one file from the one that may take its name: device, inode, size and
/// modification time.
struct FileIdentity: Equatable {
    let device: UInt64, inode: UInt64, size: Int64, modified: Int64, modifiedNS: Int64

    init?(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        (device, inode, size) = (UInt64(info.st_dev), UInt64(info.st_ino), Int64(info.st_size))
        (modified, modifiedNS) = (Int64(info.st_mtim.tv_sec), Int64(info.st_mtim.tv_nsec))
    }

    /// Whether two files hold the same bytes (sizes first, then SHA-256).
    static func sameBytes(_ a: String, _ b: String) -> Bool {
        guard let x = FileIdentity(a), let y = FileIdentity(b), x.size == y.size else { return false }
        return (try? ByteStream.fileSHA256(path: a)) == (try? ByteStream.fileSHA256(path: b))
    }
}

/// A move into the archive that never leaves a partial file under the final name.
enum ArchiveMove {
    /// The hidden name a copy across file systems is written under, beside its target.
    static func temporary(_ target: String) -> String {
        let url = URL(fileURLWithPath: target)
        return url.deletingLastPathComponent().appendingPathComponent("." + url.lastPathComponent + ".locaudit-copy").path
    }

    /// `rename`, else (another file system) a copy to `temporary(target)`, synced, renamed
    /// over the target, its folder synced; then the source is removed.
    static func move(_ source: String, to target: String) throws {
        if rename(source, target) == 0 { return }
        guard errno == EXDEV else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let temporary = temporary(target)
        unlink(temporary) // a leftover of a copy that was stopped
        do {
            try copy(source, to: temporary)
            guard rename(temporary, target) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        } catch {
            unlink(temporary)
            throw error
        }
        let dir = open(URL(fileURLWithPath: target).deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dir >= 0 { fsync(dir); close(dir) }
        guard unlink(source) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    private static func copy(_ source: String, to target: String) throws {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(input) }
        let output = open(target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard output >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(output) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if n == 0 { break }
            guard n > 0 else {
                if errno == EINTR { continue }
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            var done = 0
            while done < n {
                let w = buffer.withUnsafeBytes { write(output, $0.baseAddress! + done, n - done) }
                guard w > 0 else {
                    if w < 0, errno == EINTR { continue }
                    throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .ENOSPC)
                }
                done += w
            }
        }
        guard fsync(output) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    /// `mkdir -p`: the missing folders of `path`, made one by one; a failure is the POSIX
    /// error it is (FileManager's is an NSError, whose text names neither file nor folder).
    static func makeFolders(_ path: String) throws {
        // The folders that are missing, deepest first (a loop: no recursion).
        var missing: [String] = []
        var folder = path
        var info = stat()
        while stat(folder, &info) != 0 {
            missing.append(folder)
            let parent = (folder as NSString).deletingLastPathComponent
            if parent.isEmpty || parent == folder { break }
            folder = parent
        }
        if missing.isEmpty || missing.last != folder {
            guard info.st_mode & S_IFMT == S_IFDIR else { throw POSIXError(.ENOTDIR) }
        }
        for folder in missing.reversed() {
            guard mkdir(folder, 0o755) == 0 || errno == EEXIST else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        }
    }

    /// An error of the move to `target` as one sentence: the target, its folder, what to do
    /// (never an NSError's text).
    static func sentence(_ error: Error, target: String) -> String {
        let folder = Printable.line((target as NSString).deletingLastPathComponent)
        let stays = "the file stays in the inbox, and the next run with --archive moves it"
        switch posixCode(error) {
        case ENOSPC?, EDQUOT?:
            return "cannot move it to \(Printable.line(target)): the disk holding the archive folder \(folder) is full (or its quota is used up). "
                + "Free some space there, or give --archive a folder on another disk; \(stays)."
        case let code?:
            return "cannot move it to \(Printable.line(target)): \(String(cString: strerror(code))). "
                + "Check the archive folder \(folder) (that it is a folder this user can write to, with space left); \(stays)."
        case nil:
            return "cannot move it to \(Printable.line(target)). Check the archive folder \(folder) (that it is a folder this user can write to, with space left); \(stays)."
        }
    }

    /// The errno behind an error: a POSIXError's, or an NSError's of the POSIX domain or under it.
    static func posixCode(_ error: Error) -> Int32? {
        if let posix = error as? POSIXError { return posix.code.rawValue }
        let ns = error as NSError
        if ns.domain == NSPOSIXErrorDomain { return Int32(truncatingIfNeeded: ns.code) }
        return (ns.userInfo[NSUnderlyingErrorKey] as? Error).flatMap(posixCode)
    }
}
