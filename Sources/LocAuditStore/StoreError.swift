import Foundation
import GRDB
import LocAuditRead

/// Why the store cannot be used, as one sentence that names it and says what to do. Every
/// command reports a store problem through this type: SQLite's result codes become
/// sentences here and nowhere else.
public struct StoreError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Reason: Sendable, Equatable {
        /// No file at the path (exit 3, like "nothing to read").
        case missing
        /// An empty file or database, for a command that only reads (exit 3).
        case empty
        case isDirectory
        /// The folder a new store would go in does not exist.
        case folderMissing(String)
        case cannotOpen
        case notADatabase
        case corrupt
        /// A SQLite database with other tables: never written to.
        case notLocaudit(tables: [String])
        /// Migrated by a newer locaudit: its schema has steps this one does not know.
        case newerSchema
        /// Made by an older locaudit, read-only: its schema cannot be upgraded.
        case needsUpgrade
        case readOnly
        case full
        case io
        case busy
        case permission
        /// Anything else SQLite reports, with its message (never its SQL).
        case other(String)
    }

    public var path: String
    public var reason: Reason
    /// Files stored whole before the failure (an ingest that stopped at it): they stay stored.
    public var storedBefore: [String] = []

    public init(path: String, reason: Reason) {
        self.path = path
        self.reason = reason
    }

    /// The sentence for an SQLite error on the store at `path`.
    public init(_ error: DatabaseError, path: String) {
        self.path = path
        switch error.resultCode {
        case .SQLITE_CANTOPEN: reason = .cannotOpen
        case .SQLITE_NOTADB: reason = .notADatabase
        case .SQLITE_CORRUPT: reason = .corrupt
        case .SQLITE_READONLY: reason = .readOnly
        case .SQLITE_FULL: reason = .full
        case .SQLITE_IOERR: reason = .io
        case .SQLITE_BUSY, .SQLITE_LOCKED: reason = .busy
        case .SQLITE_PERM, .SQLITE_AUTH: reason = .permission
        default: reason = .other(error.message ?? "SQLite result code \(error.extendedResultCode.rawValue)")
        }
    }

    /// True when the error is about the store itself (opening, reading or writing the file),
    /// not about a statement: the cases that have their own sentence.
    public static func isStoreFailure(_ error: DatabaseError) -> Bool {
        if case .other = StoreError(error, path: "").reason { return false }
        return true
    }

    /// Runs `body`; an SQLite error becomes the store's sentence.
    public static func mapping<T>(path: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw StoreError(error, path: path)
        }
    }

    /// 3 when there is no store to read (like "nothing to read"), 6 when the store cannot be used.
    public var exitCode: Int32 {
        switch reason {
        case .missing, .empty: return 3
        default: return 6
        }
    }

    public var description: String {
        guard !storedBefore.isEmpty else { return sentence }
        let files = storedBefore.map(Printable.line).joined(separator: ", ")
        return sentence + " Stored before it, and kept (the next ingest skips \(storedBefore.count == 1 ? "it" : "them")): \(files)."
    }

    private var sentence: String {
        let folder = StoreError.folder(of: path)
        switch reason {
        case .missing:
            return "no database at \(path): run `locaudit ingest` first, or pass --db."
        case .empty:
            return "the database \(path) is empty: run `locaudit ingest` first, or pass --db."
        case .isDirectory:
            return "\(path) is a folder, not a database: pass the database file with --db (e.g. \(path)/locaudit.sqlite)."
        case .folderMissing(let folder):
            return "cannot create the database \(path): the folder \(folder) does not exist. Create it (mkdir -p \(folder)) or pass another --db."
        case .cannotOpen:
            return "cannot open the database \(path): check that it exists and is readable, and that the folder \(folder) is writable "
                + "(SQLite keeps \((path as NSString).lastPathComponent)-wal and -shm beside it)."
        case .notADatabase:
            return "\(path) is not a SQLite database (or it is encrypted or overwritten): pass the locaudit database with --db; "
                + "if this was it, restore it from a backup, or move it away and ingest the logs again."
        case .corrupt:
            return "the database \(path) is damaged (SQLite finds its pages malformed or missing, e.g. a truncated copy): "
                + "restore it from a backup, or move it away and ingest the logs again (`sqlite3 \(path) .recover` may save its rows)."
        case .notLocaudit(let tables):
            return "\(path) is a SQLite database but not a locaudit store (its tables: \(tables.joined(separator: ", "))); "
                + "locaudit leaves it untouched. Pass the locaudit database with --db, or a new path to create one."
        case .newerSchema:
            return "the database \(path) was made by a newer locaudit (its schema has steps this version does not know): "
                + "use that version, or pass another --db."
        case .needsUpgrade:
            return "the database \(path) was made by an older locaudit and its schema must be upgraded once, which needs write access: "
                + "run any locaudit command on it as a user who can write it and its folder \(folder), then read it again."
        case .readOnly:
            return "cannot write the database \(path): the file or its folder \(folder) is read-only for this user. "
                + "Give write access to both (SQLite writes -wal and -shm files beside it), or pass another --db; "
                + "`locaudit query`, `report` and `stats` can still read it."
        case .full:
            return "the disk holding the database \(path) is full: nothing of the step that failed was stored. "
                + "Free some space (or move the database with --db), then run the command again."
        case .io:
            return "cannot read or write the database \(path) (an input/output error: a failing disk, or a network share that went away): "
                + "nothing of the step that failed was stored. Check the disk, then run the command again."
        case .busy:
            return "the database \(path) stayed locked by another process for over two minutes: nothing was changed. "
                + "Run the command again when that process has finished (`fuser \(path)` names it)."
        case .permission:
            return "the system refused access to the database \(path): check its permissions and those of its folder \(folder)."
        case .other(let message):
            return "the database \(path) failed: \(message). Nothing of the step that failed was stored; run the command again, "
                + "and report it if it happens again."
        }
    }

    static func folder(of path: String) -> String {
        let folder = (path as NSString).deletingLastPathComponent
        return folder.isEmpty ? "." : folder
    }
}
