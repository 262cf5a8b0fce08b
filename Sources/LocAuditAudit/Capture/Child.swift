import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A program capture runs: its own process group (so that a terminal's Ctrl-C reaches capture
/// alone, and stopping it stops what it started), the default signal handling (capture ignores
/// SIGPIPE and handles SIGTERM itself; an ignored signal would stay ignored across exec), its
/// standard output and error on pipes that capture reads without blocking.
final class Child {
    let pid: pid_t
    /// -1 once it reached its end.
    var out: Int32
    var err: Int32
    let started = Date()

    private init(pid: pid_t, out: Int32, err: Int32) {
        self.pid = pid
        self.out = out
        self.err = err
    }

    /// Starts `arguments[0]`, looked for on PATH. Nil (and errno's text) when it cannot start.
    static func start(_ arguments: [String]) -> Result<Child, ChildError> {
        var outPipe: [Int32] = [-1, -1], errPipe: [Int32] = [-1, -1]
        guard pipe(&outPipe) == 0 else { return .failure(ChildError(errno: errno)) }
        guard pipe(&errPipe) == 0 else {
            let code = errno
            _ = close(outPipe[0]); _ = close(outPipe[1])
            return .failure(ChildError(errno: code))
        }
        for fd in outPipe + errPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGTERM, SIGINT, SIGPIPE, SIGHUP, SIGCHLD] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP))
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let status = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, environ)
        _ = close(outPipe[1]); _ = close(errPipe[1])
        guard status == 0 else {
            _ = close(outPipe[0]); _ = close(errPipe[0])
            return .failure(ChildError(errno: status))
        }
        for fd in [outPipe[0], errPipe[0]] { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        return .success(Child(pid: pid, out: outPipe[0], err: errPipe[0]))
    }

    /// The exit status once it ended (nil while it runs): its code, or 128 + the signal that ended it.
    func exited(wait: Bool = false) -> Int32? {
        var status: Int32 = 0
        let r = waitpid(pid, &status, wait ? 0 : WNOHANG)
        guard r == pid else { return r < 0 && errno == ECHILD ? -1 : nil }
        return Child.describe(status)
    }

    static func describe(_ status: Int32) -> Int32 {
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    /// Sends `number` to its process group (what it started too).
    func signal(_ number: Int32) { _ = kill(-pid, number) }

    /// Reads what is there now, at most `limit` bytes, from `fd` (its output or error). EOF closes it.
    static func readAvailable(_ fd: inout Int32, limit: Int = 1 << 20) -> [UInt8] {
        guard fd >= 0 else { return [] }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while out.count < limit {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 { out += chunk.prefix(n); continue }
            if n < 0, errno == EINTR { continue }
            if n < 0, errno == EAGAIN || errno == EWOULDBLOCK { break }
            _ = close(fd)   // end of file, or an error reading: nothing more comes
            fd = -1
            break
        }
        return out
    }

    func closePipes() {
        if out >= 0 { _ = close(out); out = -1 }
        if err >= 0 { _ = close(err); err = -1 }
    }

    /// Runs a short program to its end (`idevice_id -l`, `ideviceinfo -u UDID`): its status and
    /// standard output, or why not. Killed after `timeout` seconds.
    static func output(_ arguments: [String], timeout: TimeInterval) -> (status: Int32, out: [UInt8], err: [UInt8]) {
        let child: Child
        switch start(arguments) {
        case .success(let c): child = c
        case .failure(let e): return (127, [], Array("cannot start \(arguments[0]): \(e)".utf8))
        }
        var out: [UInt8] = [], err: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        while child.out >= 0 || child.err >= 0 {
            if Date() > deadline {
                child.signal(SIGKILL)
                err += Array("\(arguments[0]) gave no answer in \(Int(timeout)) s; stopped".utf8)
                break
            }
            var fds = [child.out, child.err].filter { $0 >= 0 }.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            _ = poll(&fds, nfds_t(fds.count), 100)
            out += readAvailable(&child.out, limit: 1 << 22)
            err += readAvailable(&child.err, limit: 1 << 20)
        }
        child.closePipes()
        let status = child.exited(wait: true) ?? -1
        return (status, out, err)
    }
}

struct ChildError: Error, CustomStringConvertible {
    var errno: Int32
    var description: String { String(cString: strerror(errno)) }
}
