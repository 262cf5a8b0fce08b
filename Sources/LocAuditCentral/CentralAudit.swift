import Foundation
import GRDB
import LocAuditAudit
import LocAuditModel
import LocAuditRules
import LocAuditRead
import LocAuditReplay
import LocAuditStore
import PostgresNIO

/// `audit --db postgresql://…` and `report --db postgresql://…`: the fleet's audit and reports
/// from the central store. Its rows are copied into a temporary SQLite store with their
/// central ids (`CentralReplica`) and audited or rendered there by the code that audits a
/// host's store; the audit's sessions, findings and run are then written back in one
/// transaction. Findings keep their identity across hosts and runs (the fingerprint), so the
/// fleet's findings are those of one audit of every host's logs together.
public enum CentralAudit {
    /// Central audits take turns (`pg_try_advisory_lock`): another one running is exit 4, as for `run`.
    static let lockKey: Int64 = 0x6C6F_6361_7564_6975 // "locaudiu"

    /// Audits the central store at `url` with `options`. `reports` writes the run's reports
    /// from the replica (its ids are the central ones) before the replica is removed.
    public static func audit(_ url: CentralURL, options: AuditOptions, progress: ProgressBar? = nil,
                             environment: [String: String] = ProcessInfo.processInfo.environment,
                             reports: (AuditReport, Store) throws -> Void) throws -> AuditReport {
        // The full audit, with every rule, settles: it starts from the checkpoints still good.
        let settle = options.devices == nil && options.bundleIds == nil && options.sinceUS == nil && options.untilUS == nil
            && options.selectedRules == Set(RuleRegistry.descriptions.map(\.identifier))
        return try withReplica(url, environment: environment, lock: true, devices: options.devices.map { $0.sorted() },
                               settle: settle ? rulesKey(options) : nil) { central, replica, checkpoints in
            let settling = checkpoints.map { Settling(carried: $0.carried, deviceLogs: $0.deviceLogs) }
            var report = try Auditor(databasePath: replica.path, options: options).run(progress: progress, settling: settling)
            guard options.record else {
                // `--no-record`: reported from the replica, nothing written back.
                report.database = url.display
                progress?.clear()
                try reports(report, replica)
                return report
            }
            progress?.start("writing back to \(url.display)")
            let (runID, queue) = (report.runId, try replica.connect())
            var recorded = try StoreError.mapping(path: replica.path) {
                try queue.read { try Recorded(run: runID, options: options, settled: checkpoints?.good ?? [:], in: $0) }
            }
            if let settling, let checkpoints {
                recorded.checkpoints = try Recorded.checkpoints(settling.made.values, rules: Self.rulesKey(options), stored: checkpoints.stored)
                (recorded.lastEventID, recorded.rules) = (checkpoints.lastEventID, Self.rulesKey(options))
            }
            let written = recorded
            let run = try Central.blocking { try await writeBack(written, to: central) }
            // The replica's run takes its central id, so that its reports show the fleet's ids.
            try StoreError.mapping(path: replica.path) {
                try queue.write { db in
                    try db.execute(sql: "UPDATE audit_runs SET id = ? WHERE id = ?", arguments: [run, runID])
                    try db.execute(sql: "UPDATE audit_checks SET run_id = ? WHERE run_id = ?", arguments: [run, runID])
                    for column in ["first_run", "last_run", "resolved_run"] {
                        try db.execute(sql: "UPDATE findings SET \(column) = ? WHERE \(column) = ?", arguments: [run, runID])
                    }
                }
            }
            report.runId = run
            report.database = url.display
            progress?.clear()
            try reports(report, replica)
            return report
        }
    }

    /// `body` with the central store at `url` copied into a temporary store (`report`);
    /// without `events` when the reports read none (all but the HTML page).
    public static func withReplica<T>(_ url: CentralURL, events: Bool = true, environment: [String: String] = ProcessInfo.processInfo.environment,
                                      _ body: (Store) throws -> T) throws -> T {
        try withReplica(url, environment: environment, lock: false, events: events) { _, replica, _ in try body(replica) }
    }

    /// What a checkpoint's sessions were judged with: this build of locaudit and the rules' settings.
    static func rulesKey(_ options: AuditOptions, build: String = BuildIdentity.current) -> String {
        "\(build) floor \(options.settings.reducedAccuracyFloor) grace \(options.settings.backgroundGrace)"
    }

    /// Connects (taking the central audit's lock when `lock`), copies the central store into
    /// a temporary folder, hands both to `body`, and removes the copy.
    static func withReplica<T>(_ url: CentralURL, environment: [String: String], lock: Bool, events: Bool = true, devices: [String]? = nil,
                               settle: String? = nil, _ body: (Central, Store, CentralCheckpoints?) throws -> T) throws -> T {
        let central = try Central.blocking { try await Central.connect(url, environment: environment) }
        defer { try? Central.blocking { await central.close() } }
        if lock {
            let locked = try Central.blocking { try await central.rows("SELECT pg_try_advisory_lock(\(lockKey))", as: Bool.self) }
            guard locked.first == true else {
                throw CentralError(.busy("\(url.display): another central audit is running: audit again when it has finished"))
            }
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("locaudit-central-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        } catch {
            throw CentralError(.server("the central store's rows cannot be copied into \(folder.deletingLastPathComponent().path) (a folder cannot be made there): set TMPDIR to a writable folder with room (about 250 bytes per event)"))
        }
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("central.sqlite").path
        let checkpoints = try Central.blocking {
            // The audit writes: the schema must be this locaudit's. A report only reads.
            if lock { _ = try await CentralSchema.migrate(central) }
            return try await CentralReplica.make(from: central, at: path, events: events, devices: devices, settle: settle, audit: lock).checkpoints
        }
        return try body(central, try Store(path: path, access: .write), checkpoints)
    }

    /// What the audit recorded in the replica as run `run`, as JSON batches for `json_to_recordset`:
    /// the run, the findings it saw, resolved or first saw, and the sessions of its scope.
    struct Recorded: Sendable {
        var run: Int64
        var runJSON: String
        /// The run's checks, bound as a value of their own (inside `runJSON` every quote of them was escaped).
        var runChecks: String?
        var findings: [String]
        var sessions: [String]
        var devices: [String]?
        var bundleIds: [String]?
        /// The sessions settled before this run, which stay as stored: device, app and the start of the last one.
        var settled: (devices: [String], bundleIds: [String], untilUS: [Int64]) = ([], [], [])
        /// Each app's new checkpoint.
        var checkpoints: [CheckpointRow] = []
        /// The largest event id the audit saw, and the rules it judged with.
        var lastEventID: Int64 = 0
        var rules = ""

        init(run: Int64, options: AuditOptions, settled good: [String: CentralCheckpoints.Stored] = [:], in db: Database) throws {
            self.run = run
            var object = try Row.fetchOne(db, sql: "SELECT \(Pusher.list(Pusher.runColumns.filter { $0.name != "checks" })) FROM audit_runs WHERE id = ?", arguments: [run]).map(Pusher.object) ?? [:]
            object["run_key"] = Pusher.runKey(object)
            object["pushed_from"] = "central audit (\(ProcessInfo.processInfo.hostName))"
            runChecks = try StoredChecks.runText(run, in: db)
            runJSON = try Pusher.json([object])
            findings = try Self.batches(Row.fetchAll(db, sql: """
                SELECT \(Pusher.list(Pusher.findingColumns)) FROM findings WHERE first_run = ?1 OR last_run = ?1 OR resolved_run = ?1
                """, arguments: [run]))
            var until: [String: Int64] = [:]
            for stored in good.values {
                guard let last = stored.settled.sessions.last?.startUS else { continue }
                until[ReplayCheckpoint.key(stored.deviceId, stored.bundleId)] = last
                settled.devices.append(stored.deviceId)
                settled.bundleIds.append(stored.bundleId)
                settled.untilUS.append(last)
            }
            sessions = try Self.batches(Row.fetchAll(db, sql: """
                SELECT \(Pusher.list(Pusher.sessionColumns)) FROM sessions WHERE \(EventScope.condition) AND evidence_pruned_at IS NULL
                """, arguments: options.scope.arguments).filter { row in
                    until[ReplayCheckpoint.key(row["device_id"], row["bundle_id"])].map { (row["start_us"] as Int64) > $0 } ?? true
                })
            devices = options.devices.map { $0.sorted() }
            bundleIds = options.bundleIds.map { $0.sorted() }
        }

        /// A `replay_checkpoints` row to write: whole when it changed, else only the events it has seen.
        struct CheckpointRow: Sendable {
            var deviceId, bundleId: String
            var asOf: ReplayCheckpoint.EventKey?
            var state: String?
            /// The settled sessions' JSON; nil when the row is as stored.
            var settled: String?
            var prunedAt: String?
        }

        /// The new checkpoints; a prune's mark stays. The settled sessions go as one JSON text
        /// each, bound as a value (not inside a JSON document, where every quote would be escaped).
        static func checkpoints(_ made: some Collection<Settling.Made>, rules: String,
                                stored: [String: CentralCheckpoints.Stored]) throws -> [CheckpointRow] {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            return try made.sorted { ($0.deviceId, $0.bundleId) < ($1.deviceId, $1.bundleId) }.map { made in
                let before = stored[ReplayCheckpoint.key(made.deviceId, made.bundleId)]
                var row = CheckpointRow(deviceId: made.deviceId, bundleId: made.bundleId, prunedAt: before?.prunedAt)
                let same = before.map { $0.rules == rules && $0.settled == made.settled && $0.asOf == made.checkpoint?.asOf } ?? false
                guard !same else { return row }
                row.settled = try settledJSON(made.settled, before: before, encoder: encoder)
                if let checkpoint = made.checkpoint {
                    row.asOf = checkpoint.asOf
                    row.state = String(decoding: try encoder.encode(checkpoint.state), as: UTF8.self)
                }
                return row
            }
        }

        /// `settled` as JSON (`encoder`'s, keys sorted). When it is what `before` settled with
        /// sessions added, only those are encoded, and the stored text of the others is kept:
        /// the same bytes as encoding them all (`sessions` is the last key, an array is its
        /// items' text joined), without encoding every settled session of the history again
        /// each night (perf: 9% of a sixth night's CPU, growing with the nights).
        static func settledJSON(_ settled: SettledApp, before: CentralCheckpoints.Stored?, encoder: JSONEncoder) throws -> String {
            let marker = "\"sessions\":["
            if let before, !before.settled.sessions.isEmpty, settled.sessions.count > before.settled.sessions.count,
               settled.sessions.starts(with: before.settled.sessions), before.settledJSON.hasSuffix("]}"),
               let stored = before.settledJSON.range(of: marker) {
                var added = settled
                added.sessions.removeFirst(before.settled.sessions.count)
                let text = String(decoding: try encoder.encode(added), as: UTF8.self)
                if let new = text.range(of: marker) {
                    let kept = before.settledJSON[stored.upperBound...].dropLast(2)
                    return text[..<new.upperBound] + kept + "," + text[new.upperBound...]
                }
            }
            return String(decoding: try encoder.encode(settled), as: UTF8.self)
        }

        static func batches(_ rows: [Row]) throws -> [String] {
            try stride(from: 0, to: rows.count, by: Pusher.batch).map { start in
                try Pusher.json(rows[start..<min(start + Pusher.batch, rows.count)].map(Pusher.object))
            }
        }
    }

    /// Writes `recorded` into the central store in one transaction: the run (a new central
    /// id, returned), its findings by fingerprint (a finding's runs that are the replica's run
    /// become the new id), and the sessions of its scope, replaced as a host's audit replaces its own.
    static func writeBack(_ recorded: Recorded, to central: Central) async throws -> Int64 {
        try await central.transaction { central in
            let run = recorded.run
            let runColumns = Pusher.runColumns + [("run_key", "text"), ("pushed_from", "text")]
            var runBinds = binds(recorded.runJSON)
            runBinds.append(recorded.runChecks)
            let runID: [Int64] = try await central.rows(PostgresQuery(unsafeSQL: """
                INSERT INTO locaudit.audit_runs (\(Pusher.list(runColumns)))
                SELECT \(runColumns.map { $0.name == "checks" ? "$2::text" : "\"\($0.name)\"" }.joined(separator: ", "))
                FROM json_to_recordset($1::json) AS r(\(Pusher.types(runColumns.filter { $0.name != "checks" })))
                RETURNING id
                """, binds: runBinds), as: Int64.self)
            guard let id = runID.first else { throw CentralError(.server("\(central.url.display): the audit run was not recorded: audit again")) }
            let findings = Pusher.findingColumns.map(\.name)
            let values = findings.map { column in
                ["first_run", "last_run", "resolved_run"].contains(column) ? "CASE \"\(column)\" WHEN \(run) THEN \(id) ELSE \"\(column)\" END" : "\"\(column)\""
            }
            let updates = findings.filter { $0 != "fingerprint" && $0 != "first_run" }.map { "\"\($0)\" = excluded.\"\($0)\"" }
            for batch in recorded.findings {
                try await central.execute(PostgresQuery(unsafeSQL: """
                    INSERT INTO locaudit.findings (\(Pusher.list(Pusher.findingColumns)))
                    SELECT \(values.joined(separator: ", ")) FROM json_to_recordset($1::json) AS r(\(Pusher.types(Pusher.findingColumns)))
                    ON CONFLICT (fingerprint) DO UPDATE SET \(updates.joined(separator: ", ")),
                        first_run = CASE WHEN locaudit.findings.resolved_run IS NULL THEN locaudit.findings.first_run ELSE excluded.first_run END
                    """, binds: binds(batch)))
            }
            var scope = PostgresBindings()
            scope.append(recorded.devices)
            scope.append(recorded.bundleIds)
            scope.append(recorded.settled.devices)
            scope.append(recorded.settled.bundleIds)
            scope.append(recorded.settled.untilUS)
            try await central.execute(PostgresQuery(unsafeSQL: """
                DELETE FROM locaudit.sessions s WHERE evidence_pruned_at IS NULL
                    AND ($1::text[] IS NULL OR device_id = ANY($1)) AND ($2::text[] IS NULL OR bundle_id = ANY($2))
                    AND NOT EXISTS (SELECT 1 FROM unnest($3::text[], $4::text[], $5::bigint[]) AS k(device_id, bundle_id, until_us)
                        WHERE k.device_id = s.device_id AND k.bundle_id = s.bundle_id AND s.start_us <= k.until_us)
                """, binds: scope))
            let sessionUpdates = Pusher.sessionColumns.map(\.name).filter { !["device_id", "bundle_id", "pid", "start_us"].contains($0) }
                .map { "\"\($0)\" = excluded.\"\($0)\"" }
            for batch in recorded.sessions {
                try await central.execute(PostgresQuery(unsafeSQL: """
                    INSERT INTO locaudit.sessions (\(Pusher.list(Pusher.sessionColumns)))
                    SELECT \(Pusher.list(Pusher.sessionColumns)) FROM json_to_recordset($1::json) AS r(\(Pusher.types(Pusher.sessionColumns)))
                    ON CONFLICT (device_id, bundle_id, pid, start_us) DO UPDATE SET \(sessionUpdates.joined(separator: ", "))
                    """, binds: binds(batch)))
            }
            // The checkpoints as stored have seen every event up to the audit's.
            let unchanged = recorded.checkpoints.filter { $0.settled == nil }
            var seen = PostgresBindings()
            seen.append(recorded.lastEventID)
            seen.append(unchanged.map(\.deviceId))
            seen.append(unchanged.map(\.bundleId))
            try await central.execute(PostgresQuery(unsafeSQL: """
                UPDATE locaudit.replay_checkpoints c SET last_event_id = $1
                FROM unnest($2::text[], $3::text[]) AS u(device_id, bundle_id) WHERE c.device_id = u.device_id AND c.bundle_id = u.bundle_id
                """, binds: seen))
            let now = Clock.nowISO()
            for row in recorded.checkpoints {
                guard let settled = row.settled else { continue }
                var values = PostgresBindings()
                values.append(row.deviceId)
                values.append(row.bundleId)
                values.append(row.asOf?.timeUS)
                values.append(row.asOf?.source)
                values.append(row.asOf.map { Int64($0.line) })
                values.append(row.state)
                values.append(settled)
                values.append(recorded.lastEventID)
                values.append(recorded.rules)
                values.append(row.prunedAt)
                values.append(now)
                try await central.execute(PostgresQuery(unsafeSQL: """
                    INSERT INTO locaudit.replay_checkpoints (\(CentralCheckpoints.columns), created_at)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
                    ON CONFLICT (device_id, bundle_id) DO UPDATE SET as_of_us = excluded.as_of_us, as_of_source = excluded.as_of_source,
                        as_of_line = excluded.as_of_line, state = excluded.state, settled = excluded.settled,
                        last_event_id = excluded.last_event_id, rules = excluded.rules, pruned_at = excluded.pruned_at,
                        created_at = excluded.created_at
                    """, binds: values))
            }
            return id
        }
    }

    private static func binds(_ json: String) -> PostgresBindings {
        var bindings = PostgresBindings()
        bindings.append(json)
        return bindings
    }
}
