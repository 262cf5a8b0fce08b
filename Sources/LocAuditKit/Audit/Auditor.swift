import Foundation
import GRDB

/// The result of one audit run: what to print and how to exit.
public struct AuditReport: Sendable {
    public var runId: Int64
    public var startedAt: String
    public var database: String
    public var events: Int
    /// Findings reported (a baseline's are hidden), most severe first.
    public var findings: [Finding]
    /// Fingerprints of reported findings not seen by the previous run.
    public var new: Set<String>
    /// Fingerprints of reported findings also seen by the previous run.
    public var persisting: Set<String>
    /// Findings of earlier runs, in this run's scope, no longer seen.
    public var resolved: [Finding]
    public var hiddenByBaseline: Int
    public var coverage: Coverage
    /// Every rule checked on every session and app configuration (JUnit's test cases).
    public var checks: [RuleCheckRecord] = []
    /// A stored run whose `checks` a prune dropped, and when: only its counts and findings are left.
    public var checksPrunedAt: String?
    public var failOn: Severity

    public var verdict: Verdict {
        if !findings.isEmpty { return .findings }
        return coverage.evaluated == 0 ? .insufficientEvidence : .pass
    }

    /// 0 nothing at or above `--fail-on`, 1 findings at or above it, 3 insufficient evidence.
    public var exitCode: Int32 {
        if findings.contains(where: { $0.severity >= failOn }) { return 1 }
        return verdict == .insufficientEvidence ? 3 : 0
    }
}

/// Rebuilds sessions from the stored events, replays them against the rules model, and
/// records sessions, findings and the run.
public struct Auditor {
    let store: Store
    let options: AuditOptions

    /// Opens the database at `path` for an audit; it must exist (else `StoreError`, exit 3).
    public init(databasePath path: String, options: AuditOptions) throws {
        if !options.unknownRules.isEmpty { throw AuditError.unknownRules(options.unknownRules) }
        self.store = try Store(path: path, access: .write)
        self.options = options
    }

    /// Audits; `progress` (a terminal's bar) shows the events read and the sessions checked.
    public func run(progress: ProgressBar? = nil) throws -> AuditReport {
        defer { progress?.clear() }
        let baseline = try options.baseline.map(Baseline.read)
        let startedAt = Clock.nowISO()
        let db = try store.connect()
        progress?.start("reading events", unit: "events")
        var input = try db.read { try AuditInput.load($0, scope: options.scope, progress: progress) }
        progress?.start("replaying sessions")
        let timelines = input.timelines()
        progress?.start("checking rules", total: timelines.reduce(0) { $0 + $1.count }, unit: "sessions")
        let (raw, evaluated, checks) = RuleEvaluation.evaluate(timelines, options: options, progress: progress)
        var coverage = evaluated
        coverage.timeZones = input.timeZoneNotes(of: Set(timelines.lazy.compactMap { $0.first?.session.deviceId }))
        progress?.start("recording findings")
        try db.read { try input.locate(raw, in: $0) }
        var found = raw.map { input.finding(from: $0) }.sorted(by: Finding.reportOrder)
        // Each session finding's session, so that it keeps its identity when the session has gained lines.
        var sessions: [String: AuditRecorder.SessionIdentity] = [:]
        for r in raw {
            guard let opening = r.sessionEvents.first else { continue }
            sessions[r.fingerprint] = AuditRecorder.SessionIdentity(opening: opening.id, events: Set(r.sessionEvents.map(\.id)))
        }

        var report = AuditReport(runId: 0, startedAt: startedAt, database: store.path, events: input.events.count,
                                 findings: [], new: [], persisting: [], resolved: [], hiddenByBaseline: 0,
                                 coverage: coverage, checks: checks, failOn: options.failOn)
        try db.write { db in
            try AuditRecorder.replaceSessions(timelines, scope: options, in: db)
            let renamed = try AuditRecorder.keepIdentities(&found, sessions: &sessions, in: db)
            if !renamed.isEmpty {
                for i in report.checks.indices { report.checks[i].findings = report.checks[i].findings.map { renamed[$0] ?? $0 } }
            }
            report.runId = try AuditRecorder.recordRun(found, sessions: sessions, report: &report, options: options, in: db)
        }
        if let baseline {
            report.findings = found.filter { !baseline.fingerprints.contains($0.fingerprint) }
            report.hiddenByBaseline = found.count - report.findings.count
        } else {
            report.findings = found
        }
        try db.write { db in
            try db.execute(sql: "UPDATE audit_runs SET verdict = ?, exit_code = ? WHERE id = ?",
                           arguments: [report.verdict.rawValue, report.exitCode, report.runId])
        }
        // Last, so that a baseline that cannot be written leaves the run fully recorded.
        if let path = options.writeBaseline { try Baseline(findings: found).write(to: path) }
        return report
    }
}

extension Finding {
    /// Most severe first, then by time, rule and app.
    static func reportOrder(_ a: Finding, _ b: Finding) -> Bool {
        if a.severity != b.severity { return a.severity > b.severity }
        return (a.timeUS, a.rule, a.bundleId, a.device) < (b.timeUS, b.rule, b.bundleId, b.device)
    }
}

/// Everything an audit reads from the store.
struct AuditInput {
    var events: [AppEvent]
    /// source id -> (path, iOS version)
    var sources: [Int64: (path: String, version: IOSVersion?)]
    /// bundle id -> every Info.plist of the app
    var apps: [String: AppVersions]
    /// device and app -> what a prune kept of their replay
    var checkpoints: [String: ReplayCheckpoint] = [:]
    /// device id -> the line families its logs carry at all
    var deviceLogs: [String: DeviceLogs] = [:]
    /// device id -> logs whose times were read as UTC for want of a zone
    var zoneAssumed: [String: Int] = [:]
    /// device id -> "OFFSET, the offset of PATH" -> zone-less logs that took the offset of that zoned export
    var zoneTaken: [String: [String: Int]] = [:]
    /// event id -> (source id, line), for the events findings cite (filled by `locate`)
    var locations: [Int64: (source: Int64, line: Int)] = [:]

    static func load(_ db: Database, scope: EventScope, progress: ProgressBar? = nil) throws -> AuditInput {
        var sources: [Int64: (String, IOSVersion?)] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT id, path, os_version FROM sources") {
            sources[row[0]] = (row[1], IOSVersion(row[2] as String?))
        }
        var input = AuditInput(events: try scope.load(db, progress: progress), sources: sources, apps: try AppVersions.load(db))
        input.checkpoints = try ReplayCheckpoint.load(db, scope: scope)
        input.deviceLogs = try DeviceLogs.load(db, scope: scope)
        for row in try Row.fetchAll(db, sql: """
            SELECT device_id, zone_assumed, zone_offset, zone_from FROM sources
            WHERE device_id IS NOT NULL AND (zone_assumed = 1 OR zone_from IS NOT NULL) ORDER BY id
            """) {
            if row[1] as Bool {
                input.zoneAssumed[row[0], default: 0] += 1
            } else if let offset = row[2] as Int32?, let from = row[3] as String? {
                input.zoneTaken[row[0], default: [:]]["\(ZoneReconciler.text(offset: offset)), the offset of \(from)", default: 0] += 1
            }
        }
        return input
    }

    /// What the reports say of the devices whose times were not read in their own zone.
    func timeZoneNotes(of devices: Set<String>) -> [String: String]? {
        var notes: [String: String] = [:]
        for device in devices {
            var parts: [String] = []
            if let logs = zoneAssumed[device] {
                parts.append("times assumed UTC: \(logs == 1 ? "1 log has" : "\(logs) logs have") no time zone "
                    + "(ingest with --tz, or add TimeZone to the device's ideviceinfo)")
            }
            for (taken, logs) in (zoneTaken[device] ?? [:]).sorted(by: { $0.key < $1.key }) {
                parts.append("times of \(logs == 1 ? "1 log" : "\(logs) logs") without a zone read at \(taken) "
                    + "(an export of the same device and period)")
            }
            if !parts.isEmpty { notes[device] = parts.joined(separator: "; ") }
        }
        return notes.isEmpty ? nil : notes
    }

    /// Looks up the file and line of every event the findings cite.
    mutating func locate(_ findings: [RawFinding], in db: Database) throws {
        let ids = Set(findings.flatMap { $0.violations.flatMap(\.events) + $0.context })
        let statement = try db.makeStatement(sql: "SELECT source_id, line FROM events WHERE id = ?")
        for id in ids {
            if let row = try Row.fetchOne(statement, arguments: [id]) { locations[id] = (row[0], row[1]) }
        }
    }

    /// Sessions of each app on each device, replayed (events are sorted by device, app, time).
    /// Where a prune left a checkpoint, the replay starts from it with the lines after it.
    func timelines() -> [[ReplayedSession]] {
        let versions = sources.compactMapValues(\.version)
        var timelines: [[ReplayedSession]] = []
        var start = events.startIndex
        while start < events.endIndex {
            var end = start
            while end < events.endIndex, events[end].deviceId == events[start].deviceId,
                  events[end].bundleId == events[start].bundleId { end += 1 }
            var lines = events[start..<end]
            var known = ReplayState()
            if let checkpoint = checkpoints[ReplayCheckpoint.key(events[start].deviceId, events[start].bundleId)] {
                lines = lines.drop { ReplayCheckpoint.EventKey($0) <= checkpoint.asOf }
                known = checkpoint.state
            }
            if !lines.isEmpty {
                let sessions = SessionBuilder.sessions(of: lines, versions: versions)
                timelines.append(Replayer.replay(sessions, plists: apps[events[start].bundleId] ?? AppVersions(), from: known,
                                                 deviceLogs: deviceLogs[events[start].deviceId] ?? DeviceLogs()))
            }
            start = end
        }
        return timelines
    }

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
                       pid: raw.pid, sessionStart: raw.sessionStartUS.map(Timestamps.isoUTC), time: Timestamps.isoUTC(first.timeUS),
                       message: message, evidence: evidence, fingerprint: raw.fingerprint,
                       timeUS: first.timeUS, osVersion: raw.osVersion?.text)
    }
}
