import Foundation
import GRDB
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
        ("events", StoreCopy.eventColumns),
        ("sessions", Pusher.sessionColumns.map(\.name)),
        ("audit_runs", ["id"] + Pusher.runColumns.map(\.name)),
        ("findings", ["id"] + Pusher.findingColumns.map(\.name)),
    ]
    /// Rows written to SQLite a transaction.
    static let batch = 5_000

    /// Creates the store at `path` (a new file) and copies every table into it (`events` only
    /// when asked, and of `devices` only when given: an audit of those devices reads no
    /// other's events); the events read.
    @discardableResult
    package static func make(from central: Central, at path: String, events copyEvents: Bool = true, devices: [String]? = nil) async throws -> Int {
        let store = try Store(path: path, access: .create)
        let writer = Writer(queue: try store.connect(), path: path)
        // A read that fails leaves no batch writing into a copy about to be removed.
        defer { writer.drain() }
        try await central.beginSnapshot()
        var events = 0
        for table in tables where copyEvents || table.name != "events" {
            let order = table.name == "apps" ? "bundle_id" : "id"
            var binds = PostgresBindings()
            var filter = ""
            if table.name == "events", let devices {
                binds.append(devices)
                filter = " WHERE device_id = ANY($1)"
            }
            let sql = "SELECT \(table.columns.map { "\"\($0)\"" }.joined(separator: ", ")) FROM locaudit.\(table.name)\(filter) ORDER BY \(order)"
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
        try await central.execute("COMMIT")
        return events
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
