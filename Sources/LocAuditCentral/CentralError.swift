import Foundation
import NIOSSL
import PostgresNIO

/// Why the central store cannot be used, as one sentence that names the server and says what
/// to do: never the driver's own dump, never a password (none is ever in the URL).
public struct CentralError: Error, CustomStringConvertible, Sendable {
    public enum Reason: Sendable, Equatable {
        /// A bad `--to`, a password in the URL, a `.pgpass` others may read: exit 2.
        case usage(String)
        /// The server cannot be used (unreachable, login or TLS refused, no schema, no
        /// privilege, a newer schema): exit 8.
        case server(String)
        /// Another central audit holds the lock: exit 4, as for `run` and `prune`.
        case busy(String)
    }
    public let reason: Reason
    /// The server's SQLSTATE, when it answered with an error (`40P01`: a deadlock, retried).
    public let sqlState: String?
    public init(_ reason: Reason, sqlState: String? = nil) { self.reason = reason; self.sqlState = sqlState }

    public var description: String {
        switch reason {
        case .usage(let sentence), .server(let sentence), .busy(let sentence): return sentence
        }
    }

    /// docs/exit-codes.md: 2 usage, 4 another central audit runs, 8 the central store cannot be used.
    public var exitCode: Int32 {
        switch reason {
        case .usage: return 2
        case .server: return 8
        case .busy: return 4
        }
    }

    /// A driver error while talking to `url`, as a sentence.
    static func from(_ error: any Error, url: CentralURL) -> CentralError {
        if let error = error as? CentralError { return error }
        let server = url.display
        if let transaction = error as? PostgresTransactionError {
            let inner: (any Error)? = transaction.beginError ?? transaction.closureError ?? transaction.commitError
            if let inner { return from(inner, url: url) }
        }
        guard let error = error as? PSQLError else {
            return CentralError(.server("\(server): \(Self.plain(error)); check that the server runs and this host may reach it, then run the command again"))
        }
        switch error.code {
        case .sslUnsupported:
            return CentralError(.server("\(server) refused TLS (sslmode=\(url.sslMode.rawValue)): turn on ssl in the server's postgresql.conf, or, on a network you trust, add sslmode=disable to the URL"))
        case .authMechanismRequiresPassword:
            return CentralError(.server("\(server) asks \(url.user) for a password and none was found: set PGPASSWORD, or add a line \(url.isUnixSocket ? "localhost" : url.host):\(url.port):\(url.database):\(url.user):PASSWORD to ~/.pgpass (mode 0600)"))
        case .saslError, .unsupportedAuthMechanism:
            return CentralError(.server("\(server) refused the login of \(url.user): check the password in PGPASSWORD or ~/.pgpass"))
        case .server:
            let state = error.serverInfo?[.sqlState] ?? ""
            let message = error.serverInfo?[.message] ?? "an error"
            switch state {
            case "28P01", "28000":
                return CentralError(.server("\(server) refused the login of \(url.user) (wrong password, or no pg_hba.conf entry for this host): check PGPASSWORD or ~/.pgpass, and the server's pg_hba.conf"))
            case "3D000":
                return CentralError(.server("\(server): the database \(url.database) does not exist: create it (docs/many-hosts.md), or fix the URL"))
            case "42501":
                return CentralError(.server("\(server): the role \(url.user) lacks a privilege locaudit needs (\(message)): grant it as docs/many-hosts.md shows"), sqlState: state)
            case "53300":
                return CentralError(.server("\(server) has no connection slot left: run the command again later, or raise max_connections"))
            default:
                return CentralError(.server("\(server) failed a statement (\(message), SQLSTATE \(state)): run the command again; if it persists, report it with this sentence"), sqlState: state)
            }
        case .connectionError, .failedToAddSSLHandler, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown:
            if let tls = error.underlying, tls is NIOSSLError || String(describing: type(of: tls)).contains("SSL") || "\(tls)".contains("handshake") {
                return CentralError(.server("\(server): TLS failed (sslmode=\(url.sslMode.rawValue)): the server's certificate is not trusted for \(url.host)\(url.rootCertificate.map { " by \($0)" } ?? ""); give its CA with sslrootcert=PATH, or check the host name"))
            }
            let why = error.underlying.map(Self.plain) ?? "the connection closed"
            return CentralError(.server("\(server) cannot be reached (\(why)): check that the server runs, the host and port, and the firewall, then run the command again"))
        default:
            return CentralError(.server("\(server): the connection failed (\(error.code)): check the server, then run the command again"))
        }
    }

    /// An underlying error in a few words (NIO's connection errors name the address).
    static func plain(_ error: any Error) -> String {
        let text = "\(error)"
        if text.contains("connection refused") || text.contains("Connection refused") { return "connection refused" }
        if text.contains("No such file") { return "no server socket there" }
        if text.contains("timeout") || text.contains("Timeout") { return "timed out" }
        if text.contains("resolve") || text.contains("NXDOMAIN") || text.contains("Name or service") { return "the host name does not resolve" }
        return String(text.prefix(120))
    }
}
