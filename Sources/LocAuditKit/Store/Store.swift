import Foundation
import GRDB

/// The SQLite store: one file that ingest writes and audit, reports and users read.
public struct Store: Sendable {
    public let path: String

    /// `--db`, else `$LOCAUDIT_DB`, else `./locaudit.sqlite`.
    public static func defaultPath(_ explicit: String?) -> String {
        explicit ?? ProcessInfo.processInfo.environment["LOCAUDIT_DB"] ?? "locaudit.sqlite"
    }

    /// Opens (creating and migrating) the store at `path`; with `migrate: false`, opens it as it is
    /// (for read-only use: nothing is written).
    public init(path: String, migrate: Bool = true) throws {
        self.path = path
        guard migrate else { return }
        let queue = try connect()
        try queue.inDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
        }
        try Schema.migrator.migrate(queue)
    }

    /// A new connection: each concurrent ingest job has its own (and its own staging tables).
    public func connect(readOnly: Bool = false) throws -> DatabaseQueue {
        var config = Configuration()
        config.readonly = readOnly
        // Cron runs overlap: wait for the other writer rather than fail. Commits are short
        // (parsing happens outside the write lock), so a minute is generous.
        config.busyMode = .timeout(120)
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA temp_store = FILE")
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // A file's events are one transaction: room for its dirty pages saves spilling them twice.
            try db.execute(sql: "PRAGMA cache_size = -32768")
        }
        return try DatabaseQueue(path: path, configuration: config)
    }
}

/// When an ingest ran, as stored text.
enum Clock {
    static func nowISO() -> String {
        Timestamps.isoUTC(Int64(Date().timeIntervalSince1970 * 1_000_000))
    }
}

/// Compact JSON with sorted keys, for the store's JSON columns.
func jsonText<T: Encodable>(_ value: T) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: (try? encoder.encode(value)) ?? Data("null".utf8), as: UTF8.self)
}
