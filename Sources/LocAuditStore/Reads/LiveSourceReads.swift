import Foundation
import GRDB
import LocAuditModel
import LocAuditNormalise

/// A live source (`locaudit watch`): one `sources` row that grows. Its `content_sha256` is
/// `live:` and a UUID (no content hash while it grows), its `size` and `content_size` the
/// byte offset after the last line stored with everything before it, its `file_sha256`
/// the SHA-256 of the bytes up to that offset, its `lines_read` the lines up to it: a
/// restart on the same file checks the hash and resumes there.
package struct LiveSourceRow: Sendable {
    package var id: Int64
    package var container: Container
    /// The test tool whose prefix each line has (`sources.wrapper`).
    package var wrapper: Wrapper?
    package var offset: Int64
    package var prefixSHA256: String
    package var lines: Int
    package var events: Int
    package var duplicates: Int
    package var counts: ParseCounts

    package static func marker() -> String { "live:\(UUID().uuidString)" }

    /// The latest live source recorded for `path`, if any.
    package static func latest(path: String, in db: Database) throws -> LiveSourceRow? {
        guard let row = try Row.fetchOne(db, sql: """
            SELECT id, container, wrapper, content_size, file_sha256, lines_read, events, skipped, notes, first_time, last_time FROM sources
            WHERE path = ? AND content_sha256 LIKE 'live:%' ORDER BY id DESC LIMIT 1
            """, arguments: [path]),
            let container = Container(rawValue: row["container"]) else { return nil }
        var counts = ParseCounts()
        counts.linesRead = row["lines_read"]
        counts.skipped = decode(row["skipped"]) ?? [:]
        counts.notes = decode(row["notes"]) ?? [:]
        let duplicates = counts.skipped.removeValue(forKey: SkipReason.duplicate.rawValue) ?? 0
        counts.firstUS = microseconds(row["first_time"])
        counts.lastUS = microseconds(row["last_time"])
        let wrapper = (row["wrapper"] as String?).flatMap(Wrapper.init(rawValue:))
        return LiveSourceRow(id: row["id"], container: container, wrapper: wrapper, offset: row["content_size"], prefixSHA256: row["file_sha256"],
                             lines: row["lines_read"], events: row["events"], duplicates: duplicates, counts: counts)
    }

    /// The devices and apps of the source's events after event `afterId`, and its last event's id.
    package static func written(source: Int64, afterId: Int64, in db: Database) throws
        -> (groups: [(deviceId: String, bundleId: String)], lastId: Int64) {
        let groups = try Row.fetchAll(db, sql: """
            SELECT DISTINCT device.name AS device_id, bundle.name AS bundle_id
            FROM event_rows e JOIN names device ON device.id = e.device_ref JOIN names bundle ON bundle.id = e.bundle_ref
            WHERE e.id > ? AND e.source_id = ?
            """, arguments: [afterId, source]).map { ($0["device_id"] as String, $0["bundle_id"] as String) }
        let last = try Int64.fetchOne(db, sql: "SELECT max(id) FROM event_rows WHERE id > ? AND source_id = ?", arguments: [afterId, source])
        return (groups, last ?? afterId)
    }

    /// Whether a source's row is still there.
    package static func exists(_ source: Int64, in db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM sources WHERE id = ?)", arguments: [source]) ?? false
    }

    /// The device a source's lines were stored under.
    package static func device(of source: Int64, in db: Database) throws -> String? {
        try String.fetchOne(db, sql: "SELECT device_id FROM sources WHERE id = ?", arguments: [source])
    }

    private static func microseconds(_ text: String?) -> Int64? {
        guard let text else { return nil }
        return Array(text.utf8).withUnsafeBufferPointer { Timestamps.parseISOLike($0)?.us }
    }

    private static func decode(_ text: String?) -> [String: Int]? {
        text.flatMap { try? JSONDecoder().decode([String: Int].self, from: Data($0.utf8)) }
    }
}
