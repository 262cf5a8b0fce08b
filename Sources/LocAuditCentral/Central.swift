import Foundation
import LocAuditRead
import Logging
import NIOSSL
import PostgresNIO

/// A connection to the central PostgreSQL store (`locaudit push`): TLS as `sslmode` says, the
/// password from `Credentials`, every failure a `CentralError`.
package struct Central: Sendable {
    package let url: CentralURL
    package let connection: PostgresConnection
    /// Quiet: the driver's own log lines never reach the user (a message is a `CentralError`).
    package static let logger = Logger(label: "locaudit.central") { _ in SwiftLogNoOpLogHandler() }

    package static func connect(_ url: CentralURL, environment: [String: String] = ProcessInfo.processInfo.environment) async throws -> Central {
        let password = try Credentials.password(for: url, environment: environment)
        var configuration: PostgresConnection.Configuration
        if url.isUnixSocket {
            configuration = .init(unixSocketPath: url.socketPath, username: url.user, password: password, database: url.database)
        } else {
            configuration = .init(host: url.host, port: url.port, username: url.user, password: password, database: url.database,
                                  tls: try tls(url))
        }
        configuration.options.connectTimeout = .seconds(15)
        do {
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
            return Central(url: url, connection: connection)
        } catch {
            throw CentralError.from(error, url: url)
        }
    }

    private static func tls(_ url: CentralURL) throws -> PostgresConnection.Configuration.TLS {
        var tls = TLSConfiguration.makeClientConfiguration()
        switch url.sslMode {
        case .disable: return .disable
        case .prefer, .require: tls.certificateVerification = .none
        case .verifyFull:
            tls.certificateVerification = .fullVerification
            if let root = url.rootCertificate {
                guard FileManager.default.isReadableFile(atPath: root) else {
                    throw CentralError(.usage("sslrootcert=\(root) cannot be read: give the path of the server's CA certificate (PEM)"))
                }
                tls.trustRoots = .file(root)
            }
        }
        let context: NIOSSLContext
        do { context = try NIOSSLContext(configuration: tls) } catch {
            throw CentralError(.usage("the TLS settings of \(url.display) cannot be used (sslrootcert=\(url.rootCertificate ?? "none")): give a PEM certificate file"))
        }
        return url.sslMode == .prefer ? .prefer(context) : .require(context)
    }

    /// Runs `sql` (binds through postgres-nio's interpolation); the number of rows it touched.
    @discardableResult
    package func execute(_ query: PostgresQuery) async throws -> Int {
        do {
            let result = try await connection.query(query, logger: Self.logger).get()
            return result.metadata.rows ?? 0
        } catch {
            throw CentralError.from(error, url: url)
        }
    }

    /// The rows of `query`, decoded as `T` each (a tuple for several columns).
    package func rows<each T: PostgresDecodable & Sendable>(_ query: PostgresQuery, as type: (repeat each T).Type) async throws -> [(repeat each T)] {
        do {
            var out: [(repeat each T)] = []
            for try await row in try await connection.query(query, logger: Self.logger).decode(type) { out.append(row) }
            return out
        } catch {
            throw CentralError.from(error, url: url)
        }
    }

    /// `body` in one transaction: all of it or nothing.
    package func transaction<R: Sendable>(_ body: @Sendable (Central) async throws -> R) async throws -> R {
        do {
            return try await connection.withTransaction(logger: Self.logger) { _ in try await body(self) }
        } catch let error as PostgresTransactionError {
            if let closure = error.closureError as? CentralError { throw closure }
            throw CentralError.from(error, url: url)
        }
    }

    /// Begins a read-only transaction that sees one snapshot of the store throughout
    /// (`REPEATABLE READ`); a database without locaudit's schema is told in a sentence.
    package func beginSnapshot() async throws {
        try await execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        let schema: [Bool] = try await rows("SELECT to_regclass('locaudit.schema_migrations') IS NOT NULL", as: Bool.self)
        guard schema.first == true else {
            throw CentralError(.server("\(url.display) holds no locaudit schema: push a host's store to it first (locaudit push), or check the URL's database"))
        }
    }

    /// Runs `body` to its end from synchronous code (the commands are synchronous).
    package static func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let box = Locked<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            do {
                let value = try await body()
                box.withLock { $0 = .success(value) }
            } catch {
                box.withLock { $0 = .failure(error) }
            }
            done.signal()
        }
        done.wait()
        return try box.withLock { $0! }.get()
    }

    package func close() async {
        try? await connection.close()
    }
}
