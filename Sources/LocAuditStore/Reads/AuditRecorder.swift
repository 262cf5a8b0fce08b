import Foundation
import GRDB
import LocAuditModel
import LocAuditReplay
import LocAuditRules

/// Writes what an audit found: sessions, findings (one row per finding, updated by
/// re-audits, never duplicated) and the run, with what is new, persisting and resolved.
package enum AuditRecorder {
    /// A session as `sessions` stores it: what an audit keeps of every session it replays.
    package struct SessionRow {
        package var session: Session
        package var statusAtStart: AuthorizationStatus?
        package var statusAtEnd: AuthorizationStatus?
        package var events: Int
        package var firstEvent: Int64?
        package var lastEvent: Int64?

        package init(session: Session, statusAtStart: AuthorizationStatus?, statusAtEnd: AuthorizationStatus?, events: Int,
                     firstEvent: Int64?, lastEvent: Int64?) {
            (self.session, self.statusAtStart, self.statusAtEnd) = (session, statusAtStart, statusAtEnd)
            (self.events, self.firstEvent, self.lastEvent) = (events, firstEvent, lastEvent)
        }

        package init(_ replayed: ReplayedSession) {
            session = replayed.session
            (session.events, session.before) = ([], [])
            (statusAtStart, statusAtEnd) = (replayed.initial.status.value, replayed.final.status.value)
            (events, firstEvent, lastEvent) = (replayed.session.events.count, replayed.session.events.first?.id, replayed.session.events.last?.id)
        }
    }

    /// Replaces the stored sessions of the devices and apps in scope.
    package static func replaceSessions(_ rows: [SessionRow], scope: AuditOptions, in db: Database) throws {
        // Sessions a prune took lines from stay as they were: the replay no longer rebuilds them.
        try db.execute(sql: "DELETE FROM sessions WHERE \(EventScope.condition) AND evidence_pruned_at IS NULL", arguments: scope.scope.arguments)
        let insert = try db.makeStatement(sql: """
            INSERT INTO sessions (device_id, bundle_id, pid, start_us, start, end_us, end, end_reason, launch_intent,
                relaunch_service, os_version, events, first_event_id, last_event_id, status_at_start, status_at_end)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for row in rows {
            let s = row.session
            try insert.execute(arguments: [
                s.deviceId, s.bundleId, s.pid, s.startUS, Timestamps.isoUTC(s.startUS), s.endUS, Timestamps.isoUTC(s.endUS),
                s.endReason.rawValue, s.launchIntent, s.relaunchService?.rawValue, s.osVersion?.text, row.events,
                row.firstEvent, row.lastEvent, row.statusAtStart?.rawValue, row.statusAtEnd?.rawValue,
            ])
        }
    }

    /// A finding keeps its identity when its session gains lines (an overlapping export, a
    /// newly linked line, a zone-less export re-timed): a session finding whose fingerprint is
    /// not stored takes the fingerprint of a stored finding of the same rule, device, app and
    /// pid whose session's opening event is one of this session's events. Event ids do not
    /// change when lines are added or re-timed. Returns the fingerprints taken over (found ->
    /// stored); `sessions` is re-keyed to match.
    package static func keepIdentities(_ found: inout [Finding], sessions: inout [String: SessionIdentity], in db: Database) throws -> [String: String] {
        var renamed: [String: String] = [:]
        var claimed = Set(found.map(\.fingerprint))
        let stored = try db.makeStatement(sql: "SELECT 1 FROM findings WHERE fingerprint = ?")
        let candidates = try db.makeStatement(sql: """
            SELECT fingerprint, session_event FROM findings
            WHERE device_id = ? AND bundle_id = ? AND rule = ? AND pid IS ? AND session_event IS NOT NULL
            ORDER BY id
            """)
        for i in found.indices {
            let f = found[i]
            guard let session = sessions[f.fingerprint], try Int.fetchOne(stored, arguments: [f.fingerprint]) == nil else { continue }
            for row in try Row.fetchAll(candidates, arguments: [f.device, f.bundleId, f.rule, f.pid]) {
                let old: String = row["fingerprint"]
                guard !claimed.contains(old), session.events.contains(row["session_event"]) else { continue }
                claimed.insert(old)
                renamed[f.fingerprint] = old
                found[i].fingerprint = old
                sessions[old] = sessions.removeValue(forKey: f.fingerprint)
                break
            }
        }
        return renamed
    }

    /// Records the run and its findings; fills new / persisting / resolved. Returns the run id.
    package static func recordRun(_ found: [Finding], sessions: [String: SessionIdentity], report: inout AuditReport,
                          options: AuditOptions, in db: Database) throws -> Int64 {
        let optionsJSON = jsonText([
            "device": options.devices.map { $0.sorted().joined(separator: ",") },
            "app": options.bundleIds.map { $0.sorted().joined(separator: ",") },
            "since": options.sinceUS.map(Timestamps.isoUTC), "until": options.untilUS.map(Timestamps.isoUTC),
            "rules": options.selectedRules.sorted().joined(separator: ","), "failOn": options.failOn.rawValue,
            "reducedAccuracyFloor": String(options.settings.reducedAccuracyFloor),
        ])
        // The checks go in with the verdict (`recordVerdict`), into `audit_checks`.
        try db.execute(sql: """
            INSERT INTO audit_runs (started_at, options, events, sessions, findings, new, persisting, resolved,
                evaluated, not_evaluable, verdict, exit_code, fail_on, coverage, checks, scope)
            VALUES (?, ?, ?, ?, ?, 0, 0, 0, ?, ?, '', -1, ?, ?, NULL, ?)
            """, arguments: [report.startedAt, optionsJSON, report.events, report.coverage.sessions, found.count,
                             report.coverage.evaluated, report.coverage.notEvaluableCount, report.failOn.rawValue,
                             jsonText(report.coverage), options.runScope])
        let run = db.lastInsertedRowID

        // Findings the previous runs left open, each in its own scope: a session finding's is
        // its device and app, a configuration finding's its app and iOS major version on every
        // device (whichever device it was first recorded with).
        let selected = options.selectedRules
        var open: [String: Finding] = [:]
        var pruned = Set<String>()
        for row in try Row.fetchAll(db, sql: """
            SELECT fingerprint, rule, severity, device_id, bundle_id, pid, session_start, time, message, evidence, time_us, os_version,
                evidence_pruned_at
            FROM findings WHERE resolved_run IS NULL
                AND (session_start IS NULL OR ?1 IS NULL OR device_id IN (SELECT value FROM json_each(?1)))
                AND (?2 IS NULL OR bundle_id IN (SELECT value FROM json_each(?2)))
            """, arguments: options.scope.arguments) {
            let finding = Finding(row: row)
            if selected.contains(finding.rule), options.inWindow(finding.timeUS) { open[finding.fingerprint] = finding }
            if row["evidence_pruned_at"] != nil { pruned.insert(finding.fingerprint) }
        }
        let current = Set(found.map(\.fingerprint))
        report.new = current.subtracting(open.keys)
        report.persisting = current.intersection(open.keys)
        // A finding whose lines were pruned is not seen again, and not resolved either.
        report.resolved = try open.values
            .filter { try !current.contains($0.fingerprint) && !pruned.contains($0.fingerprint) && covers($0, options, in: db) }
            .sorted(by: Finding.reportOrder)

        let upsert = try db.makeStatement(sql: """
            INSERT INTO findings (fingerprint, rule, severity, device_id, bundle_id, pid, os_version, session_start,
                time_us, time, message, evidence, first_run, last_run, resolved_run, session_event)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?13, NULL, ?14)
            ON CONFLICT (fingerprint) DO UPDATE SET
                severity = excluded.severity, message = excluded.message, evidence = excluded.evidence,
                time_us = excluded.time_us, time = excluded.time, last_run = excluded.last_run,
                session_start = excluded.session_start, session_event = excluded.session_event, evidence_pruned_at = NULL,
                first_run = CASE WHEN resolved_run IS NULL THEN first_run ELSE excluded.first_run END,
                resolved_run = NULL
            """)
        for f in found {
            let evidence = jsonText(f.evidence.map { AuditRecorder.EvidenceRow(event: $0.event, file: $0.file, line: $0.line) })
            try upsert.execute(arguments: [f.fingerprint, f.rule, f.severity.rawValue, f.device, f.bundleId, f.pid, f.osVersion,
                                           f.sessionStart, f.timeUS, f.time, f.message, evidence, run, sessions[f.fingerprint]?.opening])
        }
        for f in report.resolved {
            try db.execute(sql: "UPDATE findings SET resolved_run = ? WHERE fingerprint = ?", arguments: [run, f.fingerprint])
        }
        try db.execute(sql: "UPDATE audit_runs SET new = ?, persisting = ?, resolved = ? WHERE id = ?",
                       arguments: [report.new.count, report.persisting.count, report.resolved.count, run])
        return run
    }

    /// Whether a run saw everything a finding it did not find again depends on: a session
    /// finding's device and app are in the run's scope (the caller's query); a configuration
    /// finding's app ran on that iOS major version only on devices in the scope.
    private static func covers(_ finding: Finding, _ options: AuditOptions, in db: Database) throws -> Bool {
        guard finding.sessionStart == nil, let devices = options.devices else { return true }
        let major = IOSVersion(finding.osVersion)?.major
        let elsewhere = try Row.fetchAll(db, sql: "SELECT DISTINCT device_id, os_version FROM sessions WHERE bundle_id = ?",
                                         arguments: [finding.bundleId])
            .filter { IOSVersion($0["os_version"] as String?)?.major == major && !devices.contains($0["device_id"]) }
        return elsewhere.isEmpty
    }

    /// The session of a session finding, to know it again when it has gained lines.
    package struct SessionIdentity {
        /// The event that opened it (`findings.session_event`).
        var opening: Int64
        var events: Set<Int64>
    

        package init(opening: Int64, events: Set<Int64>) {
            self.opening = opening
            self.events = events
        }
}

    /// Evidence as stored: with the event id.
    struct EvidenceRow: Codable {
        var event: Int64?
        var file: String
        var line: Int?
    }

    /// `findings.evidence`.
    typealias StoredEvidence = JSONColumn<[EvidenceRow]>
}

extension Finding {
    /// A stored finding: a row of `findings` with (at least) the columns `StoredReport` selects.
    init(row: Row) {
        let stored = (row["evidence"] as AuditRecorder.StoredEvidence?)?.value ?? []
        let evidence = stored.map { EvidenceLine(file: $0.file, line: $0.line, event: $0.event) }
        self.init(rule: row["rule"], severity: Severity(rawValue: row["severity"]) ?? .info, device: row["device_id"],
                  bundleId: row["bundle_id"], pid: row["pid"],
                  sessionStartUS: (row["session_start"] as String?).flatMap(AuditOptions.parseTime), time: row["time"],
                  message: row["message"], evidence: evidence, fingerprint: row["fingerprint"], timeUS: row["time_us"],
                  osVersion: row["os_version"])
    }
}

extension Store {
    /// Records an audit in one transaction: its sessions, its findings (keeping the identity
    /// of a finding whose session has gained lines, in `found` and in `checks`), its checks
    /// and the run, whose id goes into `report`.
    /// Returns the fingerprints taken over (found -> stored).
    @discardableResult
    package func recordAudit(_ sessionRows: [AuditRecorder.SessionRow], found: inout [Finding], sessions: inout [String: AuditRecorder.SessionIdentity],
                             checks: inout CheckLog, report: inout AuditReport, options: AuditOptions) throws -> [String: String] {
        var taken: [String: String] = [:]
        // `--no-record`: the same work, so that new, persisting and resolved mean what they
        // would, in a transaction rolled back: nothing is written.
        try connect().inDatabase { db in
            // The run's rows go in once each: a cache for an ingest's inserts (8 MB) would only
            // hold their pages until the commit.
            try db.execute(sql: "PRAGMA cache_size = -2048")
            try db.inTransaction(.immediate) {
                try AuditRecorder.replaceSessions(sessionRows, scope: options, in: db)
                let renamed = try AuditRecorder.keepIdentities(&found, sessions: &sessions, in: db)
                taken = renamed
                checks.rename(renamed)
                report.runId = try AuditRecorder.recordRun(found, sessions: sessions, report: &report, options: options, in: db)
                return options.record ? .commit : .rollback
            }
        }
        if !options.record { report.runId = 0 }
        return taken
    }

    /// The run's verdict and exit code, once its reported findings are known, and its checks:
    /// a row of `audit_checks` a subject, each written as it is made, so that the run's checks
    /// are never one text (16 MB at 4 GiB of logs, and SQLite's record of it as much again:
    /// docs/performance.md, "Audit memory, in rows").
    package func recordVerdict(of report: AuditReport, checks: CheckLog) throws {
        guard report.runId != 0 else { return } // not recorded (`--no-record`)
        try connect().inDatabase { db in
            // The run's rows go in once each: a cache for an ingest's inserts (8 MB) would only
            // hold their pages until the commit.
            try db.execute(sql: "PRAGMA cache_size = -2048")
            try db.inTransaction(.immediate) {
                try db.execute(sql: "UPDATE audit_runs SET verdict = ?, exit_code = ? WHERE id = ?",
                               arguments: [report.verdict.rawValue, report.exitCode, report.runId])
                let insert = try db.makeStatement(sql: "INSERT INTO audit_checks (run_id, position, checks) VALUES (?, ?, ?)")
                var position = 0
                try StoredChecks.subjects(checks) { subject in
                    try insert.execute(arguments: [report.runId, position, subject])
                    position += 1
                }
                return .commit
            }
        }
    }
}
