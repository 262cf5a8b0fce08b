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
}
