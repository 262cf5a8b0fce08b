import Foundation

/// Where the central store is: `postgresql://USER@HOST[:PORT]/DB[?sslmode=…&sslrootcert=…&host=/socket/dir]`.
/// Never a password: it comes from `PGPASSWORD` or a `.pgpass` file (`Credentials`).
public struct CentralURL: Sendable, Equatable {
    public enum SSLMode: String, Sendable, CaseIterable {
        /// No TLS.
        case disable
        /// TLS when the server offers it, else in the clear (a man in the middle can force that).
        case prefer
        /// TLS or nothing; the certificate is not checked.
        case require
        /// TLS, a certificate that `sslrootcert` (else the system's roots) trusts, for this host name.
        case verifyFull = "verify-full"
    }

    public var user: String
    /// A host name or address; for a Unix socket, its folder (`?host=/var/run/postgresql`).
    public var host: String
    public var port: Int
    public var database: String
    public var sslMode: SSLMode
    public var rootCertificate: String?

    public var isUnixSocket: Bool { host.hasPrefix("/") }
    /// The socket file in the folder `host`, as libpq names it.
    public var socketPath: String { host + "/.s.PGSQL.\(port)" }

    /// The server as messages name it (no password: it is never in the URL).
    public var display: String {
        isUnixSocket ? "postgresql://\(user)@\(socketPath)/\(database)" : "postgresql://\(user)@\(host):\(port)/\(database)"
    }

    /// The default `sslmode`: `require`, not libpq's `prefer`. A host pushes device ids, app
    /// bundles and locations across the network, and `prefer` falls back to the clear text
    /// whenever anything between the two says the server has no TLS. A server without TLS is
    /// named in the URL (`sslmode=disable`), on purpose. Unix sockets never use TLS.
    public static let defaultSSLMode = SSLMode.require

    /// `$LOCAUDIT_CENTRAL`, when `--to` is not given.
    public static func resolve(_ explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> CentralURL {
        if let explicit { return try CentralURL(explicit) }
        if let env = environment["LOCAUDIT_CENTRAL"], !env.isEmpty { return try CentralURL(env) }
        throw CentralError(.usage("no central store: give --to postgresql://USER@HOST[:PORT]/DB or set LOCAUDIT_CENTRAL"))
    }

    /// Whether `text` names a central store (a postgresql:// or postgres:// URL) rather than a file.
    public static func isURL(_ text: String) -> Bool {
        text.hasPrefix("postgresql://") || text.hasPrefix("postgres://")
    }

    /// Parses `text`; a message names it as the value of `flag`.
    public init(_ text: String, flag: String = "--to") throws {
        func bad(_ why: String) -> CentralError {
            CentralError(.usage("\(flag) \(CentralURL.redacted(text)): \(why); write it as postgresql://USER@HOST[:PORT]/DB[?sslmode=require]"))
        }
        guard let url = URLComponents(string: text), let scheme = url.scheme, ["postgresql", "postgres"].contains(scheme) else {
            throw bad("not a postgresql:// URL")
        }
        if url.password != nil {
            throw CentralError(.usage("\(flag) \(CentralURL.redacted(text)) holds a password: take it out of the URL (it would show in `ps` and in shell history) and put it in PGPASSWORD or in ~/.pgpass (a line host:port:database:user:password, mode 0600)"))
        }
        guard let user = url.user, !user.isEmpty else { throw bad("no user (USER@ before the host)") }
        let database = String(url.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else { throw bad("no database (/DB after the host)") }
        var host = url.host ?? ""
        var port = url.port ?? 5432
        var sslMode = CentralURL.defaultSSLMode
        var rootCertificate: String?
        for item in url.queryItems ?? [] {
            let value = item.value ?? ""
            switch item.name {
            case "sslmode":
                guard let mode = SSLMode(rawValue: value) else {
                    throw bad("sslmode=\(value) is none of \(SSLMode.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                sslMode = mode
            case "sslrootcert": rootCertificate = value
            case "host": host = value
            case "port":
                guard let number = Int(value), (1...65535).contains(number) else { throw bad("port=\(value) is not a port") }
                port = number
            case "password": throw bad("a password in the URL is refused; put it in PGPASSWORD or ~/.pgpass")
            default: throw bad("unknown parameter \(item.name) (locaudit reads sslmode, sslrootcert, host, port)")
            }
        }
        guard !host.isEmpty else { throw bad("no host") }
        guard (1...65535).contains(port) else { throw bad("port \(port) is not a port") }
        self.user = user
        self.host = host
        self.port = port
        self.database = database
        self.sslMode = host.hasPrefix("/") ? .disable : sslMode
        self.rootCertificate = rootCertificate
    }

    /// `text` with anything between `//USER:` and `@` hidden: a URL a user wrote a password into
    /// is named in the message without it.
    public static func redacted(_ text: String) -> String {
        guard let scheme = text.range(of: "://"), let at = text[scheme.upperBound...].firstIndex(of: "@") else { return text }
        let userinfo = text[scheme.upperBound..<at]
        guard let colon = userinfo.firstIndex(of: ":") else { return text }
        return String(text[..<colon]) + ":***" + String(text[at...])
    }
}

/// The password for a server: `PGPASSWORD`, else the first matching line of `PGPASSFILE` or
/// `~/.pgpass` (`host:port:database:user:password`, `*` matches anything, `\` escapes `:` and
/// `\`), which must be readable by its owner only (mode 0600), as libpq requires.
public enum Credentials {
    public static func password(for url: CentralURL, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String? {
        if let password = environment["PGPASSWORD"], !password.isEmpty { return password }
        let path: String
        if let file = environment["PGPASSFILE"], !file.isEmpty {
            path = file
        } else if let home = environment["HOME"], !home.isEmpty {
            path = home + "/.pgpass"
        } else {
            return nil
        }
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        if let mode = (attributes?[.posixPermissions] as? NSNumber)?.intValue, mode & 0o077 != 0 {
            throw CentralError(.usage("\(path) may be read by others (mode \(String(mode & 0o777, radix: 8))): make it the owner's only with `chmod 600 \(path)`, as PostgreSQL requires of a password file"))
        }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw CentralError(.usage("\(path) cannot be read as text: fix its owner or its contents (lines host:port:database:user:password)"))
        }
        // libpq matches a Unix-socket connection by "localhost" (or the socket's folder).
        let hosts = url.isUnixSocket ? ["localhost", url.host] : [url.host]
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) where !line.hasPrefix("#") {
            let fields = split(line.hasSuffix("\r") ? line.dropLast() : line)
            guard fields.count == 5 else { continue }
            func matches(_ field: String, _ values: [String]) -> Bool { field == "*" || values.contains(field) }
            if matches(fields[0], hosts), matches(fields[1], ["\(url.port)"]), matches(fields[2], [url.database]),
               matches(fields[3], [url.user]) {
                return fields[4]
            }
        }
        return nil
    }

    /// A .pgpass line's fields: `:` separates, `\` escapes the next character.
    static func split(_ line: Substring) -> [String] {
        var fields: [String] = [], field = "", escaped = false
        for character in line {
            if escaped { field.append(character); escaped = false }
            else if character == "\\" { escaped = true }
            else if character == ":" && fields.count < 4 { fields.append(field); field = "" }
            else { field.append(character) }
        }
        fields.append(field)
        return fields
    }
}
