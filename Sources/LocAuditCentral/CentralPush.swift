import Crypto
import Foundation
import GRDB
import LocAuditRead
import LocAuditStore
import PostgresNIO

/// What a push copied: rows per table that the central store lacked, and how fast.
public struct PushReport: Sendable, Codable, Equatable {
    public var server: String
    /// Table -> rows added (0: the central store had them all).
    public var rows: [String: Int]
    public var seconds: Double
    public var migrated: [String]

    public var total: Int { rows.values.reduce(0, +) }
    public var rowsPerSecond: Int { seconds > 0 ? Int(min(Double(total) / seconds, 1e12)) : total }

    public var text: String {
        var out = "pushed to \(server) in \(String(format: "%.1f", seconds)) s: \(total) rows (\(rowsPerSecond) rows/s)\n"
        if !migrated.isEmpty { out += "  central schema migrated: \(migrated.joined(separator: "; "))\n" }
        for table in CentralPush.tables { out += "  \(table.padding(toLength: 13, withPad: " ", startingAt: 0)) \(rows[table] ?? 0)\n" }
        return out
    }
}

/// `locaudit push`: copies what the local store has and the central one lacks, table by table:
/// a source's events by `COPY` into a temporary staging table (`CopyText`), the other tables
/// in batches of rows sent as one JSON value each (`json_to_recordset`), each moved by an
/// `INSERT … ON CONFLICT DO NOTHING`, so that a row the central store holds already is
/// skipped by its content key, never doubled. A source and its events go in one
/// transaction, so a source the central store has is a source whose events it has: a push cut
/// at any point and run again resumes there. Local row ids never become central identities:
/// references (an event's source, a session's events, a finding's runs and evidence) are
/// translated to the central rows by content.
public enum CentralPush {
    public static let tables = ["devices", "app_versions", "sources", "events", "sessions", "audit_runs", "findings"]
    /// Rows a statement sends.
    static let batch = 2_000

    /// The sync entry point of the commands: connects, migrates when needed (`migrateOnly`
    /// stops there), pushes the store at `database`. Throws `StoreError` (the local store) or
    /// `CentralError`.
    public static func push(database: String?, to url: CentralURL, migrateOnly: Bool = false,
                            environment: [String: String] = ProcessInfo.processInfo.environment) throws -> PushReport {
        try Central.blocking { try await pushAsync(database: database, to: url, migrateOnly: migrateOnly, environment: environment) }
    }

    static func pushAsync(database: String?, to url: CentralURL, migrateOnly: Bool, environment: [String: String]) async throws -> PushReport {
        let started = Date()
        var local: DatabaseQueue?
        if let database, !migrateOnly {
            local = try StoreError.mapping(path: database) {
                try Store(path: database, access: .read).connect(readOnly: true)
            }
        }
        let central = try await Central.connect(url, environment: environment)
        defer { Task { [central] in await central.close() } }
        let migrated = try await CentralSchema.migrate(central)
        var report = PushReport(server: url.display, rows: [:], seconds: 0, migrated: migrated)
        if let local, let database {
            report.rows = try await Pusher(local: local, path: database, central: central).run()
        }
        report.seconds = Date().timeIntervalSince(started)
        await central.close()
        return report
    }
}

/// One push: the local store read through its documented columns, the central one written.
struct Pusher: Sendable {
    let local: DatabaseQueue
    let path: String
    let central: Central
    let host = ProcessInfo.processInfo.hostName

    typealias Columns = [(name: String, type: String)]
    static let batch = CentralPush.batch

    static let deviceColumns: Columns = [("id", "text"), ("name", "text"), ("product_type", "text"), ("os_version", "text"), ("updated_at", "text")]
    static let appVersionColumns: Columns = [
        ("bundle_id", "text"), ("version", "text"), ("build", "text"), ("executable", "text"), ("name", "text"),
        ("usage_keys", "text"), ("background_modes", "text"), ("temporary_purpose_keys", "text"),
        ("default_accuracy_reduced", "text"), ("default_accuracy_reduced_type", "text"),
        ("plist_path", "text"), ("plist_sha256", "text"), ("ingested_at", "text"), ("first_seen_us", "bigint"),
        ("platform_version", "text"), ("sdk_name", "text"), ("requires_explicit_service_session", "bigint"),
    ]
    static let sourceColumns: Columns = [
        ("content_sha256", "text"), ("path", "text"), ("file_sha256", "text"), ("size", "bigint"), ("content_size", "bigint"),
        ("gzip_members", "bigint"), ("container", "text"), ("device_id", "text"), ("os_version", "text"),
        ("zone_assumed", "bigint"), ("zone_offset", "bigint"), ("zone_from", "text"), ("first_time", "text"), ("last_time", "text"),
        ("lines_read", "bigint"), ("events", "bigint"), ("skipped", "text"), ("notes", "text"), ("ingested_at", "text"),
        ("wrapper", "text"),
    ]
    /// The documented columns of `events` (docs/schema.md), less `id`, `time` and `source_id` (translated).
    static let eventColumns: Columns = EventFields.copied.filter { !["id", "source_id"].contains($0.name) }
        .map { (name: $0.name, type: $0.postgresType) }
    static let sessionColumns: Columns = [
        ("device_id", "text"), ("bundle_id", "text"), ("pid", "bigint"), ("start_us", "bigint"), ("start", "text"),
        ("end_us", "bigint"), ("end", "text"), ("end_reason", "text"), ("launch_intent", "text"), ("relaunch_service", "text"),
        ("os_version", "text"), ("events", "bigint"), ("first_event_id", "bigint"), ("last_event_id", "bigint"),
        ("status_at_start", "text"), ("status_at_end", "text"), ("evidence_pruned_at", "text"),
    ]
    /// What identifies a run (`run_key`): its start, options and counts, not `checks`, which
    /// a prune may drop later.
    static let runKeyColumns = ["started_at", "options", "events", "sessions", "findings", "new", "persisting", "resolved",
                                "evaluated", "not_evaluable", "verdict", "exit_code", "fail_on"]
    static let runColumns: Columns = [
        ("started_at", "text"), ("options", "text"), ("events", "bigint"), ("sessions", "bigint"), ("findings", "bigint"),
        ("new", "bigint"), ("persisting", "bigint"), ("resolved", "bigint"), ("evaluated", "bigint"), ("not_evaluable", "bigint"),
        ("verdict", "text"), ("exit_code", "bigint"), ("fail_on", "text"), ("coverage", "text"), ("checks", "text"),
        ("checks_pruned_at", "text"),
    ]
    static let findingColumns: Columns = [
        ("fingerprint", "text"), ("rule", "text"), ("severity", "text"), ("device_id", "text"), ("bundle_id", "text"),
        ("pid", "bigint"), ("os_version", "text"), ("session_start", "text"), ("session_event", "bigint"),
        ("time_us", "bigint"), ("time", "text"), ("message", "text"), ("evidence", "text"),
        ("first_run", "bigint"), ("last_run", "bigint"), ("resolved_run", "bigint"), ("evidence_pruned_at", "text"),
    ]

    func run() async throws -> [String: Int] {
        var rows: [String: Int] = [:]
        rows["devices"] = try await copy("devices", Self.deviceColumns, sql: "SELECT \(Self.list(Self.deviceColumns)) FROM devices ORDER BY id")
        rows["app_versions"] = try await copy("app_versions", Self.appVersionColumns,
                                              sql: "SELECT \(Self.list(Self.appVersionColumns)) FROM app_versions ORDER BY id")
        (rows["sources"], rows["events"]) = try await sourcesAndEvents()
        rows["sessions"] = try await sessions()
        let (runs, runIDs) = try await auditRuns()
        rows["audit_runs"] = runs
        rows["findings"] = try await findings(runIDs: runIDs)
        return rows
    }

    static func list(_ columns: Columns, prefix: String = "") -> String {
        columns.map { prefix + "\"\($0.name)\"" }.joined(separator: ", ")
    }

    /// The column list of `json_to_recordset(…) AS r(…)`: each column with its type.
    static func types(_ columns: Columns) -> String {
        columns.map { "\"\($0.name)\" \($0.type)" }.joined(separator: ", ")
    }

    /// `INSERT INTO locaudit.TABLE (…) SELECT … FROM json_to_recordset($1) … ON CONFLICT DO NOTHING`:
    /// the rows added.
    func insert(_ table: String, _ columns: Columns, _ rows: [[String: Any]], returning: String? = nil) async throws -> Int {
        guard !rows.isEmpty else { return 0 }
        let json = try Self.json(rows)
        let names = Self.list(columns)
        let types = Self.types(columns)
        let sql = "INSERT INTO locaudit.\(table) (\(names)) SELECT \(names) FROM json_to_recordset($1::json) AS r(\(types)) ON CONFLICT DO NOTHING"
        var bindings = PostgresBindings()
        bindings.append(json)
        return try await central.execute(PostgresQuery(unsafeSQL: sql, binds: bindings))
    }

    /// Every row of a local table, pushed in batches.
    func copy(_ table: String, _ columns: Columns, sql: String) async throws -> Int {
        let rows = try read { db in try Row.fetchAll(db, sql: sql).map(Self.object) }
        var added = 0
        for start in stride(from: 0, to: rows.count, by: Self.batch) {
            added += try await insert(table, columns, Array(rows[start..<min(start + Self.batch, rows.count)]))
        }
        return added
    }

    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try StoreError.mapping(path: path) { try local.read(body) }
    }

    /// The sources the central store lacks, each with its events in one transaction.
    func sourcesAndEvents() async throws -> (Int, Int) {
        let sources = try read { db in
            try Row.fetchAll(db, sql: "SELECT id, \(Self.list(Self.sourceColumns)) FROM sources ORDER BY id").map { row in
                (id: row["id"] as Int64, object: Self.object(row))
            }
        }
        var have = Set<String>()
        for start in stride(from: 0, to: sources.count, by: Self.batch) {
            let hashes = sources[start..<min(start + Self.batch, sources.count)].compactMap { $0.object["content_sha256"] as? String }
            have.formUnion(try await central.rows("SELECT content_sha256 FROM locaudit.sources WHERE content_sha256 = ANY(\(hashes))", as: String.self))
        }
        let missing = sources.filter { !have.contains($0.object["content_sha256"] as? String ?? "") }
        guard !missing.isEmpty else { return (0, 0) }
        try await createStaging()
        // Where each source's events are: `events` has no index on source_id, and a file's
        // events are written in one transaction, so their ids are a range; one pass finds them.
        let ranges = try read { db in
            Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT source_id, min(id) AS first, max(id) AS last FROM event_rows GROUP BY source_id")
                .map { row in (row["source_id"] as Int64, (row["first"] as Int64)...(row["last"] as Int64)) })
        }
        var addedSources = 0, addedEvents = 0
        for source in missing {
            let events = try await pushSource(id: source.id, object: source.object, range: ranges[source.id])
            if let events { addedSources += 1; addedEvents += events }
        }
        return (addedSources, addedEvents)
    }

    /// One source and its events, all or nothing; nil when another host pushed it meanwhile.
    /// A deadlock with another host writing the same events is retried.
    func pushSource(id: Int64, object: [String: Any], range: ClosedRange<Int64>?) async throws -> Int? {
        var object = object
        object["pushed_from"] = host
        let row = try Self.json([object])
        for attempt in 1... {
            do {
                return try await central.transaction { [self] central in
                    let pusher = Pusher(local: local, path: path, central: central)
                    return try await pusher.sourceTransaction(localID: id, rowJSON: row, range: range)
                }
            } catch let error as CentralError where error.sqlState == "40P01" && attempt < 5 {
                continue
            }
        }
        fatalError("unreachable: the loop returns or throws")
    }

    private func sourceTransaction(localID: Int64, rowJSON: String, range: ClosedRange<Int64>?) async throws -> Int? {
        let columns = Self.sourceColumns + [("pushed_from", "text")]
        let names = Self.list(columns)
        let types = Self.types(columns)
        var bindings = PostgresBindings()
        bindings.append(rowJSON)
        let ids = try await central.rows(PostgresQuery(unsafeSQL: """
            INSERT INTO locaudit.sources (\(names)) SELECT \(names) FROM json_to_recordset($1::json) AS r(\(types))
            ON CONFLICT DO NOTHING RETURNING id
            """, binds: bindings), as: Int64.self)
        guard let centralID = ids.first else { return nil }
        guard let range else { return 0 }
        // Most often the central store has none of a new source's events: they go straight
        // into event_rows by COPY. One it has already (another host's export of the same
        // lines: a unique violation), or a deadlock with a host writing the same lines, undoes
        // that and takes the way that skips what the central store holds.
        try await central.execute("SAVEPOINT direct")
        do {
            // COPY names one table, unqualified: locaudit's schema first, for this transaction.
            try await central.execute("SET LOCAL search_path = pg_catalog, locaudit")
            let sent = try await copyEvents(into: "event_rows", localID: localID, range: range, sourceID: centralID)
            try await central.execute("RELEASE SAVEPOINT direct")
            return sent
        } catch let error as CentralError where error.sqlState == "23505" || error.sqlState == "40P01" {
            try await central.execute("ROLLBACK TO SAVEPOINT direct")
        }
        _ = try await copyEvents(into: Self.staging, localID: localID, range: range, sourceID: nil)
        // Sorted by the central key: two hosts writing the same lines take their row locks in
        // one order (a deadlock left is retried).
        let eventNames = Self.list(Self.eventColumns)
        return try await central.execute(PostgresQuery(unsafeSQL: """
            INSERT INTO locaudit.event_rows (\(eventNames), source_id) SELECT \(eventNames), \(centralID) FROM \(Self.staging)
            ORDER BY device_id, time_us / 1000000, fingerprint ON CONFLICT DO NOTHING
            """))
    }

    /// A local source's events by `COPY` into `table`, read by id (a range scan), with the
    /// central `sourceID` as a last column when given; the rows sent.
    private func copyEvents(into table: String, localID: Int64, range: ClosedRange<Int64>, sourceID: Int64?) async throws -> Int {
        var sent = 0
        let columns = Self.eventColumns.map(\.name) + (sourceID == nil ? [] : ["source_id"])
        try await central.copy(into: table, columns: columns) { send in
            var sink = EventSink(encoder: CopyText(capacity: 1 << 20), sourceID: sourceID)
            var from = range.lowerBound
            while let (last, rows) = try read({ db in
                try Self.encodeEvents(db, source: localID, from: from, through: range.upperBound, into: &sink)
            }) {
                try await send(sink.encoder.take())
                sent += rows
                if last >= range.upperBound { break }
                from = last + 1
            }
        }
        return sent
    }

    /// Where a source's events wait in a push: `COPY` fills it, one `INSERT … SELECT` moves them
    /// to `locaudit.event_rows`, and each commit empties it. A temporary table, this
    /// connection's alone: it takes the database's TEMPORARY privilege (PUBLIC's by default),
    /// no right on locaudit's schema.
    static let staging = "push_event_rows"

    /// Creates the staging table (once a connection, outside a transaction, so a rolled back
    /// source does not drop it).
    func createStaging() async throws {
        let types = Self.eventColumns.map { "\"\($0.name)\" \($0.type)" }.joined(separator: ", ")
        try await central.execute(PostgresQuery(unsafeSQL: "CREATE TEMPORARY TABLE IF NOT EXISTS \(Self.staging) (\(types)) ON COMMIT DELETE ROWS"))
    }

    /// Events a `COPY` sends at a time.
    static let copyBatch = 10_000

    /// Up to `copyBatch` events of local source `source` with ids from `from` through
    /// `through`, in id order, encoded into `sink` as `eventColumns` (then its source id, when
    /// it has one): the last id read and the rows, nil when there was none. The store's raw
    /// reader: the bytes go from SQLite's row to the buffer.
    static func encodeEvents(_ db: Database, source: Int64, from: Int64, through: Int64, into sink: inout EventSink) throws -> (last: Int64, rows: Int)? {
        sink.last = nil
        let rows = try RawRows.read(db, sql: "SELECT id, \(list(eventColumns)) FROM events WHERE id >= ? AND id <= ? AND source_id = ? ORDER BY id LIMIT \(copyBatch)",
                                    arguments: [from, through, source], into: &sink)
        return sink.last.map { ($0, rows) }
    }

    /// An event row for `COPY`: its first column, the local id, kept aside, the central source
    /// id added last when given.
    struct EventSink: RawRowSink {
        var encoder: CopyText
        let sourceID: Int64?
        var last: Int64?
        private var atId = true

        init(encoder: CopyText, sourceID: Int64?) {
            self.encoder = encoder
            self.sourceID = sourceID
        }

        mutating func null() { encoder.null() }
        mutating func int(_ value: Int64) {
            if atId { last = value; atId = false } else { encoder.int(value) }
        }
        mutating func double(_ value: Double) { encoder.double(value) }
        mutating func text(_ bytes: UnsafeBufferPointer<UInt8>) { encoder.text(bytes) }
        mutating func endRow() {
            if let sourceID { encoder.int(sourceID) }
            encoder.endRow()
            atId = true
        }
    }

    /// Central event ids of local ones, found by content (device, UTC second, fingerprint).
    func centralEventIDs(_ localIDs: Set<Int64>) async throws -> [Int64: Int64] {
        var map: [Int64: Int64] = [:]
        let ids = localIDs.sorted()
        for start in stride(from: 0, to: ids.count, by: 500) {
            let chunk = ids[start..<min(start + 500, ids.count)]
            let keys = try read { db in
                try Row.fetchAll(db, sql: "SELECT id, device_id, time_us / 1000000 AS second, fingerprint FROM events WHERE id IN (\(chunk.map(String.init).joined(separator: ",")))")
                    .map(Self.object)
            }
            guard !keys.isEmpty else { continue }
            var bindings = PostgresBindings()
            bindings.append(try Self.json(keys))
            let found = try await central.rows(PostgresQuery(unsafeSQL: """
                SELECT k.id, e.id FROM json_to_recordset($1::json) AS k(id bigint, device_id text, second bigint, fingerprint bigint)
                JOIN locaudit.event_rows e ON e.device_id = k.device_id AND e.time_us / 1000000 = k.second AND e.fingerprint = k.fingerprint
                """, binds: bindings), as: (Int64, Int64).self)
            for (local, central) in found { map[local] = central }
        }
        return map
    }

    func sessions() async throws -> Int {
        var rows = try read { db in
            try Row.fetchAll(db, sql: "SELECT \(Self.list(Self.sessionColumns)) FROM sessions ORDER BY id").map(Self.object)
        }
        let ids = Set(rows.flatMap { [$0["first_event_id"] as? Int64, $0["last_event_id"] as? Int64].compactMap { $0 } })
        let map = try await centralEventIDs(ids)
        for i in rows.indices {
            for key in ["first_event_id", "last_event_id"] {
                rows[i][key] = (rows[i][key] as? Int64).flatMap { map[$0] } ?? NSNull()
            }
        }
        var added = 0
        for start in stride(from: 0, to: rows.count, by: Self.batch) {
            added += try await insert("sessions", Self.sessionColumns, Array(rows[start..<min(start + Self.batch, rows.count)]))
        }
        return added
    }

    /// The runs, keyed by content; local run id -> central id.
    func auditRuns() async throws -> (Int, [Int64: Int64]) {
        let runs = try read { db in
            try Row.fetchAll(db, sql: "SELECT id, \(Self.list(Self.runColumns)) FROM audit_runs ORDER BY id").map { row in
                var object = Self.object(row)
                let id = object.removeValue(forKey: "id") as? Int64 ?? 0
                // The central store keeps a run's checks as one text: its `audit_checks` rows joined.
                object["checks"] = try StoredChecks.runText(id, in: db) ?? NSNull()
                object["run_key"] = Self.runKey(object)
                object["pushed_from"] = host
                return (id: id, object: object)
            }
        }
        let columns = Self.runColumns + [("run_key", "text"), ("pushed_from", "text")]
        var added = 0
        for start in stride(from: 0, to: runs.count, by: Self.batch) {
            added += try await insert("audit_runs", columns, runs[start..<min(start + Self.batch, runs.count)].map(\.object))
        }
        let keys = runs.map { $0.object["run_key"] as? String ?? "" }
        var byKey: [String: Int64] = [:]
        for start in stride(from: 0, to: keys.count, by: Self.batch) {
            let chunk = Array(keys[start..<min(start + Self.batch, keys.count)])
            for (key, id) in try await central.rows("SELECT run_key, id FROM locaudit.audit_runs WHERE run_key = ANY(\(chunk))", as: (String, Int64).self) {
                byKey[key] = id
            }
        }
        var ids: [Int64: Int64] = [:]
        for run in runs { ids[run.id] = byKey[run.object["run_key"] as? String ?? ""] }
        return (added, ids)
    }

    static func runKey(_ run: [String: Any]) -> String {
        let text = runKeyColumns.map { "\(run[$0] ?? "")" }.joined(separator: "\u{1F}")
        var hash = SHA256()
        hash.update(data: Array(text.utf8))
        return ByteStream.hex(hash)
    }

    func findings(runIDs: [Int64: Int64]) async throws -> Int {
        var rows = try read { db in
            try Row.fetchAll(db, sql: "SELECT \(Self.list(Self.findingColumns)) FROM findings ORDER BY id").map(Self.object)
        }
        // The events they cite: the line that opened the session and the evidence.
        var cited = Set<Int64>()
        var evidence: [[[String: Any]]] = []
        for row in rows {
            if let event = row["session_event"] as? Int64 { cited.insert(event) }
            let items = (try? JSONSerialization.jsonObject(with: Data((row["evidence"] as? String ?? "[]").utf8))) as? [[String: Any]] ?? []
            for item in items { if let event = (item["event"] as? NSNumber)?.int64Value { cited.insert(event) } }
            evidence.append(items)
        }
        let map = try await centralEventIDs(cited)
        for i in rows.indices {
            rows[i]["session_event"] = (rows[i]["session_event"] as? Int64).flatMap { map[$0] } ?? NSNull()
            let items = evidence[i].map { item -> [String: Any] in
                var item = item
                if let event = (item["event"] as? NSNumber)?.int64Value { item["event"] = map[event] ?? NSNull() }
                return item
            }
            rows[i]["evidence"] = String(decoding: try JSONSerialization.data(withJSONObject: items, options: [.sortedKeys]), as: UTF8.self)
            for key in ["first_run", "last_run", "resolved_run"] {
                rows[i][key] = (rows[i][key] as? Int64).flatMap { runIDs[$0] } ?? NSNull()
            }
        }
        var added = 0
        for start in stride(from: 0, to: rows.count, by: Self.batch) {
            added += try await insert("findings", Self.findingColumns, Array(rows[start..<min(start + Self.batch, rows.count)]))
        }
        return added
    }

    /// A row as a JSON object by column name. PostgreSQL's text holds no NUL: one is sent as U+FFFD.
    static func object(_ row: Row) -> [String: Any] {
        var object: [String: Any] = [:]
        for (name, value) in row {
            switch value.storage {
            case .null: object[name] = NSNull()
            case .int64(let n): object[name] = n
            case .double(let d): object[name] = d.isFinite ? d : NSNull()
            case .string(let s): object[name] = s.contains("\u{0}") ? s.replacingOccurrences(of: "\u{0}", with: "\u{FFFD}") : s
            case .blob(let data): object[name] = String(decoding: data, as: UTF8.self)
            }
        }
        return object
    }

    static func json(_ rows: [[String: Any]]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: rows), as: UTF8.self)
    }
}
