import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The live sources a `locaudit watch` holds, which `prune` leaves alone: a read lock
/// (`fcntl`) on the byte of `DB.live.lock` whose offset is the source's id. The watch takes
/// it inside the transaction that creates (or resumes) the row, so no prune sees the row
/// unlocked, and keeps it until the process ends, however it ends (the kernel drops it):
/// every source a watch wrote into stays until the watch's end audit has read it.
///
/// POSIX record locks belong to the process and all go when any of its descriptors of the
/// file closes: one descriptor a lock file, opened once, never closed.
package enum LiveSourceLock {
    /// The lock file of a database.
    package static func path(forDatabase database: String) -> String { database + ".live.lock" }

    nonisolated(unsafe) private static var descriptors: [String: Int32] = [:]
    private static let mutex = NSLock()

    /// Holds `source` of `database` until the process ends. False when the lock file cannot be
    /// opened or locked (a read-only folder): the source is then not protected from a prune.
    @discardableResult
    package static func hold(source: Int64, database: String) -> Bool {
        let path = path(forDatabase: database)
        return mutex.withLock {
            var fd = descriptors[path] ?? -1
            if fd < 0 {
                fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
                guard fd >= 0 else { return false }
                descriptors[path] = fd
            }
            var lock = flock(l_type: Int16(F_RDLCK), l_whence: Int16(SEEK_SET), l_start: off_t(source), l_len: 1, l_pid: 0)
            return fcntl(fd, F_SETLK, &lock) == 0
        }
    }

    /// The sources of `ids` that a running watch (another process) holds.
    package static func held(_ ids: [Int64], database: String) -> Set<Int64> {
        let fd = open(path(forDatabase: database), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [] } // no watch ever ran on this database
        defer { close(fd) }
        var held = Set<Int64>()
        for id in ids {
            var lock = flock(l_type: Int16(F_WRLCK), l_whence: Int16(SEEK_SET), l_start: off_t(id), l_len: 1, l_pid: 0)
            if fcntl(fd, F_GETLK, &lock) == 0, lock.l_type != Int16(F_UNLCK) { held.insert(id) }
        }
        return held
    }
}
