import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Something locaudit could not write: a sentence naming the path (or standard output) and
/// what to do. Commands exit with `OutputError.exitCode`.
public struct OutputError: Error, CustomStringConvertible, Sendable, Equatable {
    public var description: String

    /// The exit status of a command whose report or standard output could not be written.
    public static let exitCode: Int32 = 7

    package init(_ description: String) { self.description = description }
}

/// Where reports, query results and summaries go, the one place that writes them.
///
/// A path is written without destroying anything: a regular file (or a new one) through a
/// temporary file in the same folder, renamed over it once complete (its permission bits
/// kept); a character device, FIFO or socket is opened (connected) and written to, never
/// replaced; a symbolic link is followed to its target, the link stays. A folder, a block
/// device, a missing folder or one without write permission is an error. Standard output
/// is written with `write(2)`, every error checked.
public enum Output {
    /// Symbolic links followed from a path before giving up (Linux's own limit).
    static let maxLinks = 40

    // MARK: Checks

    /// Why `path` cannot take a report: it is `database` or one of its files, or it cannot
    /// be written (see `Output`). Nil when it can. Commands check their paths with this
    /// before they start; writing checks again.
    public static func problem(writing path: String, database: String) -> String? {
        if let conflict = databaseConflict(path, database: database) { return conflict }
        do {
            _ = try destination(of: path)
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// Why `path` must not be written: it is the database or its `-wal`, `-shm`, `-journal`
    /// or `.lock` file, however spelled (relative, `..`, a symbolic or hard link). Compares
    /// device and inode when both exist, the resolved paths otherwise.
    public static func databaseConflict(_ path: String, database: String) -> String? {
        let target = (try? followLinks(absolute(path), for: path).final).map(canonical) ?? canonical(absolute(path))
        var reportStat = stat()
        let reportExists = stat(path, &reportStat) == 0
        let companions = [("", "the database"), ("-wal", "the database's write-ahead log"), ("-shm", "the database's shared-memory file"),
                          ("-journal", "the database's journal"), (".lock", "the database's run lock")]
        for (suffix, what) in companions {
            let file = database + suffix
            var fileStat = stat()
            let same: Bool
            if reportExists, stat(file, &fileStat) == 0 {
                same = reportStat.st_dev == fileStat.st_dev && reportStat.st_ino == fileStat.st_ino
            } else {
                same = ((try? followLinks(absolute(file), for: file).final).map(canonical) ?? canonical(absolute(file))) == target
            }
            if same { return "\(path) is \(what)\(path == file ? "" : " (\(file))"): a report there would destroy it. Give the report another path." }
        }
        return nil
    }

    // MARK: Files

    /// Writes each text to its path. Regular files go to temporary files first; only when
    /// every one is complete are they renamed into place, then devices, FIFOs and sockets
    /// are written, in order. On an error the temporary files are removed and the error says
    /// what, if anything, was written before it.
    public static func write(_ files: [(path: String, text: String)]) throws {
        var staged: [(path: String, target: String, temporary: String)] = []
        var special: [(path: String, target: String, socket: Bool, text: String)] = []
        do {
            for file in files {
                switch try destination(of: file.path) {
                case .file(let target, let mode):
                    let temporary = try writeTemporary(Array(file.text.utf8), beside: target, mode: mode, for: file.path)
                    staged.append((file.path, target, temporary))
                case .special(let target, let socket):
                    special.append((file.path, target, socket, file.text))
                }
            }
        } catch let error as OutputError {
            for s in staged { unlink(s.temporary) }
            throw OutputError(error.description + (files.count > 1 ? " Nothing was written." : ""))
        }
        var written: [String] = []
        func failed(_ error: OutputError) -> OutputError {
            guard files.count > 1 else { return error }
            return OutputError(error.description + (written.isEmpty ? " Nothing was written." : " Written before it: \(written.joined(separator: ", "))."))
        }
        for (i, s) in staged.enumerated() where rename(s.temporary, s.target) != 0 {
            let error = cannot(s.path, errno)
            for rest in staged[i...] { unlink(rest.temporary) }
            throw failed(error)
        }
        written = staged.map(\.path)
        for s in special {
            if let error = writeSpecial(Array(s.text.utf8), to: s.target, socket: s.socket, for: s.path) { throw failed(error) }
            written.append(s.path)
        }
    }

    /// Writes one file (see `write(_:)`).
    public static func write(_ text: String, to path: String) throws {
        try write([(path: path, text: text)])
    }

    // MARK: Standard output

    /// Writes to standard output, every byte checked: a failure (a full disk, `/dev/full`) is
    /// an error. A reader that closed the pipe (`| head`) ends the output quietly: nothing
    /// more is written and the command keeps its own exit status.
    public static func standardOutput(_ text: String) throws {
        fflush(nil) // every C stream: Swift 6 cannot name the global `stdout` safely
        if let error = writeAll(Array(text.utf8), to: STDOUT_FILENO), error != EPIPE {
            throw OutputError("cannot write to standard output: \(reason(error)); check where it is redirected (a full disk, a closed file).")
        }
    }

    /// Standard output written as a command produces it (a query's rows), gathered into
    /// writes of up to 64 KiB, and written at least every 0.1 s while text comes: nothing is
    /// held longer. `write` returns false once the reader has closed it (`| head`): nothing
    /// more is written, and the caller stops. A failure to write is an `OutputError`.
    package final class Streaming {
        private var buffer: [UInt8] = []
        private var written = DispatchTime.now().uptimeNanoseconds
        package private(set) var readerGone = false

        package init() {
            fflush(nil) // what was printed before comes first
        }

        package func write(_ text: String) throws -> Bool {
            guard !readerGone else { return false }
            buffer.append(contentsOf: text.utf8)
            if buffer.count >= 1 << 16 || DispatchTime.now().uptimeNanoseconds - written > 100_000_000 { try flush() }
            return !readerGone
        }

        package func flush() throws {
            written = DispatchTime.now().uptimeNanoseconds
            guard !readerGone, !buffer.isEmpty else { return }
            defer { buffer.removeAll(keepingCapacity: true) }
            if let error = Output.writeAll(buffer, to: STDOUT_FILENO) {
                guard error == EPIPE else {
                    throw OutputError("cannot write to standard output: \(Output.reason(error)); check where it is redirected (a full disk, a closed file).")
                }
                readerGone = true
            }
        }
    }

    /// Writes to standard error, as far as it can (there is nowhere to report its failure).
    public static func standardError(_ text: String) {
        fflush(nil) // every C stream: Swift 6 cannot name the global `stderr` safely
        _ = writeAll(Array(text.utf8), to: STDERR_FILENO)
    }

    // MARK: JSON

    /// JSON text (sorted keys, slashes unescaped) for reports and `--json` outputs. A value
    /// that JSON cannot hold (a non-finite number) is an error naming `what`, never an empty output.
    public static func json<T: Encodable>(_ value: T, pretty: Bool = true, what: String) throws -> String {
        do {
            return String(decoding: try jsonEncoder(pretty: pretty).encode(value), as: UTF8.self)
        } catch let EncodingError.invalidValue(value, context) {
            let field = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw OutputError("cannot write \(what) as JSON: \(value) in \(field.isEmpty ? "the top level" : field) has no JSON form. Please report this with the command line.")
        }
    }

    /// locaudit's one JSON set-up: sorted keys, slashes unescaped; pretty for people.
    package static func jsonEncoder(pretty: Bool) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    // MARK: Destinations

    /// What a path names once its links are followed.
    enum Destination: Equatable {
        /// A regular file or none yet: written through a temporary file; `mode` is the replaced file's.
        case file(String, mode: mode_t?)
        /// A character device, a FIFO or an open descriptor (`/dev/stdout`: opened to append) or
        /// a socket (connected): written to, never replaced.
        case special(String, socket: Bool)
    }

    static func destination(of path: String) throws -> Destination {
        guard !path.isEmpty else { throw OutputError("an empty path cannot take a report; give a file path.") }
        if path.hasSuffix("/") { throw OutputError("cannot write \(path): it names a folder; give a file path in it (\(path)report.txt).") }
        let (target, descriptor) = try followLinks(absolute(path), for: path)
        var st = stat()
        if descriptor {
            // /dev/stdout, /dev/fd/N: whatever the descriptor holds (a pipe, a terminal, a file
            // opened with >>) is appended to as the shell would, never replaced.
            guard stat(path, &st) == 0 else { throw cannot(path, errno) }
            guard st.st_mode & S_IFMT != S_IFDIR else { throw OutputError("cannot write \(path): it is a folder; give a file path.") }
            return .special(path, socket: false)
        }
        guard lstat(target, &st) == 0 else {
            let error = errno
            if error == ENOENT {
                try checkFolder(of: target, for: path)
                return .file(target, mode: nil)
            }
            throw cannot(path, error)
        }
        switch st.st_mode & S_IFMT {
        case S_IFREG:
            try checkFolder(of: target, for: path)
            return .file(target, mode: st.st_mode & 0o777)
        case S_IFCHR, S_IFIFO, S_IFSOCK:
            guard access(target, W_OK) == 0 else { throw cannot(path, errno) }
            return .special(target, socket: st.st_mode & S_IFMT == S_IFSOCK)
        case S_IFDIR:
            throw OutputError("cannot write \(path): it is a folder; give a file path in it (\(path)/report.txt).")
        case S_IFBLK:
            throw OutputError("cannot write \(path): it is a block device (a disk), which a report would overwrite; give a file path.")
        default:
            throw OutputError("cannot write \(path): it is neither a file, a character device, a FIFO nor a socket; give a file path.")
        }
    }

    /// The folder a new or replaced file goes in must exist and be writable: it is never created.
    static func checkFolder(of target: String, for path: String) throws {
        let folder = parent(target)
        var st = stat()
        guard stat(folder, &st) == 0 else {
            let error = errno
            if error == ENOENT { throw OutputError("cannot write \(path): the folder \(folder) does not exist; create it first (mkdir -p \(folder)) or give another path.") }
            throw cannot(path, error)
        }
        guard st.st_mode & S_IFMT == S_IFDIR else { throw OutputError("cannot write \(path): \(folder) is not a folder; give another path.") }
        guard access(folder, W_OK) == 0 else {
            throw OutputError("cannot write \(path): \(reason(errno)) in the folder \(folder); give a path in a folder this user can write to.")
        }
    }

    /// The path with its final symbolic links followed (at most `maxLinks`); intermediate
    /// folders are left to the kernel. As the kernel's `protected_symlinks`, a link in a
    /// sticky world-writable folder (`/tmp`) is followed only when it belongs to this user or
    /// to the folder's owner: otherwise anyone could point a root run's report at any file.
    /// `descriptor`: the chain reached an open descriptor (`/proc/*/fd/N`, `/dev/fd/N`), whose
    /// link text is no path.
    static func followLinks(_ start: String, for path: String) throws -> (final: String, descriptor: Bool) {
        var current = start
        for _ in 0..<maxLinks {
            if current.hasPrefix("/dev/fd/") || (current.hasPrefix("/proc/") && current.contains("/fd/")) { return (current, true) }
            var st = stat()
            guard lstat(current, &st) == 0, st.st_mode & S_IFMT == S_IFLNK else { return (current, false) }
            var folder = stat()
            if stat(parent(current), &folder) == 0, folder.st_mode & S_ISVTX != 0, folder.st_mode & S_IWOTH != 0,
               st.st_uid != geteuid(), st.st_uid != folder.st_uid {
                throw OutputError("cannot write \(path): \(current) is another user's link in a shared folder; locaudit does not follow it. Give a path of your own.")
            }
            var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX))
            let count = buffer.withUnsafeMutableBufferPointer { b in
                b.baseAddress!.withMemoryRebound(to: CChar.self, capacity: b.count) { readlink(current, $0, b.count) }
            }
            guard count >= 0 else { throw cannot(path, errno) }
            let link = String(decoding: buffer[..<count], as: UTF8.self)
            current = link.hasPrefix("/") ? link : parent(current) + "/" + link
        }
        throw OutputError("cannot write \(path): more than \(maxLinks) symbolic links in a row (a loop?); give a file path.")
    }

    /// The path from the root: relative paths start in the working folder.
    static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }

    /// A path's folder, with its links and `..` resolved when it exists, then its last component.
    static func canonical(_ path: String) -> String {
        let name = (path as NSString).lastPathComponent
        guard let folder = realpath(parent(path), nil) else { return URL(fileURLWithPath: path).standardized.path }
        defer { free(folder) }
        return String(cString: folder) + "/" + name
    }

    static func parent(_ path: String) -> String {
        let folder = (path as NSString).deletingLastPathComponent
        return folder.isEmpty ? "/" : folder
    }

    // MARK: Writing

    /// A complete temporary file beside `target` (same folder, so the rename is atomic), flushed to disk.
    static func writeTemporary(_ bytes: [UInt8], beside target: String, mode: mode_t?, for path: String) throws -> String {
        for _ in 0..<100 {
            let temporary = parent(target) + "/.locaudit-" + String(UInt64.random(in: .min ... .max), radix: 16) + ".tmp"
            let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            if fd < 0 {
                if errno == EEXIST || errno == EINTR { continue }
                throw cannot(path, errno)
            }
            var failure = writeAll(bytes, to: fd)
            if failure == nil, let mode, fchmod(fd, mode) != 0 { failure = errno }
            if failure == nil, fsync(fd) != 0 { failure = errno }
            if close(fd) != 0, failure == nil { failure = errno }
            if let failure {
                unlink(temporary)
                throw cannot(path, failure)
            }
            return temporary
        }
        throw OutputError("cannot write \(path): no free temporary name in \(parent(target)); remove its .locaudit-*.tmp files.")
    }

    /// Opens (or connects to) a device, FIFO or socket and writes to it; nil when it worked.
    static func writeSpecial(_ bytes: [UInt8], to target: String, socket: Bool, for path: String) -> OutputError? {
        var fd: Int32
        repeat {
            fd = socket ? connectUnixSocket(target) : open(target, O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC)
        } while fd < 0 && errno == EINTR
        guard fd >= 0 else { return cannot(path, errno) }
        let failure = writeAll(bytes, to: fd)
        let closed = close(fd) == 0 ? nil : errno
        return (failure ?? closed).map { cannot(path, $0) }
    }

    /// A stream connection to the Unix socket at `path`, or -1 with errno set.
    static func connectUnixSocket(_ path: String) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            errno = ENAMETOOLONG
            return -1
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        #if canImport(Glibc)
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = Darwin.socket(AF_UNIX, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return -1 }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            let error = errno
            close(fd)
            errno = error
            return -1
        }
        return fd
    }

    /// Writes every byte (retrying short writes and interruptions); the errno of a failure, else nil.
    static func writeAll(_ bytes: [UInt8], to fd: Int32) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            #if canImport(Glibc)
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            #else
            let n = bytes.withUnsafeBytes { Darwin.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            #endif
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            if n == 0 { return EIO }
            offset += n
        }
        return nil
    }

    static func cannot(_ path: String, _ error: Int32) -> OutputError {
        OutputError("cannot write \(path): \(reason(error)); give another path, or fix the file's or folder's permissions or space.")
    }

    static func reason(_ error: Int32) -> String { String(cString: strerror(error)) }
}
