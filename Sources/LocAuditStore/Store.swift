import Foundation
import GRDB
import LocAuditModel
import LocAuditRead

/// The SQLite store: one file that ingest writes and audit, reports and users read.
public struct Store: Sendable {
    public let path: String

    /// What a command needs of the store.
    public enum Access: Sendable {
        /// Create it when missing (`ingest`, `run`).
        case create
        /// It must exist; it is written (`audit`, `prune`).
        case write
        /// It must exist; nothing is written, unless a store of an older locaudit needs its
        /// schema upgraded once (`query`, `report`, `stats`).
        case read
    }

    /// Removes the database at `path` and its journal files when it holds no source and no
    /// other connection has it open (an exclusive lock taken at once, held while the files
    /// go): an ingest that created it and stored nothing leaves none behind, and never takes
    /// away a store another process has started to use. Returns whether it was removed.
    @discardableResult
    public static func removeIfUnused(_ path: String) -> Bool {
        var config = Configuration()
        config.busyMode = .immediateError
        guard let queue = try? DatabaseQueue(path: path, configuration: config) else { return false }
        return (try? queue.inDatabase { db -> Bool in
            try db.execute(sql: "PRAGMA locking_mode = EXCLUSIVE")
            try db.execute(sql: "BEGIN EXCLUSIVE")
            guard try Int.fetchOne(db, sql: "SELECT count(*) FROM sources") == 0 else {
                try db.execute(sql: "ROLLBACK")
                return false
            }
            for file in [path, path + "-wal", path + "-shm", path + "-journal"] { try? FileManager.default.removeItem(atPath: file) }
            try db.execute(sql: "ROLLBACK")
            return true
        }) ?? false
    }

    /// `--db`, else `$LOCAUDIT_DB` (when not empty), else `./locaudit.sqlite`.
    public static func defaultPath(_ explicit: String?) -> String {
        if let explicit { return explicit }
        if let env = ProcessInfo.processInfo.environment["LOCAUDIT_DB"], !env.isEmpty { return env }
        return "locaudit.sqlite"
    }

    /// Opens the store at `path` for `access`, migrating it to the current schema. Refuses,
    /// with a `StoreError` and without writing anything, a path that is a folder or in a
    /// missing folder, a file that is not SQLite, a SQLite database that is not empty and not
    /// a locaudit store, a store of a newer locaudit, and (to write) a read-only store.
    public init(path: String, access: Access = .create) throws {
        self.path = path
        try StoreError.mapping(path: path) { try open(access) }
    }

    private func open(_ access: Access) throws {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        if fm.fileExists(atPath: path, isDirectory: &isDirectory) {
            if isDirectory.boolValue { throw StoreError(path: path, reason: .isDirectory) }
        } else if access == .create {
            let folder = StoreError.folder(of: path)
            guard fm.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw StoreError(path: path, reason: .folderMissing(folder))
            }
        } else {
            throw StoreError(path: path, reason: .missing)
        }
        let queue = try connect(readOnly: access == .read)
        let state = try queue.read(Schema.state)
        try refuse(state)
        if access == .read {
            switch state {
            case .empty: throw StoreError(path: path, reason: .empty)
            case .current: return
            default:
                // An older locaudit's store: upgraded once, which needs write access.
                do {
                    try refuse(try Schema.migrate(try connect()))
                } catch let error as DatabaseError where error.resultCode == .SQLITE_READONLY {
                    throw StoreError(path: path, reason: .needsUpgrade)
                }
            }
        } else {
            // SQLite opens a file it may not write read-only, without an error: ask as it does (open for writing).
            guard fm.isWritableFile(atPath: path) else {
                throw StoreError(path: path, reason: .readOnly)
            }
            // Checked again under the write lock: another process may have got there first.
            try refuse(try Schema.migrate(queue))
        }
    }

    /// Never writes to a database that is not a locaudit store, or to one of a newer locaudit.
    private func refuse(_ state: Schema.State) throws {
        switch state {
        case .foreign(let tables): throw StoreError(path: path, reason: .notLocaudit(tables: tables))
        case .newer: throw StoreError(path: path, reason: .newerSchema)
        default: break
        }
    }

    /// A new connection: each concurrent ingest job has its own (and its own staging tables).
    /// A read-only connection to a store whose folder is read-only (SQLite cannot create the
    /// `-shm` file it reads a WAL database with) reads the file as it is: no other process has
    /// it open then, or the `-shm` file would exist.
    public func connect(readOnly: Bool = false) throws -> DatabaseQueue {
        var config = Configuration()
        config.readonly = readOnly
        // Cron runs overlap: wait for the other writer rather than fail. Commits are short
        // (parsing happens outside the write lock), so a minute is generous.
        config.busyMode = .timeout(120)
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA temp_store = FILE")
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // Room for the pages an ingest's inserts keep touching (the tables' and indexes'
            // last leaves and their parents); a file's transaction spills the rest to the
            // WAL. 32 MB cost the same CPU and 27 MB more a job (docs/performance.md).
            try db.execute(sql: "PRAGMA cache_size = -8192")
        }
        do {
            return try DatabaseQueue(path: path, configuration: config)
        } catch let error as DatabaseError where readOnly && [.SQLITE_READONLY, .SQLITE_CANTOPEN].contains(error.resultCode) {
            let fm = FileManager.default
            let walEmpty = ((try? fm.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int64 ?? 0) == 0
            guard !fm.fileExists(atPath: path + "-shm"), walEmpty, fm.isReadableFile(atPath: path),
                  var uri = URLComponents(string: "file:") else { throw error }
            uri.path = URL(fileURLWithPath: path).standardizedFileURL.path
            uri.queryItems = [URLQueryItem(name: "immutable", value: "1")]
            guard let immutable = uri.string else { throw error }
            return try DatabaseQueue(path: immutable, configuration: config)
        }
    }
}

/// When an ingest ran, as stored text.
package enum Clock {
    package static func nowISO() -> String { Timestamps.isoUTC(nowUS()) }
    package static func nowUS() -> Int64 { Int64(Date().timeIntervalSince1970 * 1_000_000) }
}

/// Compact JSON with sorted keys, for the store's JSON columns.
package func jsonText<T: Encodable>(_ value: T) -> String {
    String(decoding: (try? Output.jsonEncoder(pretty: false).encode(value)) ?? Data("null".utf8), as: UTF8.self)
}
