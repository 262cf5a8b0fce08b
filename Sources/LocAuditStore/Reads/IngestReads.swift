import GRDB

// What an ingest asks the store besides writing events: whether it has the file already,
// and from when an Info.plist that came with logs is in force.

extension Store {
    /// The path the file of these bytes was first ingested from, if it was. Only files of
    /// the same size are hashed (`sha256` is called only then), so a new file costs one
    /// indexed query.
    package static func firstIngest(size: Int64, sha256: () throws -> String, in db: DatabaseQueue) throws -> String? {
        let sameSize = try db.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM sources WHERE size = ?", arguments: [size]) ?? 0
        }
        guard sameSize > 0 else { return nil }
        let sha = try sha256()
        return try db.read { db in
            try String.fetchOne(db, sql: "SELECT path FROM sources WHERE size = ? AND file_sha256 = ?", arguments: [size, sha])
        }
    }

    /// An Info.plist handed in with logs is in force from their first line, not from the
    /// moment it was read: they came together (the night's logs of a new build and its
    /// Info.plist). One ingested alone is in force from its ingest: earlier logs keep theirs.
    package func datePlists(since startedUS: Int64, logs: [Int64]) throws {
        guard !logs.isEmpty else { return }
        do {
            try connect().write { db in
                guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM app_versions WHERE first_seen_us >= ?)",
                                        arguments: [startedUS]) == true else { return }
                try db.execute(sql: """
                    UPDATE app_versions SET first_seen_us = min(first_seen_us, coalesce((
                        SELECT CAST(strftime('%s', min(first_time)) AS INTEGER) * 1000000 FROM sources
                        WHERE id IN (SELECT value FROM json_each(?))), first_seen_us))
                    WHERE first_seen_us >= ?
                    """, arguments: [jsonText(logs), startedUS])
            }
        } catch let error as DatabaseError {
            throw StoreError(error, path: path)
        }
    }
}
