import Foundation
import LocAuditModel
import LocAuditReplay
import LocAuditRules
import LocAuditRead
import LocAuditStore

/// Rebuilds sessions from the stored events, replays them against the rules model, and
/// records sessions, findings and the run.
public struct Auditor {
    let store: Store
    let options: AuditOptions

    /// Opens the database at `path` for an audit; it must exist (else `StoreError`, exit 3).
    public init(databasePath path: String, options: AuditOptions) throws {
        if !options.unknownRules.isEmpty { throw AuditError.unknownRules(options.unknownRules) }
        self.store = try Store(path: path, access: .write)
        self.options = try store.resolveScope(options)
    }

    /// Audits; `progress` (a terminal's bar) shows the events read and the sessions checked,
    /// app by app (the sessions of the apps read so far).
    ///
    /// The events are read, replayed and checked one app on one device at a time; of each
    /// app's sessions only what the report and the recorder need is kept (the findings, the
    /// counts and checks, the session rows, the sessions a finding names, what configuration
    /// rules read), so that memory does not grow with the number of events.
    ///
    /// With `settling` (the fleet's audit), each app's sessions before its checkpoint are
    /// counted from what an earlier run kept of them (`Settling.carried`), their findings taken
    /// as stored, and each app's new checkpoint goes into `settling` (`Settling.made`).
    public func run(progress: ProgressBar? = nil) throws -> AuditReport {
        try run(progress: progress, settling: nil)
    }

    package func run(progress: ProgressBar?, settling: Settling?) throws -> AuditReport {
        defer { progress?.clear() }
        let baseline = try options.baseline.map(Baseline.read)
        let startedAt = Clock.nowISO()
        var evaluation = RuleEvaluation(options: options)
        var sessionRows: [AuditRecorder.SessionRow] = []
        // The sessions a session finding may name, in device, app and time order.
        var named: [ReplayedSession] = []
        var devices = Set<String>()
        var checked = 0
        var found: [Finding] = []
        // Each session finding's session, so that it keeps its identity when the session has gained lines.
        var sessions: [String: AuditRecorder.SessionIdentity] = [:]
        // The run's checks, compactly, until they are recorded.
        var checks = CheckLog()
        let (events, coverage) = try store.readAudit(scope: options.scope) { input in
            for (device, logs) in settling?.deviceLogs ?? [:] { input.deviceLogs[device] = (input.deviceLogs[device] ?? DeviceLogs()).union(logs) }
            // Settled: the lines before the checkpoints' seconds, and the findings of the settled sessions.
            var (settledEvents, settledFindings) = (0, [String]())
            let lines = { (device: String, bundle: String) in settling?.carried[ReplayCheckpoint.key(device, bundle)]?.sessions.flatMap(\.lines) ?? [] }
            try input.replayApps(graceUS: options.settings.backgroundGraceUS, progress: progress, sessions: { checked }, lines: lines,
                                 eventTimes: settling != nil) { app in
                let carried = settling?.carried[ReplayCheckpoint.key(app.deviceId, app.bundleId)] ?? SettledApp()
                if !carried.sessions.isEmpty {
                    for settled in carried.sessions {
                        evaluation.add(settled: settled, deviceId: app.deviceId, bundleId: app.bundleId,
                                       view: settled.configurationView(deviceId: app.deviceId, bundleId: app.bundleId, plists: app.plists,
                                                                       events: app.lines))
                        sessionRows.append(settled.row(deviceId: app.deviceId, bundleId: app.bundleId))
                        settledFindings += settled.findings
                    }
                    devices.insert(app.deviceId)
                    checked += carried.sessions.count
                }
                settledEvents += carried.eventsBefore
                // Each session replayed, recorded and checked as soon as it is over (the app's
                // events are read as the sessions are taken), and its steps (with the states they
                // hold) let go once checked, but for a session a finding may name (the reports
                // draw it): neither the app's events nor its sessions' steps are held at once
                // (docs/performance.md, "Audit memory").
                var replayer = app.replayer
                // A finding names its session by its key (device, app, pid, start): a session that
                // may share its key with another keeps its steps, whichever of the two the finding
                // is of. Sessions come in start order, so those sharing a key are neighbours with
                // one start: a session is kept when it has a finding or a neighbour of its start.
                var kept: [ReplayedSession] = []
                // The session before, with its steps while the next one's start may still keep it.
                var previous: (startUS: Int64, held: ReplayedSession?)?
                var starts = Set<SessionKey>()
                var replayedHere = 0
                // With settling: the sessions without their steps (for the checkpoint), and each as it would settle.
                var timeline: [ReplayedSession] = []
                var judged: [SettledSession] = []
                while let session = try app.sessions.next() {
                    var replayed = replayer.next(session)
                    replayedHere += 1
                    sessionRows.append(AuditRecorder.SessionRow(replayed))
                    let before = evaluation.findings.count
                    let made = evaluation.add(replayed)
                    if settling != nil { judged.append(SettledSession(replayed, made)) }
                    let found = evaluation.findings[before...].compactMap { f in f.sessionStartUS.map { SessionKey(f.deviceId, f.bundleId, f.pid, $0) } }
                    starts.formUnion(found)
                    let sharesStart = previous?.startUS == session.startUS
                    if sharesStart, let held = previous?.held { kept.append(held) }
                    if !found.isEmpty || sharesStart {
                        kept.append(replayed)
                        previous = (session.startUS, nil)
                    } else {
                        previous = (session.startUS, replayed)
                    }
                    if settling != nil {
                        // What `Watch.checkpoint` reads of a session: its first and last lines (by
                        // time, file and line) and its final state, not every line.
                        let keyed = replayed.session.events.map { (ReplayCheckpoint.EventKey($0), $0) }
                        replayed.session.events = [keyed.min { $0.0 < $1.0 }, keyed.max { $0.0 < $1.0 }].compactMap { $0?.1 }
                        replayed.session.before = []
                        replayed.steps = []
                        timeline.append(replayed)
                    }
                }
                if replayedHere > 0 {
                    devices.insert(app.deviceId)
                    checked += replayedHere
                    if !starts.isEmpty { named += kept.filter { starts.contains(SessionKey($0.session)) } }
                }
                // What this run settles: the sessions before the last one that is over.
                let closing = settling == nil ? nil : Watch.checkpoint(after: timeline, settledUS: .max)
                let settles = closing.map { Array(judged.prefix($0.1)) } ?? []
                if let settling {
                    var made = Settling.Made(deviceId: app.deviceId, bundleId: app.bundleId, checkpoint: app.checkpoint, settled: carried)
                    if let (checkpoint, _) = closing {
                        made.checkpoint = checkpoint
                        made.settled.sessions += settles
                        made.settled.eventsBefore += app.sessions.events(before: checkpoint.asOf.timeUS)
                        made.settled.cited = checkpoint.state.citedEvents
                    }
                    settling.make(made)
                }
            }
            var (raw, coverage, log) = evaluation.finish()
            checks = log
            coverage.timeZones = input.timeZoneNotes(of: devices)
            coverage.summarise()
            try input.locate(Set(raw.flatMap { $0.violations.flatMap(\.events) + $0.context }))
            found = (raw.map { input.finding(from: $0) } + (try input.storedFindings(settledFindings))).sorted(by: Finding.reportOrder)
            for r in raw {
                guard let opening = r.sessionEvents.first else { continue }
                sessions[r.fingerprint] = AuditRecorder.SessionIdentity(opening: opening.id, events: Set(r.sessionEvents.map(\.id)))
            }
            return (input.events + settledEvents, coverage)
        }
        // The replay's memory is free now but still the process's (the heap's high-water mark
        // of its largest app): give it back before the recording.
        FreedMemory.giveBack()
        progress?.start("recording findings")
        var report = AuditReport(runId: 0, startedAt: startedAt, database: store.path, events: events,
                                 findings: [], new: [], persisting: [], resolved: [], hiddenByBaseline: 0,
                                 coverage: coverage, failOn: options.failOn)
        report.requireEvidence = options.requireEvidence
        let renamed = try store.recordAudit(sessionRows, found: &found, sessions: &sessions, checks: &checks, report: &report, options: options)
        sessionRows = []
        settling?.rename(renamed)
        if let baseline {
            report.findings = found.filter { !baseline.fingerprints.contains($0.fingerprint) }
            report.hiddenByBaseline = found.count - report.findings.count
        } else {
            report.findings = found
        }
        // Accepted findings (`.locaudit.yml`): reported as suppressed, not failing the run.
        try store.markSuppressed(&report, options.suppressions)
        // The reporters draw the findings' sessions from this replay, not from a second one.
        let reported = Set(report.findings.compactMap { f in f.sessionStartUS.map { SessionKey(f.device, f.bundleId, f.pid, $0) } })
        report.sessions = named.filter { reported.contains(SessionKey($0.session)) }
        try store.recordVerdict(of: report, checks: checks)
        // The report's checks (the JUnit report's cases), as compact as the audit held them.
        report.checks = checks
        checks = CheckLog()
        // Last, so that a baseline that cannot be written leaves the run fully recorded.
        if let path = options.writeBaseline { try Baseline(findings: found).write(to: path) }
        return report
    }
}

/// A session as findings name it: device, app, process and start (UTC microseconds).
private struct SessionKey: Hashable {
    var device: String, bundleId: String, pid: Int64?, startUS: Int64
    init(_ device: String, _ bundleId: String, _ pid: Int64?, _ startUS: Int64) {
        (self.device, self.bundleId, self.pid, self.startUS) = (device, bundleId, pid, startUS)
    }
    init(_ session: Session) { self.init(session.deviceId, session.bundleId, session.pid, session.startUS) }
}

extension AuditInput {
    /// A finding as reported: one message, every event as file and line.
    func finding(from raw: RawFinding) -> Finding {
        let first = raw.violations.min { $0.timeUS < $1.timeUS }!
        var message = first.message
        if raw.violations.count > 1 { message += " (\(raw.violations.count) times)" }
        var seen = Set<Int64>()
        var ids: [Int64] = []
        for v in raw.violations { for id in v.events where seen.insert(id).inserted { ids.append(id) } }
        for id in raw.context where seen.insert(id).inserted { ids.append(id) }
        var evidence: [EvidenceLine] = ids
            .compactMap { id in locations[id].map { (id, $0) } }
            .sorted { ($0.1.source, $0.1.line) < ($1.1.source, $1.1.line) }
            .map { EvidenceLine(file: sources[$0.1.source]?.path ?? "?", line: $0.1.line, event: $0.0) }
        evidence.insert(contentsOf: raw.plists.map { EvidenceLine(file: $0, line: nil) }, at: 0)
        return Finding(rule: raw.rule.identifier, severity: raw.rule.severity, device: raw.deviceId, bundleId: raw.bundleId,
                       pid: raw.pid, sessionStartUS: raw.sessionStartUS, time: Timestamps.isoUTC(first.timeUS),
                       message: message, evidence: evidence, fingerprint: raw.fingerprint,
                       timeUS: first.timeUS, osVersion: raw.osVersion?.text)
    }
}

extension Store {
    /// Marks the findings of `report` that `suppressions` in force on the day the audit
    /// started cover (`Suppression.mark`), their device names resolved by this store.
    public func markSuppressed(_ report: inout AuditReport, _ suppressions: [Suppression]) throws {
        guard !suppressions.isEmpty, let today = CivilDate(String(report.startedAt.prefix(10))) else { return }
        let ids = try deviceIds(suppressions.compactMap(\.device))
        report.findings = Suppression.mark(report.findings, with: suppressions, deviceIds: ids, today: today)
    }
}
