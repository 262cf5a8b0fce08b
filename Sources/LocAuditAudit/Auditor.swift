import Foundation
import LocAuditModel
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
        self.options = options
    }

    /// Audits; `progress` (a terminal's bar) shows the events read and the sessions checked.
    public func run(progress: ProgressBar? = nil) throws -> AuditReport {
        defer { progress?.clear() }
        let baseline = try options.baseline.map(Baseline.read)
        let startedAt = Clock.nowISO()
        progress?.start("reading events", unit: "events")
        var input = try store.auditInput(scope: options.scope, progress: progress)
        progress?.start("replaying sessions")
        let timelines = input.timelines()
        progress?.start("checking rules", total: timelines.reduce(0) { $0 + $1.count }, unit: "sessions")
        let (raw, evaluated, checks) = RuleEvaluation.evaluate(timelines, options: options, progress: progress)
        var coverage = evaluated
        coverage.timeZones = input.timeZoneNotes(of: Set(timelines.lazy.compactMap { $0.first?.session.deviceId }))
        progress?.start("recording findings")
        input.locate(Set(raw.flatMap { $0.violations.flatMap(\.events) + $0.context }))
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
        try store.recordAudit(timelines, found: &found, sessions: &sessions, report: &report, options: options)
        if let baseline {
            report.findings = found.filter { !baseline.fingerprints.contains($0.fingerprint) }
            report.hiddenByBaseline = found.count - report.findings.count
        } else {
            report.findings = found
        }
        // The reporters draw the findings' sessions from this replay, not from a second one
        // (the start's text is made only for sessions of a process with a finding).
        let named = Set(report.findings.compactMap { f in f.sessionStart.map { SessionKey(f.device, f.bundleId, f.pid, $0) } })
        let processes = Set(named.map { SessionKey($0.device, $0.bundleId, $0.pid, "") })
        report.sessions = named.isEmpty ? [] : timelines.joined().filter { r in
            let s = r.session
            return processes.contains(SessionKey(s.deviceId, s.bundleId, s.pid, ""))
                && named.contains(SessionKey(s.deviceId, s.bundleId, s.pid, Timestamps.isoUTC(s.startUS)))
        }
        try store.recordVerdict(of: report)
        // Last, so that a baseline that cannot be written leaves the run fully recorded.
        if let path = options.writeBaseline { try Baseline(findings: found).write(to: path) }
        return report
    }
}

/// A session as findings name it: device, app, process and start (ISO 8601 UTC).
private struct SessionKey: Hashable {
    var device: String, bundleId: String, pid: Int64?, start: String
    init(_ device: String, _ bundleId: String, _ pid: Int64?, _ start: String) {
        (self.device, self.bundleId, self.pid, self.start) = (device, bundleId, pid, start)
    }
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
                       pid: raw.pid, sessionStart: raw.sessionStartUS.map(Timestamps.isoUTC), time: Timestamps.isoUTC(first.timeUS),
                       message: message, evidence: evidence, fingerprint: raw.fingerprint,
                       timeUS: first.timeUS, osVersion: raw.osVersion?.text)
    }
}
