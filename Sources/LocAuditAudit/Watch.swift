import Foundation
import LocAuditIngest
import LocAuditModel
import LocAuditReplay
import LocAuditRules
import LocAuditNormalise
import LocAuditRead
import LocAuditStore

/// What `locaudit watch` is asked to do.
public struct WatchOptions: Sendable {
    public var input = LiveIngestOptions()
    /// Keep reading a file as it grows, across rotation and truncation (`tail -F`).
    public var follow = false
    /// Rules, `--fail-on`, settings.
    public var audit = AuditOptions()
    /// End after this many seconds without a byte (`--until-idle`).
    public var untilIdle: Double?
    /// End after this many seconds (`--for`).
    public var duration: Double?
    /// Seconds between commits (and live audits).
    public var flushInterval = 1.0

    public init() {}
}

/// The input cannot be read (a missing file, a log of no known kind): exit 3, nothing to read.
public struct WatchError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public var exitCode: Int32 { 3 }
}

/// Why a watch ended.
public enum WatchEnd: String, Sendable {
    case endOfInput = "end of input"
    case interrupted = "SIGINT"
    case terminated = "SIGTERM"
    case idle = "--until-idle"
    case duration = "--for"
}

/// What a watch says as it runs.
public enum WatchNote: Sendable {
    /// Once, at the start: what is read, and which rules wait for what.
    case started(input: String, database: String, waits: [(rules: [String], until: String)])
    /// A finding, as soon as the line that decides it was stored.
    case finding(Finding)
    /// The live status: events stored, sessions replayed, findings so far.
    case status(events: Int, sessions: Int, findings: Int)
    /// The input changed file (rotation, truncation), or a partial last line was held back.
    case notice(String)
}

/// How a watch ended: the audit of what it stored (as a batch `audit` of it), and the
/// findings decided only then (configuration rules, sessions closed by the end).
public struct WatchResult: Sendable {
    public var end: WatchEnd
    public var report: AuditReport
    public var decidedAtEnd: [Finding]
}

/// Audits a live log: stores it a second at a time (`LiveIngest`), replays the apps that got
/// lines after each commit and hands on every finding the first time a replay shows it,
/// then, at the end, audits what it stored as `locaudit audit` does.
///
/// A live finding is what a batch audit of the lines so far finds up to the time by which
/// every line is stored (`LiveFlush.settledUS`): the rules judge each step from the lines
/// before it, so a later line adds findings, never takes one back, and the findings at the
/// end are the batch audit's (a test compares them).
public final class Watch {
    let store: Store
    let options: WatchOptions
    let catalog: Catalog
    private let stop = Locked<WatchEnd?>(nil)
    /// Device and app -> the replay's state after their last session that is over: the next
    /// flush replays from there, so that a long stream's closed sessions are read once.
    private var closed: [String: ReplayCheckpoint] = [:]
    /// Sessions before those checkpoints, for the status line.
    private var closedSessions = 0

    /// Rules whose findings are decided by a line of the app's next session.
    public static let nextSessionRules = ["allow-once-persisting", "temporary-precise-persisting"]

    public init(databasePath path: String, options: WatchOptions) throws {
        if !options.audit.unknownRules.isEmpty { throw AuditError.unknownRules(options.audit.unknownRules) }
        store = try Store(path: path, access: .create)
        self.options = options
        catalog = try Catalog.load(userFiles: options.input.catalogFiles)
    }

    /// Runs until the input ends, a signal, `untilIdle` or `duration`; `note` gets what to show.
    public func run(_ note: (WatchNote) throws -> Void) throws -> WatchResult {
        let name = options.input.path == "-" ? "standard input" : options.input.path
        if options.input.path != "-", !options.follow, !FileManager.default.isReadableFile(atPath: options.input.path) {
            throw WatchError(description: "\(name): no such file, or not readable. Check the path (--follow waits for a file to appear).")
        }
        do {
            return try watch(note)
        } catch let error as IngestError {
            throw WatchError(description: "\(name): \(error.description) What was stored before stays; a restart on the same file continues after it.")
        }
    }

    private func watch(_ note: (WatchNote) throws -> Void) throws -> WatchResult {
        let selected = options.audit.selectedRules
        let configuration = RuleRegistry.configurationRules.map { type(of: $0).description.identifier }.filter(selected.contains)
        let next = Watch.nextSessionRules.filter(selected.contains)
        try note(.started(input: options.input.path == "-" ? "standard input" : options.input.path, database: store.path,
                          waits: [(next, "the app's next session"), (configuration, "the end of the watch")].filter { !$0.rules.isEmpty }))
        let connection = try store.connect()
        var printed = Set<String>()
        var sessions = 0
        let (end, written): (WatchEnd, [Int64]) = try connection.inDatabase { db in
            let live = LiveIngest(db: db, options: options.input, catalog: catalog)
            let input = LiveInput(path: options.input.path, follow: options.follow, offset: try live.resume())
            let signals = watchSignals(input)
            defer { signals.forEach { $0.cancel() } }
            let started = DispatchTime.now()
            var lastBytes = DispatchTime.now()
            var nextFlush = DispatchTime.now() + options.flushInterval
            // Bytes came since the last flush: a quiet input is flushed at once (a slow writer's
            // line is audited within `quiet`, not at the next second).
            var dirty = false
            let quiet = min(0.25, options.flushInterval / 2)
            var pending: [String: (deviceId: String, bundleId: String)] = [:]
            func audit(_ flushed: LiveFlush) throws {
                for g in flushed.groups { pending["\(g.deviceId)\u{0}\(g.bundleId)"] = g }
                guard let settled = flushed.settledUS, !pending.isEmpty else { return }
                let (found, replayed) = try liveFindings(Array(pending.values), settledUS: settled, skipping: printed)
                sessions = max(sessions, replayed)
                // Apps with lines after the settled time are audited again at the next flush.
                if settled >= flushed.latestUS ?? settled { pending = [:] }
                for f in found where printed.insert(f.fingerprint).inserted {
                    try note(.finding(f))
                }
                try note(.status(events: flushed.events, sessions: sessions, findings: printed.count))
            }
            while true {
                var ended: WatchEnd? = stop.withLock { $0 }
                let wake = min(dirty ? min(nextFlush, lastBytes + quiet) : nextFlush, deadline(started, lastBytes))
                for item in input.take(waitingUntil: wake) {
                    switch item {
                    case .bytes(let bytes):
                        lastBytes = DispatchTime.now()
                        dirty = true
                        try live.take(bytes)
                    case .newFile(let path):
                        try audit(try live.newFile())
                        try note(.notice("\(path) was rotated or truncated: reading its new content as a new source."))
                    case .end:
                        ended = ended ?? .endOfInput
                    case .failed(let reason):
                        throw IngestError(description: reason)
                    }
                }
                let now = DispatchTime.now()
                ended = ended ?? stop.withLock { $0 }
                if ended == nil, let idle = options.untilIdle, seconds(lastBytes, now) >= idle { ended = .idle }
                if ended == nil, let duration = options.duration, seconds(started, now) >= duration { ended = .duration }
                if let ended {
                    let flushed = try live.finish()
                    try audit(flushed)
                    if flushed.heldBack > 0 {
                        try note(.notice("a last line without its newline (\(flushed.heldBack) bytes) was held back, not stored: "
                            + (options.input.path == "-" ? "the stream ended inside it." : "a restart on the same file reads it once it is whole.")))
                    }
                    return (ended, live.sources)
                }
                let settled = seconds(lastBytes, now) >= quiet
                if now >= nextFlush || (dirty && settled) {
                    try audit(try live.flush(settle: settled))
                    nextFlush = now + options.flushInterval
                    dirty = false
                }
            }
        }
        // The end: every session closed, the configuration rules, the run recorded, as `audit` does,
        // of the device the watch read (of the whole store when it read several, or none).
        guard !written.isEmpty else {
            let name = options.input.path == "-" ? "standard input" : options.input.path
            throw WatchError(description: "\(name): the watch ended (\(end.rawValue)) before a whole line was read; nothing to audit.")
        }
        var audit = options.audit
        let watched = try connection.read { db in Set(try written.compactMap { try LiveSourceRow.device(of: $0, in: db) }) }
        if watched.count == 1 { audit.device = watched.first }
        let report = try Auditor(databasePath: store.path, options: audit).run()
        let atEnd = report.findings.filter { !printed.contains($0.fingerprint) }
        return WatchResult(end: end, report: report, decidedAtEnd: atEnd)
    }

    /// The findings of the given apps that a replay of their lines so far shows up to `settledUS`.
    private func liveFindings(_ groups: [(deviceId: String, bundleId: String)], settledUS: Int64,
                              skipping printed: Set<String>) throws -> (found: [Finding], sessions: Int) {
        var options = self.options.audit
        options.untilUS = min(options.untilUS ?? .max, settledUS)
        let wanted = Set(groups.map { "\($0.deviceId)\u{0}\($0.bundleId)" })
        let scope = EventScope(devices: Set(groups.map(\.deviceId)), bundleIds: Set(groups.map(\.bundleId)))
        return try store.readAudit(scope: scope) { input in
            for (key, checkpoint) in closed where input.checkpoints[key].map({ $0.asOf < checkpoint.asOf }) ?? true {
                input.checkpoints[key] = checkpoint
            }
            var evaluation = RuleEvaluation(options: options)
            var sessions = 0
            try input.replay { timeline in
                guard let first = timeline.first?.session, wanted.contains("\(first.deviceId)\u{0}\(first.bundleId)") else { return }
                sessions += timeline.count
                evaluation.add(timeline)
                if let (checkpoint, over) = Watch.checkpoint(after: timeline, settledUS: settledUS) {
                    closed[ReplayCheckpoint.key(first.deviceId, first.bundleId)] = checkpoint
                    closedSessions += over
                }
            }
            let fresh = evaluation.findings.filter { !printed.contains($0.fingerprint) }
            try input.locate(Set(fresh.flatMap { $0.violations.flatMap(\.events) + $0.context }))
            return (fresh.map { input.finding(from: $0) }.sorted(by: Finding.reportOrder), closedSessions + sessions)
        }
    }

    /// The state after the last session of `timeline` that is over by `settledUS`, and how
    /// many sessions it closes: over when the next one has begun, every line of both up to
    /// then is stored, and none of the next one's lines comes before the closed one's last
    /// (a replay from the checkpoint drops the lines at or before it). What prune keeps of a
    /// replay, kept in memory: the rules judge a session from the state it starts with.
    static func checkpoint(after timeline: [ReplayedSession], settledUS: Int64) -> (ReplayCheckpoint, Int)? {
        var asOf: ReplayCheckpoint.EventKey?
        var best: (ReplayCheckpoint, Int)?
        for (k, replayed) in timeline.enumerated().dropLast() {
            if let last = replayed.session.events.map(ReplayCheckpoint.EventKey.init).max() { asOf = max(asOf ?? last, last) }
            guard let asOf, let nextFirst = timeline[k + 1].session.events.map(ReplayCheckpoint.EventKey.init).min(),
                  asOf.timeUS < settledUS, nextFirst.timeUS <= settledUS else { break }
            if nextFirst > asOf {
                best = (ReplayCheckpoint(deviceId: replayed.session.deviceId, bundleId: replayed.session.bundleId, asOf: asOf,
                                         state: replayed.final), k + 1)
            }
        }
        return best
    }

    /// SIGINT and SIGTERM end the watch (its end still closes sessions and writes reports).
    private func watchSignals(_ input: LiveInput) -> [DispatchSourceSignal] {
        [(SIGINT, WatchEnd.interrupted), (SIGTERM, WatchEnd.terminated)].map { number, end in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [stop] in
                stop.withLock { $0 = $0 ?? end }
                input.wake()
            }
            source.resume()
            return source
        }
    }

    /// The next moment an end condition may hold.
    private func deadline(_ started: DispatchTime, _ lastBytes: DispatchTime) -> DispatchTime {
        var at = DispatchTime.distantFuture
        if let idle = options.untilIdle { at = min(at, lastBytes + idle) }
        if let duration = options.duration { at = min(at, started + duration) }
        return at
    }

    private func seconds(_ from: DispatchTime, _ to: DispatchTime) -> Double {
        Double(to.uptimeNanoseconds &- from.uptimeNanoseconds) / 1e9
    }
}

extension WatchOptions {
    /// `90s`, `20m`, `1h30m`, `2h`, or a number of seconds; nil for anything else (or zero).
    public static func seconds(_ text: String) -> Double? {
        if let plain = Double(text) { return plain.isFinite && plain > 0 && plain <= 31_536_000 ? plain : nil }
        var total = 0.0
        var number = ""
        for c in text {
            if c.isASCII, c.isNumber { number.append(c); continue }
            guard let n = Double(number), number.count <= 9, let unit = ["h": 3600.0, "m": 60, "s": 1][String(c)] else { return nil }
            total += n * unit
            number = ""
        }
        guard number.isEmpty, total > 0, total <= 31_536_000 else { return nil }
        return total
    }
}
