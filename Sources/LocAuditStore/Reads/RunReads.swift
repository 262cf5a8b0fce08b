import Foundation
import GRDB

// What the nightly run asks the store: where the new events start, and whose they are.

extension Store {
    /// The id of the last event stored; 0 for none. New events get ids above it.
    package func lastEventId() throws -> Int64 {
        try connect(readOnly: true).read(Store.lastEventId(in:))
    }

    /// The id of the last event stored, in `db`; 0 for none.
    package static func lastEventId(in db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT max(id) FROM event_rows") ?? 0
    }

    /// The apps of the events after `lastEventBefore` of these sources.
    package func apps(ofSources sourceIds: [Int64], eventsAfter lastEventBefore: Int64) throws -> [String] {
        try connect(readOnly: true).read { db in
            try String.fetchAll(db, sql: """
                SELECT DISTINCT bundle_id FROM events
                WHERE id > ? AND bundle_id IS NOT NULL AND source_id IN (SELECT value FROM json_each(?))
                """, arguments: [lastEventBefore, jsonText(sourceIds)])
        }
    }

    /// What a nightly run owes the audit, recorded before its ingest (in a transaction of its
    /// own: no file is stored before it) and deleted once its audit is recorded: a run killed
    /// in between leaves it, and the next run audits what it covers first.
    package func oweAudit() throws -> AuditOwed {
        try connect().write { db in
            let afterSource = try Int64.fetchOne(db, sql: "SELECT max(id) FROM sources") ?? 0
            let afterEvent = try Store.lastEventId(in: db)
            let now = Clock.nowISO()
            try db.execute(sql: "INSERT INTO audit_owed (started_at, pid, after_source, after_event) VALUES (?, ?, ?, ?)",
                           arguments: [now, Int64(ProcessInfo.processInfo.processIdentifier), afterSource, afterEvent])
            return AuditOwed(id: db.lastInsertedRowID, startedAt: now, afterSource: afterSource, afterEvent: afterEvent)
        }
    }

    /// The audits earlier runs owe: runs that stopped (were killed) before their audit was recorded.
    package func owedAudits() throws -> [AuditOwed] {
        try connect(readOnly: true).read { db in
            try Row.fetchAll(db, sql: "SELECT id, started_at, after_source, after_event FROM audit_owed ORDER BY id").map {
                AuditOwed(id: $0["id"], startedAt: $0["started_at"], afterSource: $0["after_source"], afterEvent: $0["after_event"])
            }
        }
    }

    /// The audits are recorded: the runs owe nothing.
    package func settle(_ owed: [AuditOwed]) throws {
        guard !owed.isEmpty else { return }
        try connect().write { db in
            try db.execute(sql: "DELETE FROM audit_owed WHERE id IN (SELECT value FROM json_each(?))", arguments: [jsonText(owed.map(\.id))])
        }
    }

    /// What the sources stored after `owed` hold: their logs (id, device) and the apps of
    /// their Info.plists.
    package func stored(after owed: AuditOwed) throws -> (logs: [(sourceId: Int64, device: String?)], plistApps: Set<String>) {
        try connect(readOnly: true).read { db in
            let logs = try Row.fetchAll(db, sql: """
                SELECT id, device_id FROM sources WHERE id > ? AND container NOT IN ('info-plist', 'ideviceinfo') ORDER BY id
                """, arguments: [owed.afterSource]).map { (sourceId: $0["id"] as Int64, device: $0["device_id"] as String?) }
            let apps = try String.fetchAll(db, sql: """
                SELECT DISTINCT a.bundle_id FROM app_versions a JOIN sources s ON s.content_sha256 = a.plist_sha256
                WHERE s.id > ? AND s.container = 'info-plist'
                """, arguments: [owed.afterSource])
            return (logs, Set(apps))
        }
    }
}

/// A nightly run between its ingest and its audit (`audit_owed`).
package struct AuditOwed: Sendable, Equatable {
    package var id: Int64
    package var startedAt: String
    /// Sources and events with greater ids were stored by that run, or after it.
    package var afterSource: Int64
    package var afterEvent: Int64

    package init(id: Int64, startedAt: String, afterSource: Int64, afterEvent: Int64) {
        (self.id, self.startedAt, self.afterSource, self.afterEvent) = (id, startedAt, afterSource, afterEvent)
    }
}
