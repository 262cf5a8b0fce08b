import GRDB
import LocAuditModel
import LocAuditReplay

/// The `names` table: the device ids, bundle ids, processes, kinds, patterns and links that
/// `event_rows` holds as ids. A name keeps its id for ever (none is deleted), so a cache is
/// good for as long as the transaction that filled it.
final class EventNames {
    private let db: Database
    private var ids: [String: Int64] = [:]

    /// Reads every name: a store holds a few thousand at most (its devices, apps, processes).
    init(_ db: Database) throws {
        self.db = db
        for row in try Row.fetchAll(db, sql: "SELECT id, name FROM names") { ids[row["name"]] = row["id"] }
    }

    /// The id of `name`, added when new.
    func id(_ name: String) throws -> Int64 {
        if let id = ids[name] { return id }
        try db.execute(sql: "INSERT OR IGNORE INTO names (name) VALUES (?)", arguments: [name])
        let id = try Int64.fetchOne(db, sql: "SELECT id FROM names WHERE name = ?", arguments: [name])!
        ids[name] = id
        return id
    }

    /// The id of `name`; nil when no event has it.
    static func existing(_ name: String, in db: Database) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT id FROM names WHERE name = ?", arguments: [name])
    }

    /// Every id with its name.
    static func all(in db: Database) throws -> [Int64: String] {
        var names: [Int64: String] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT id, name FROM names") { names[row["id"]] = row["name"] }
        return names
    }

    /// The kinds whose lines tell which families a device's logs carry (`DeviceLogs`).
    static var familyKinds: [EventKind] { DeviceLogs.kinds }

    /// The condition of the partial index `events_by_family`, word for word: a query that
    /// uses the index repeats it. The kinds' ids were fixed when v11 made the table.
    ///
    /// Comparisons joined by OR, not `kind_ref IN (…)`: SQLite tests a partial index's
    /// condition on every row inserted, and an IN list of more than two values it tests
    /// through a temporary B-tree that it builds again at each execution of the INSERT (opened,
    /// its pages zeroed, six rows inserted, closed): about 30,000 instructions an event, a
    /// quarter of the ingest's (migration v17, docs/performance.md).
    static func familyCondition(_ db: Database) throws -> String {
        var ids: [Int64] = []
        for kind in familyKinds { if let id = try existing(kind.rawValue, in: db) { ids.append(id) } }
        // No kind known (never in a store v11 made: it names them all): a condition no row meets.
        guard !ids.isEmpty else { return "kind_ref IN ()" }
        return "(" + ids.sorted().map { "kind_ref = \($0)" }.joined(separator: " OR ") + ")"
    }
}
