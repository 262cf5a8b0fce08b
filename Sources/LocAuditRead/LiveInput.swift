import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A live log's bytes as they arrive (`locaudit watch`): standard input, a file read to its
/// end, or a file followed like `tail -F` (kept open across rotation and truncation).
///
/// One thread reads; the caller takes what arrived, waiting at most until a deadline, so
/// that it can commit and audit on its own clock.
package final class LiveInput: Sendable {
    package enum Item: Sendable {
        case bytes([UInt8])
        /// What follows is another file's content, from its start: the followed path was
        /// rotated (a new file under its name) or truncated.
        case newFile(String)
        /// The input ended (end of standard input, or of a file that is not followed).
        case end
        case failed(String)
    }

    private let items = Locked<[Item]>([])
    private let arrived = DispatchSemaphore(value: 0)
    /// Blocks of bytes the reader may hold before the caller takes them: a stream faster than
    /// the caller waits in the pipe or the file, not in memory (4 MiB).
    private let room = DispatchSemaphore(value: LiveInput.blocksHeld)
    static let blocksHeld = 64
    /// How often a followed file is looked at once it has been read to its end.
    package static let pollSeconds = 0.1
    static let readSize = 1 << 16

    /// Starts reading `path` (`-`: standard input) from `offset` (a file's resumed position).
    package init(path: String, follow: Bool, offset: Int64 = 0) {
        let thread = Thread { [self] in
            if path == "-" {
                readToEnd(fd: 0)
            } else if follow {
                self.follow(path, from: offset)
            } else {
                let fd = open(path, O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else { return put(.failed("cannot open \(path): \(String(cString: strerror(errno))). Check the path.")) }
                defer { close(fd) }
                if offset > 0 { lseek(fd, off_t(offset), SEEK_SET) }
                readToEnd(fd: fd)
            }
        }
        thread.name = "locaudit-live-input"
        thread.start()
    }

    /// What arrived, waiting for something until `deadline`.
    package func take(waitingUntil deadline: DispatchTime) -> [Item] {
        var taken = items.withLock { items in defer { items = [] }; return items }
        if taken.isEmpty, arrived.wait(timeout: deadline) == .success {
            taken = items.withLock { items in defer { items = [] }; return items }
        }
        for case .bytes in taken { room.signal() }
        return taken
    }

    /// Ends a wait early (a signal asked the watch to stop).
    package func wake() { arrived.signal() }

    private func put(_ item: Item) {
        if case .bytes = item { room.wait() }
        items.withLock { $0.append(item) }
        arrived.signal()
    }

    private func readToEnd(fd: Int32) {
        while let bytes = read(fd) {
            if bytes.isEmpty { return put(.end) }
            put(.bytes(bytes))
        }
    }

    /// The next bytes of `fd` (empty at its end), nil after a failure (already reported).
    private func read(_ fd: Int32) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: LiveInput.readSize)
        while true {
            let n = buffer.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress, $0.count) }
            if n >= 0 { return Array(buffer.prefix(n)) }
            if errno == EINTR { continue }
            put(.failed("cannot read the input: \(String(cString: strerror(errno)))."))
            return nil
        }
    }

    /// `tail -F`: reads to the end, then looks again every `pollSeconds`; a new file under
    /// the name (rotation) is read from its start once the old one is read to its end, and so
    /// is a file that became shorter than what was read (truncation).
    private func follow(_ path: String, from offset: Int64) {
        var fd: Int32 = -1
        var position: Int64 = 0
        var first = true
        while true {
            if fd < 0 {
                fd = open(path, O_RDONLY | O_CLOEXEC)
                if fd < 0 {
                    // Not there (yet, or between a rotation's rename and the new file).
                    if errno != ENOENT { return put(.failed("cannot open \(path): \(String(cString: strerror(errno))). Check the path.")) }
                    Thread.sleep(forTimeInterval: LiveInput.pollSeconds)
                    continue
                }
                if first, offset > 0 {
                    lseek(fd, off_t(offset), SEEK_SET)
                    position = offset
                } else if !first {
                    put(.newFile(path))
                }
                first = false
            }
            guard let bytes = read(fd) else { close(fd); return }
            if !bytes.isEmpty {
                position += Int64(bytes.count)
                put(.bytes(bytes))
                continue
            }
            Thread.sleep(forTimeInterval: LiveInput.pollSeconds)
            var mine = stat(), named = stat()
            guard fstat(fd, &mine) == 0 else { close(fd); fd = -1; continue }
            if stat(path, &named) != 0 || named.st_ino != mine.st_ino || named.st_dev != mine.st_dev {
                // Rotated: what the old file still holds was read above; take the new one.
                if let rest = read(fd), !rest.isEmpty { put(.bytes(rest)); position += Int64(rest.count); continue }
                close(fd)
                fd = -1
                position = 0
            } else if Int64(mine.st_size) < position {
                lseek(fd, 0, SEEK_SET)
                position = 0
                put(.newFile(path))
            }
        }
    }
}

/// The SHA-256 of a stream's bytes so far, readable at any point (a live source's prefix).
package struct RunningHash {
    private var sha = SHA256()
    package init() {}
    package mutating func update(_ bytes: some DataProtocol) { sha.update(data: bytes) }
    package var hex: String { ByteStream.hex(sha) }
}
