import Foundation
import LocAuditStore
import PostgresNIO

/// `locaudit stats --db postgresql://…`: what `StoreStats` says of a SQLite store, for the
/// central one (the same JSON keys), with the server's version and the schema's migrations.
public struct CentralStats: Sendable, Encodable {
    /// What a SQLite store's statistics say, of the central store: `database` is the server as
    /// `push` names it (never a password), `bytes` its `pg_database_size`, `tables` the rows of
    /// each table and view of the `locaudit` schema (`event_rows` is `events`'s rows,
    /// `schema_migrations` is `migrations`).
    public var store: StoreStats
    /// The server's version (`server_version`).
    public var server: String
    /// The central schema's migrations applied, in order.
    public var migrations: [String]

    public var text: String {
        store.text + "server: PostgreSQL \(server)\n" + "migrations (\(migrations.count)): \(migrations.joined(separator: "; "))\n"
    }

    /// `StoreStats`'s keys, then `server` and `migrations`, in one object.
    public func encode(to encoder: any Encoder) throws {
        try store.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(server, forKey: .server)
        try container.encode(migrations, forKey: .migrations)
    }

    private enum CodingKeys: String, CodingKey { case server, migrations }

    public static func read(_ url: CentralURL, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> CentralStats {
        try Central.blocking { try await read(url: url, environment: environment) }
    }

    static func read(url: CentralURL, environment: [String: String]) async throws -> CentralStats {
        let central = try await Central.connect(url, environment: environment)
        defer { Task { [central] in await central.close() } }
        try await central.beginSnapshot()
        let names: [String] = try await central.rows("""
            SELECT c.relname::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = 'locaudit' AND c.relkind IN ('r', 'v', 'p', 'm')
                AND c.relname NOT IN ('event_rows', 'schema_migrations')
            ORDER BY 1
            """, as: String.self)
        var tables: [String: Int] = [:]
        for name in names {
            let count: [Int64] = try await central.rows(PostgresQuery(unsafeSQL: "SELECT count(*) FROM locaudit.\"\(name.replacingOccurrences(of: "\"", with: "\"\""))\""), as: Int64.self)
            tables[name] = Int(clamping: count.first ?? 0)
        }
        var versions: [String: Int] = [:]
        for (version, logs) in try await central.rows("""
            SELECT coalesce(os_version, 'unknown')::text, count(*) FROM locaudit.sources
            WHERE container NOT IN ('info-plist', 'ideviceinfo') GROUP BY 1
            """, as: (String, Int64).self) {
            versions[version] = Int(clamping: logs)
        }
        let span = try await central.rows("SELECT min(first_time)::text, max(last_time)::text FROM locaudit.sources", as: (String?, String?).self)
        let store = StoreStats(
            database: url.display,
            bytes: try await central.rows("SELECT pg_database_size(current_database())", as: Int64.self).first ?? 0,
            tables: tables,
            devices: try await central.rows("SELECT id::text FROM locaudit.devices ORDER BY id", as: String.self),
            apps: try await central.rows("""
                SELECT bundle_id::text FROM locaudit.event_rows WHERE bundle_id IS NOT NULL UNION SELECT bundle_id FROM locaudit.apps ORDER BY 1
                """, as: String.self),
            iosVersions: versions, firstTime: span.first?.0, lastTime: span.first?.1)
        let stats = CentralStats(
            store: store,
            server: try await central.rows("SELECT current_setting('server_version')", as: String.self).first ?? "",
            migrations: try await central.rows("SELECT name::text FROM locaudit.schema_migrations ORDER BY applied_at, name", as: String.self))
        _ = try? await central.execute("ROLLBACK")
        await central.close()
        return stats
    }
}
