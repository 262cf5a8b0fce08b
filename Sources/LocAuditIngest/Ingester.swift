import Foundation
import GRDB
import LocAuditModel
import LocAuditNormalise
import LocAuditRead
import LocAuditStore

/// What `locaudit ingest` is asked to do.
public struct IngestOptions: Sendable {
    /// Files, directories (read recursively) or `-` for standard input.
    public var paths: [String]
    /// Device facts given on the command line (`--device-info`, `--device`, `--os`); they win over sidecars.
    public var device: DeviceFacts?
    /// The fleet's device list (`locaudit run --inventory`): facts for logs without a sidecar.
    public var inventory: Inventory?
    /// Info.plist files (`--info-plist`).
    public var infoPlists: [String] = []
    public var parse = ParseOptions()
    /// User catalog files, applied over the built-in catalog.
    public var catalogFiles: [String] = []
    /// Forces the container instead of detecting it (`--container`).
    public var format: Container?
    /// Files read at once.
    public var jobs = IngestOptions.defaultJobs
    /// The files are whole (`--complete`): a last line without its newline is read, not held back.
    public var complete = false
    /// The zone of zone-less logs whose device has none (sidecar, inventory, store): `run --tz`.
    /// Unlike `parse.zone` (`ingest --tz`), a device's own zone wins over it.
    public var fallbackZone: TimeZone?

    /// Half the cores: one file already keeps two busy (reading and inflating, parsing,
    /// writing overlap), so more files at once only add contention (measured by
    /// `scripts/bench.sh`: on 2 cores, 4 files with `--jobs 2` took 1.08x the time of `--jobs 1`).
    public static var defaultJobs: Int { max(1, ProcessInfo.processInfo.activeProcessorCount / 2) }
    public var quiet = false

    public init(paths: [String]) { self.paths = paths }
}

/// Reads files into the store: each one wholly or not at all, each content once.
public final class Ingester: Sendable {
    let store: Store
    let options: IngestOptions
    let catalog: Catalog
    /// The first error of the store itself: the run stops taking files and throws it.
    let storeFailure = FirstError()

    public init(store: Store, options: IngestOptions) throws {
        self.store = store
        self.options = options
        self.catalog = try Catalog.load(userFiles: options.catalogFiles)
    }

    /// Ingests everything and reports on every file, in input order.
    public func run(progressHandler: (@Sendable (FileReport) -> Void)? = nil) throws -> IngestReport {
        let startedUS = Clock.nowUS()
        let expansion = try Ingester.expand(options.paths)
        var inputs = expansion.files
        // A sidecar travels with its log: it is read as that log's device facts, not listed on its own.
        let sidecars = Set(inputs.compactMap(Ingester.sidecar(of:)))
        inputs.removeAll { sidecars.contains($0) }
        // Facts first (Info.plists, ideviceinfo files), so that logs find their apps and devices.
        let facts = options.infoPlists + inputs.filter(Ingester.looksLikeFacts)
        let logs = inputs.filter { !Ingester.looksLikeFacts($0) }
        let reports = Locked([FileReport?](repeating: nil, count: facts.count + logs.count))
        let total = logs.reduce(Int64(0)) { $0 + ((try? FileManager.default.attributesOfItem(atPath: $1)[.size] as? Int64) ?? 0) }
        let bar = ProgressBar(totalBytes: total, files: facts.count + logs.count, quiet: options.quiet)
        @Sendable func record(_ index: Int, _ report: FileReport) {
            reports.withLock { reports in
                reports[index] = report
                bar.fileDone()
                bar.clear()
                progressHandler?(report)
            }
        }
        for (i, path) in facts.enumerated() where storeFailure.value == nil {
            record(i, ingestFile(path, connection: nil, bar: bar, eventBudget: 0))
        }
        let next = Counter()
        let jobs = max(1, min(options.jobs, logs.count))
        // One file at a time writes its events as it reads them; several at once hold
        // theirs in memory (up to a budget) so that one's write lock does not stall the others.
        let eventBudget = jobs == 1 ? 0 : EventWriter.sharedBudgetBytes
        DispatchQueue.concurrentPerform(iterations: jobs) { _ in
            let connection = try? store.connect()
            while storeFailure.value == nil, let i = next.take(below: logs.count) {
                record(facts.count + i, ingestFile(logs[i], connection: connection, bar: bar, eventBudget: eventBudget))
            }
        }
        bar.clear()
        // The store itself failed (full, read-only, damaged...): no later file could go in
        // either. The files stored before it stay stored: the sentence names them.
        if var failure = storeFailure.value {
            failure.storedBefore = reports.withLock { $0.compactMap { $0 } }.filter { $0.outcome == .ingested }.map(\.path)
            throw failure
        }
        var files = reports.withLock { $0.compactMap { $0 } }
        // A folder that cannot be read fails as a file that cannot be read does.
        for folder in expansion.unreadable {
            var report = FileReport(path: folder, outcome: .failed, seconds: 0)
            report.error = Ingester.unreadableFolder
            files.append(report)
            progressHandler?(report)
        }
        try store.datePlists(since: startedUS, logs: files.filter { $0.outcome == .ingested && $0.app == nil }.compactMap(\.sourceId))
        var report = IngestReport(database: store.path, files: files)
        if !expansion.links.isEmpty { report.skippedLinks = expansion.links }
        return report
    }

    /// What the paths given hold: files, and what was not read in their folders.
    package struct Expansion: Sendable {
        /// Files, each folder's sorted, in the order of the paths given.
        package var files: [String] = []
        /// Symbolic links inside a folder given: not followed, not read.
        package var links: [String] = []
        /// Folders (given, or inside one) that cannot be read: their files were not listed.
        package var unreadable: [String] = []
        /// Markdown files inside a folder given (a README beside the logs): never read.
        package var documents: [String] = []
    }

    /// Files under the given paths, sorted, hidden files and databases left out. A path given
    /// that is a symbolic link is followed (as `find -H` does: `run --inbox LINK`, `ingest
    /// LINK/`); inside a folder, links are not followed, and are listed in `links`; a folder
    /// that cannot be read is listed in `unreadable` (the caller fails it, as a file that
    /// cannot be read).
    package static func expand(_ paths: [String]) throws -> Expansion {
        var expansion = Expansion()
        let fm = FileManager.default
        for path in paths {
            var isDir: ObjCBool = false
            guard path != "-", fm.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue else {
                expansion.files.append(path)
                continue
            }
            // Spelled from the path given: relative stays relative, the link stays the link.
            func spelled(_ relative: String) -> String {
                relative.isEmpty ? path : path.hasSuffix("/") ? path + relative : path + "/" + relative
            }
            var found: [String] = []
            func walk(_ relative: String) {
                let dir = spelled(relative)
                guard let names = try? fm.contentsOfDirectory(atPath: dir) else {
                    expansion.unreadable.append(dir)
                    return
                }
                for name in names where !name.hasPrefix(".") {
                    let inner = relative.isEmpty ? name : relative + "/" + name
                    var info = stat()
                    guard lstat(spelled(inner), &info) == 0 else { continue }
                    switch info.st_mode & S_IFMT {
                    case S_IFLNK:
                        expansion.links.append(spelled(inner))
                    case S_IFDIR:
                        walk(inner)
                    case S_IFREG:
                        if name.hasSuffix(".sqlite") || name.hasSuffix("-wal") || name.hasSuffix("-shm") { continue }
                        if name.hasSuffix(".md") { expansion.documents.append(spelled(inner)); continue }
                        found.append(spelled(inner))
                    default:
                        continue // sockets, fifos, devices: never a log
                    }
                }
            }
            walk("")
            expansion.files += found.sorted()
        }
        expansion.links.sort()
        expansion.documents.sort()
        return expansion
    }

    /// Why a link inside a folder is not read.
    package static func linkSkipped(_ path: String, inside: String) -> String {
        "\(Printable.line(path)): a symbolic link inside the \(inside); skipped (a link is followed only when given on the command line: give its target, or copy the file in)"
    }

    /// Why a folder's files were not read.
    package static let unreadableFolder = "a folder that cannot be read (permission denied): none of its files were read. Let the user that runs locaudit read it (chmod u+rx, or through its group), or move it out of the inbox."

    static func looksLikeFacts(_ path: String) -> Bool {
        path.hasSuffix(".plist") || path.hasSuffix(".ideviceinfo.txt") || (path as NSString).lastPathComponent == "ideviceinfo.txt"
    }

    /// `DEVICE-2026-11-21.log.gz` -> `DEVICE-2026-11-21.ideviceinfo.txt` beside it.
    package static func sidecar(of path: String) -> String? {
        guard path != "-" else { return nil }
        var stem = (path as NSString).lastPathComponent
        for ext in [".log", ".ndjson", ".json", ".txt", ".gz", ".syslog"] {
            if let r = stem.range(of: ext) { stem = String(stem[..<r.lowerBound]) }
        }
        // Spelled like the log's path (relative stays relative), so that an input list can leave it out.
        let candidate = ((path as NSString).deletingLastPathComponent as NSString).appendingPathComponent(stem + ".ideviceinfo.txt")
        return FileManager.default.fileExists(atPath: candidate) ? candidate : nil
    }

    /// Device facts for a log: command line, else sidecar, else the inventory row its file name names.
    func deviceFacts(for path: String) -> DeviceFacts {
        var facts = options.device ?? DeviceFacts()
        if let sidecar = Ingester.sidecar(of: path), let text = try? String(contentsOfFile: sidecar, encoding: .utf8) {
            facts = facts.filling(from: DeviceFacts.parse(ideviceinfo: text))
        }
        return facts.filling(from: options.inventory?.device(forLog: path))
    }

    // MARK: One file

    func ingestFile(_ path: String, connection: DatabaseQueue?, bar: ProgressBar, eventBudget: Int) -> FileReport {
        let started = Date()
        do {
            let db = try connection ?? store.connect()
            return try FileIngest(ingester: self, path: path, db: db, bar: bar, eventBudget: eventBudget).run(started: started)
        } catch {
            if let error = error as? DatabaseError, StoreError.isStoreFailure(error) { storeFailure.set(StoreError(error, path: store.path)) }
            var report = FileReport(path: path, outcome: .failed, seconds: Date().timeIntervalSince(started))
            report.error = describe(error)
            return report
        }
    }

    func describe(_ error: Error) -> String {
        switch error {
        case let e as ReadError: return "\(e.description) Nothing of this file was stored."
        case let e as FactsError: return e.description
        case let e as IngestError: return e.description
        case let e as ArchiveError: return e.description
        case let e as DatabaseError: return StoreError(e, path: store.path).description
        default: return "\(error). Nothing of this file was stored."
        }
    }
}

/// A problem with one input that is not a read error.
package struct IngestError: Error, CustomStringConvertible {
    package var description: String

    package init(description: String) {
        self.description = description
    }
}

/// The first error one of the concurrent jobs met.
final class FirstError: Sendable {
    private let first = Locked<StoreError?>(nil)
    var value: StoreError? { first.withLock { $0 } }
    func set(_ error: StoreError) { first.withLock { if $0 == nil { $0 = error } } }
}

/// Hands out indices to the concurrent jobs.
final class Counter: Sendable {
    private let next = Locked(0)
    func take(below limit: Int) -> Int? {
        next.withLock { value in
            guard value < limit else { return nil }
            value += 1
            return value - 1
        }
    }
}
