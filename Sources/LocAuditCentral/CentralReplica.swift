import Foundation
import GRDB
import LocAuditModel
import LocAuditRead
import LocAuditStore
import PostgresNIO

/// The central store's rows in a temporary SQLite store, with the central ids: what the
/// central audit audits and `report --db postgresql://…` renders, with the very code that
/// audits and renders a host's store. Read in one snapshot (`REPEATABLE READ`), so that
/// hosts pushing meanwhile never leave a source without its events.
package enum CentralReplica {
    /// A table's documented columns, as both engines name them; the `events` columns are `StoreCopy.eventColumns`.
    static let tables: [(name: String, columns: [String])] = [
        ("devices", Pusher.deviceColumns.map(\.name)),
        ("app_versions", ["id"] + Pusher.appVersionColumns.map(\.name)),
        // The view of each app's latest Info.plist, a table in SQLite.
        ("apps", ["bundle_id", "executable", "name", "version", "usage_keys", "background_modes", "temporary_purpose_keys",
                  "default_accuracy_reduced", "default_accuracy_reduced_type", "plist_path", "plist_sha256", "ingested_at"]),
        ("sources", ["id"] + Pusher.sourceColumns.map(\.name)),
        ("sessions", Pusher.sessionColumns.map(\.name)),
        ("audit_runs", ["id"] + Pusher.runColumns.map(\.name)),
        ("findings", ["id"] + Pusher.findingColumns.map(\.name)),
        // Last: which lines a settling audit copies depends on the Info.plists copied before.
        ("events", StoreCopy.eventColumns),
    ]
    /// Rows written to SQLite a transaction.
    static let batch = 5_000

    /// Drops the indexes of `table` (not those of its constraints), returning the statements
    /// that made them, in the order they were made.
    static func dropIndexes(of table: String, in db: Database) throws -> [String] {
        let indexes = try Row.fetchAll(db, sql: """
            SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY rowid
            """, arguments: [table])
        for index in indexes { try db.execute(sql: "DROP INDEX \"\(index["name"] as String)\"") }
        return indexes.map { $0["sql"] }
    }

    /// Creates the store at `path` (a new file) and copies every table into it (`events` only
    /// when asked, and of `devices` only when given: an audit of those devices reads no
    /// other's events); the events read. With `settle` (the fleet's full audit, judging with those rules), the
    /// checkpoints still good (`CentralCheckpoints`) go into the copy's `replay_checkpoints`, and
    /// of their apps only the lines from the checkpoint's second on are copied (with the first
    /// and configuration lines of the settled sessions). An audit's copy (`audit`) leaves out what
    /// only `report` reads: the earlier runs' checks (a check per session and rule: the history's
    /// size); a settling audit's, the sessions it replaces (all but those a prune kept).
    @discardableResult
    package static func make(from central: Central, at path: String, events copyEvents: Bool = true, devices: [String]? = nil,
                             settle rules: String? = nil, audit: Bool = false) async throws -> (events: Int, checkpoints: CentralCheckpoints?) {
        let store = try Store(path: path, access: .create)
        let queue = try store.connect()
        // A copy removed at the end, never read after a crash: its commits need not wait for the
        // disk, nor its pages go through a journal (the WAL wrote each one twice). This
        // connection's only: the audit opens the replica in WAL mode again (`Store`), so that
        // its `--no-record` rollback has a journal (CentralAuditTests).
        try StoreError.mapping(path: path) {
            try queue.inDatabase { db in
                try db.execute(sql: "PRAGMA synchronous = OFF")
                _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = OFF")
            }
        }
        let writer = Writer(queue: queue, path: path)
        // A read that fails leaves no batch writing into a copy about to be removed.
        defer { writer.drain() }
        try await central.beginSnapshot()
        // A few queries, each run once: compiling them (JIT) cost more than it saved (docs/performance.md).
        try await central.execute("SET LOCAL jit = off")
        var events = 0
        var checkpoints: CentralCheckpoints?
        var eventIndexes: [String] = []
        for table in tables where copyEvents || table.name != "events" {
            let order = table.name == "apps" ? "bundle_id" : "id"
            let columns = table.columns.map { "\"\($0)\"" }.joined(separator: ", ")
            var binds = PostgresBindings()
            var sql = "SELECT \(columns) FROM locaudit.\(table.name)"
            var unordered = false
            if table.name == "audit_runs", audit {
                sql = "SELECT \(table.columns.map { $0 == "checks" ? "NULL AS checks" : "\"\($0)\"" }.joined(separator: ", ")) FROM locaudit.audit_runs"
            } else if table.name == "sessions", rules != nil {
                // Every session the settling audit can rebuild it writes again: only a prune's stay as stored.
                sql += " WHERE evidence_pruned_at IS NOT NULL"
            } else if table.name == "events", let devices {
                binds.append(devices)
                sql += " WHERE device_id = ANY($1)"
            } else if table.name == "events", let rules {
                // The Info.plists are copied: judge the checkpoints, then copy what they leave.
                try writer.finish()
                let plists = try StoreError.mapping(path: path) { try queue.read { try AppVersions.load($0) } }
                let judged = try await CentralCheckpoints.read(central, rules: rules, plists: plists)
                checkpoints = judged
                if !judged.stored.isEmpty {
                    try StoreError.mapping(path: path) { try queue.write { try judged.keep(in: $0) } }
                    let groups = judged.copyFrom.values.sorted { ($0.deviceId, $0.bundleId) < ($1.deviceId, $1.bundleId) }
                    binds.append(groups.map(\.deviceId))
                    binds.append(groups.map(\.bundleId))
                    binds.append(groups.map(\.fromUS))
                    binds.append(judged.settledLines)
                    binds.append(judged.stored.values.map(\.lastEventID).min() ?? 0)
                    // Each app from where its copy starts (an index scan of `events_by_app` per
                    // app: `OFFSET 0` keeps the planner from joining by a scan of every event
                    // held), the settled sessions' lines that copy does not hold, and the
                    // device-wide lines pushed since: three disjoint parts, so that no row is
                    // compared to drop a duplicate (`UNION` sorted every row copied by all its
                    // columns, on disk), nor sorted: the copy keeps their ids, and SQLite took
                    // them an app at a time as fast (the server's sort by id cost a fifth of its CPU).
                    let qualified = table.columns.map { "ev.\"\($0)\"" }.joined(separator: ", ")
                    let fromEach = "unnest($1::text[], $2::text[], $3::bigint[]) AS g(device_id, bundle_id, from_us)"
                    sql = """
                        SELECT \(qualified) FROM \(fromEach) CROSS JOIN LATERAL (
                            SELECT \(columns) FROM locaudit.events e
                            WHERE e.device_id = g.device_id AND e.bundle_id = g.bundle_id AND e.time_us >= g.from_us OFFSET 0) ev
                        UNION ALL SELECT \(qualified) FROM locaudit.events ev
                            WHERE ev.id = ANY($4::bigint[]) AND (ev.bundle_id IS NOT NULL OR ev.id <= $5)
                                AND NOT EXISTS (SELECT 1 FROM \(fromEach)
                                    WHERE g.device_id = ev.device_id AND g.bundle_id = ev.bundle_id AND ev.time_us >= g.from_us)
                        UNION ALL SELECT \(qualified) FROM locaudit.events ev WHERE ev.id > $5 AND ev.bundle_id IS NULL
                        """
                    unordered = true
                }
            }
            if !unordered { sql += " ORDER BY \"\(order)\"" }
            if table.name == "events" {
                // The indexes of `event_rows` built once over the copied rows (an index
                // entry a row as it went in cost about a quarter of the insert;
                // docs/performance.md, "The fleet's audit, fourth round"): dropped here, made
                // again below by the statements the schema made them with.
                try writer.finish()
                eventIndexes = try StoreError.mapping(path: path) { try queue.inDatabase { try dropIndexes(of: "event_rows", in: $0) } }
            }
            var rows: [[DatabaseValue]] = []
            rows.reserveCapacity(batch)
            do {
                for try await row in try await central.connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: Central.logger) {
                    rows.append(row.map(CentralQuery.value))
                    if table.name == "events" { events += 1 }
                    if rows.count == batch {
                        try writer.write(rows, table: table)
                        rows.removeAll(keepingCapacity: true)
                    }
                }
            } catch let error as StoreError {
                throw error
            } catch {
                throw CentralError.from(error, url: central.url)
            }
            try writer.write(rows, table: table)
        }
        try writer.finish()
        if !eventIndexes.isEmpty {
            try StoreError.mapping(path: path) {
                try queue.inDatabase { db in
                    for sql in eventIndexes { try db.execute(sql: sql) }
                }
            }
        }
        try await central.execute("COMMIT")
        return (events, checkpoints)
    }
}

extension CentralCheckpoints {
    /// Writes the good checkpoints into the copy's `replay_checkpoints`, where the audit's replay starts from them.
    func keep(in db: Database) throws {
        for stored in good.values {
            guard let asOf = stored.asOf, let state = stored.state else { continue }
            try db.execute(sql: """
                INSERT INTO replay_checkpoints (device_id, bundle_id, as_of_us, as_of_source, as_of_line, state, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """, arguments: [stored.deviceId, stored.bundleId, asOf.timeUS, asOf.source, asOf.line, state, Clock.nowISO()])
        }
    }
}

/// Writes the copied rows into the SQLite store on a thread of its own, a batch (one
/// transaction) at a time, while the next batch is read from the server: at most two batches
/// wait, so that memory stays bounded when SQLite is the slower side.
private final class Writer: Sendable {
    let queue: DatabaseQueue
    let path: String
    private let thread = DispatchQueue(label: "locaudit.central.replica")
    private let slots = DispatchSemaphore(value: 2)
    private let failure = Locked<(any Error)?>(nil)

    init(queue: DatabaseQueue, path: String) {
        (self.queue, self.path) = (queue, path)
    }

    /// Hands `rows` of `table` to the writing thread; throws what an earlier batch failed with.
    func write(_ rows: [[DatabaseValue]], table: (name: String, columns: [String])) throws {
        if let error = failure.withLock({ $0 }) { throw error }
        guard !rows.isEmpty else { return }
        slots.wait()
        thread.async { [self] in
            defer { slots.signal() }
            do {
                try StoreError.mapping(path: path) {
                    try queue.write { db in
                        let copy = try StoreCopy(db)
                        for row in rows {
                            if table.name == "events" { try copy.event(row) } else { try copy.insert(into: table.name, columns: table.columns, values: row) }
                        }
                    }
                }
            } catch {
                failure.withLock { $0 = $0 ?? error }
            }
        }
    }

    /// Waits for every batch; throws the first failure.
    func finish() throws {
        drain()
        if let error = failure.withLock({ $0 }) { throw error }
    }

    func drain() { thread.sync {} }
}
