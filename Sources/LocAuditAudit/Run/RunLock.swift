import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The lock that keeps nightly runs (and prunes) from overlapping: `flock` on `DB.lock`
/// beside the database. The kernel drops it when the process ends, however it ends.
public final class RunLock {
    public let path: String
    private let fd: Int32

    /// The lock file of a database.
    public static func path(forDatabase database: String) -> String { database + ".lock" }

    /// Takes the lock, waiting up to `wait` seconds for another holder; `onWait` is told once
    /// when it has to wait (with the holder's pid, when known).
    public init(database: String, wait: TimeInterval, onWait: (Int32?) -> Void = { _ in }) throws {
        path = RunLock.path(forDatabase: database)
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw RunError.lockUnavailable(path, String(cString: strerror(errno))) }
        let deadline = Date().addingTimeInterval(wait)
        var told = false
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let error = errno
            guard error == EWOULDBLOCK || error == EINTR else {
                close(fd)
                throw RunError.lockUnavailable(path, String(cString: strerror(error)))
            }
            let holder = RunLock.holder(path)
            guard Date() < deadline else {
                close(fd)
                throw RunError.locked(path, holder: holder, waited: wait)
            }
            if !told { onWait(holder); told = true }
            Thread.sleep(forTimeInterval: 0.1)
        }
        // The holder's pid, for the message another run prints.
        _ = ftruncate(fd, 0)
        let pid = Array("\(getpid())\n".utf8)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }

    private static func holder(_ path: String) -> Int32? {
        (try? String(contentsOfFile: path, encoding: .utf8)).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }
}

/// Why a nightly run (or a prune) could not run; each maps to a documented exit code.
public enum RunError: Error, CustomStringConvertible, Sendable {
    /// Another run holds the lock (exit 4).
    case locked(String, holder: Int32?, waited: TimeInterval)
    /// The lock file cannot be created or locked (exit 2: a path, permission or file system problem).
    case lockUnavailable(String, String)
    /// `--inbox` is not a directory (exit 2).
    case inboxMissing(String)

    public var description: String {
        switch self {
        case let .locked(path, holder, waited):
            return "another locaudit run\(holder.map { " (pid \($0))" } ?? "") holds \(path); gave up after waiting \(Int(waited)) s. "
                + "Nothing was read or written. If no locaudit is running, the lock is free again and the next run proceeds; raise --wait to wait longer."
        case let .lockUnavailable(path, why):
            return "cannot lock \(path): \(why). Check that the database's folder exists, is writable and on a local file system."
        case let .inboxMissing(path):
            return "the inbox \(path) is not a directory. Check --inbox."
        }
    }

    public var exitCode: Int32 {
        switch self {
        case .locked: return 4
        case .lockUnavailable, .inboxMissing: return 2
        }
    }
}
