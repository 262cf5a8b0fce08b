import Foundation
@testable import LocAuditUnitTests
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A throwaway PostgreSQL cluster of a test's own: a copy of the run's `initdb` (`template`)
/// in a temporary folder, `pg_ctl` listening on a Unix socket in it and on a loopback port
/// (with TLS when asked, under a self-signed certificate `openssl` makes here), stopped and
/// removed when the test ends, also when it fails. Debian's `postgresql` (`scripts/setup.sh
/// --test` installs it) keeps its programs in /usr/lib/postgresql/VERSION/bin; as root they
/// run as `postgres` (initdb refuses root), in a folder that user owns.
final class PostgresCluster: Sendable {
    /// The server's programs, else why there are none. No test installs them: `.ci/run` runs
    /// `scripts/setup.sh --test` first; elsewhere the tests that need a server are skipped
    /// (`.needsPostgres`), and under `CI=true` they fail with this reason.
    static let programs: Result<URL, Unavailable> = {
        if let bin = findPrograms() { return .success(bin) }
        return .failure(Unavailable(reason: "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/pg_ctl): scripts/setup.sh --test installs it"))
    }()
    struct Unavailable: Error, CustomStringConvertible { let reason: String; var description: String { reason } }

    /// For `.enabled(if:)`: a server can be started here.
    static var available: Bool { (try? programs.get()) != nil }

    static func findPrograms() -> URL? {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        // The newest installed version.
        for version in versions.sorted(by: { (Int($0) ?? 0) > (Int($1) ?? 0) }) {
            let bin = root.appendingPathComponent(version).appendingPathComponent("bin")
            if FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent("pg_ctl").path) { return bin }
        }
        return nil
    }

    static var isRoot: Bool { getuid() == 0 }

    let bin: URL
    /// The cluster's folder: data, socket, log, certificate.
    let dir: URL
    var socketDir: String { dir.path }
    let port: Int
    /// The superuser, with a password (connections authenticate with SCRAM, as on a real server):
    /// the template's, the same for every cluster of a run.
    let user = "admin"
    let password: String
    /// The self-signed certificate, when started with TLS (for `sslrootcert`); then TCP
    /// connections must use TLS (`hostssl` in pg_hba.conf).
    let certificate: String?

    /// Starts a cluster, runs `body` with it, and stops and removes it, whatever `body` does.
    static func with<T>(tls: Bool = false, _ body: (PostgresCluster) async throws -> T) async throws -> T {
        let cluster = try PostgresCluster(tls: tls)
        do {
            let result = try await body(cluster)
            cluster.stop()
            return result
        } catch {
            cluster.stop()
            throw error
        }
    }

    /// One `initdb` a run, made by the first test that starts a cluster: each cluster's data
    /// folder is a copy of it (initdb took seconds of every PostgreSQL test, under load more; a
    /// copy of its 40 MB takes a fraction of one). Removed when the test process exits.
    struct Template: Sendable {
        let data: URL
        let password: String
    }
    static let template: Result<Template, Error> = Result {
        let bin = try programs.get()
        let dir = URL(fileURLWithPath: templatePath)
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: false)
        try chownToPostgres(dir.path)
        atexit { try? FileManager.default.removeItem(atPath: PostgresCluster.templatePath) }
        let password = "pw-" + UUID().uuidString.prefix(8).lowercased()
        let pwfile = dir.appendingPathComponent("pw").path
        try Data(password.utf8).write(to: URL(fileURLWithPath: pwfile))
        try chownToPostgres(pwfile)
        let data = dir.appendingPathComponent("data")
        try asServerUser(bin: bin, dir: dir, "initdb", ["-D", data.path, "-U", "admin", "--pwfile", pwfile,
                                                        "--auth", "scram-sha-256", "--encoding", "UTF8", "--no-sync"])
        return Template(data: data, password: password)
    }
    static let templatePath = "/tmp/lapg-template-\(getpid())"

    /// Starts one; `stop()` it (`with` does).
    init(tls: Bool = false) throws {
        bin = try Self.programs.get()
        let template = try Self.template.get()
        password = template.password
        // Short: a Unix socket's path holds at most 107 bytes.
        dir = URL(fileURLWithPath: "/tmp/lapg-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: false)
        port = try Self.freePort()
        try Self.chownToPostgres(dir.path)
        let (bin, dir) = (bin, dir)
        func asServerUser(_ program: String, _ arguments: [String], absolute: Bool = false) throws {
            try Self.asServerUser(bin: bin, dir: dir, program, arguments, absolute: absolute)
        }
        // A copy of the run's initdb (`template`), as the server's user.
        try asServerUser("/bin/cp", ["-a", template.data.path, dir.appendingPathComponent("data").path], absolute: true)
        var options = "-k \(dir.path) -p \(port) -c listen_addresses=127.0.0.1 -c fsync=off"
        if tls {
            let cert = dir.appendingPathComponent("server.crt").path, key = dir.appendingPathComponent("server.key").path
            try asServerUser("/usr/bin/openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                                                  "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                                                  "-keyout", key, "-out", cert], absolute: true)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: key)
            options += " -c ssl=on -c ssl_cert_file=\(cert) -c ssl_key_file=\(key)"
            // Over TCP, TLS only: a connection in the clear finds no pg_hba.conf entry.
            let hba = dir.appendingPathComponent("data/pg_hba.conf")
            let rules = try String(contentsOf: hba, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
                .map { $0.hasPrefix("host ") ? "hostssl" + $0.dropFirst(4) : $0 }.joined(separator: "\n")
            try Data(rules.utf8).write(to: hba)
            certificate = cert
        } else {
            certificate = nil
        }
        try asServerUser("pg_ctl", ["-D", dir.appendingPathComponent("data").path, "-l", dir.appendingPathComponent("log").path,
                                    "-o", options, "-w", "-t", "60", "start"])
    }

    /// Stops the server at once and removes its folder.
    func stop() {
        _ = try? asServerUser("pg_ctl", ["-D", dir.appendingPathComponent("data").path, "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(at: dir)
    }

    /// A URL for `locaudit push --to`: over the Unix socket, else the loopback port.
    func url(user: String? = nil, database: String = "postgres", tcp: Bool = false, query: String = "") -> String {
        let who = user ?? self.user
        let host = tcp ? "127.0.0.1:\(port)" : "localhost"
        var parameters = tcp ? [] : ["host=\(socketDir)", "port=\(port)"]
        if !query.isEmpty { parameters.append(query) }
        return "postgresql://\(who)@\(host)/\(database)" + (parameters.isEmpty ? "" : "?" + parameters.joined(separator: "&"))
    }

    /// Runs SQL with psql as the superuser over the socket; the rows, `|`-separated, one a line.
    @discardableResult
    func psql(_ sql: String, database: String = "postgres") throws -> String {
        let result = try run(bin.appendingPathComponent("psql").path,
                             ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", socketDir, "-p", "\(port)", "-U", user, "-d", database, "-c", sql],
                             environment: ["PGPASSWORD": password, "PATH": "/usr/bin:/bin"])
        guard result.status == 0 else { throw Failure(what: "psql \(sql)", output: result.stderr) }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A psql session of the superuser kept open: what it is sent holds (a lock, an open
    /// transaction) until it is closed.
    func session() throws -> HeldSession {
        let process = Process(), input = Pipe()
        process.executableURL = bin.appendingPathComponent("psql")
        process.arguments = ["-X", "-q", "-h", socketDir, "-p", "\(port)", "-U", user, "-d", "postgres"]
        process.environment = ["PGPASSWORD": password]
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return HeldSession(process: process, input: input)
    }

    func count(_ table: String, database: String = "postgres") throws -> Int {
        Int(try psql("SELECT count(*) FROM \(table)", database: database)) ?? -1
    }

    struct Failure: Error, CustomStringConvertible {
        let what: String, output: String
        var description: String { "\(what): \(output)" }
    }

    @discardableResult
    private func asServerUser(_ program: String, _ arguments: [String], absolute: Bool = false) throws -> String {
        try Self.asServerUser(bin: bin, dir: dir, program, arguments, absolute: absolute)
    }

    @discardableResult
    private static func asServerUser(bin: URL, dir: URL, _ program: String, _ arguments: [String], absolute: Bool = false) throws -> String {
        let path = absolute ? program : bin.appendingPathComponent(program).path
        // posix_spawn with every descriptor above 2 closed, and output to a file: Foundation's
        // Process learns that a child ended from a socket the child inherits, and the server
        // pg_ctl starts would inherit it too and keep it open, so pg_ctl would never be reaped.
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("lapg-\(UUID().uuidString).out")
        defer { try? FileManager.default.removeItem(at: output) }
        let argv = ["/usr/bin/env", "-C", dir.path] + (isRoot ? ["/usr/sbin/runuser", "-u", "postgres", "--", path] : [path]) + arguments
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // glibc 2.34's posix_spawn_file_actions_addclosefrom_np, which Swift's Glibc does not import.
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
            throw Failure(what: "posix_spawn_file_actions_addclosefrom_np", output: "needs glibc 2.34 or later")
        }
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
        var cArgs = argv.map { strdup($0) } + [nil]
        defer { for arg in cArgs { free(arg) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, &cArgs, environ)
        guard spawned == 0 else { throw Failure(what: "posix_spawn \(argv[0])", output: String(cString: strerror(spawned))) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        // Exited normally with 0 (WIFEXITED and WEXITSTATUS, which Swift does not import).
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            throw Failure(what: "\(program) \(arguments.joined(separator: " "))", output: text)
        }
        return text
    }

    private static func chownToPostgres(_ path: String) throws {
        guard isRoot else { return }
        try FileManager.default.setAttributes([.ownerAccountName: "postgres", .groupOwnerAccountName: "postgres"], ofItemAtPath: path)
    }

    /// A loopback port nobody listens on now (the kernel's pick).
    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(what: "socket", output: "") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw Failure(what: "bind", output: "") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// A psql session a test keeps open (`PostgresCluster.session`).
struct HeldSession {
    let process: Process
    let input: Pipe

    func send(_ sql: String) throws { try input.fileHandleForWriting.write(contentsOf: Data(sql.utf8)) }

    /// Ends the session (what it held is released) and waits for psql to exit.
    func close() throws {
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
