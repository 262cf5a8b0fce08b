import Foundation
import PostgresNIO

/// The central store's schema (PostgreSQL, schema `locaudit`), as named migrations recorded in
/// `locaudit.schema_migrations`. Rows are keyed by content, never by a host's row ids: a
/// source by `content_sha256`, a device by its id, an app version by (bundle, plist hash), an
/// event by (device, UTC second, fingerprint), a session by (device, bundle, pid, start), a
/// finding by its fingerprint, an audit run by `run_key`. `docs/schema.md` ("PostgreSQL")
/// says how this differs from the SQLite store.
package enum CentralSchema {
    package struct Migration: Sendable {
        package let name: String
        package let sql: String
    }

    package static let migrations: [Migration] = [
        Migration(name: "v1: devices, app versions, sources, events, sessions, audit runs, findings", sql: """
            CREATE TABLE locaudit.devices (
                id text PRIMARY KEY, name text, product_type text, os_version text, updated_at text NOT NULL
            );
            CREATE TABLE locaudit.app_versions (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                bundle_id text NOT NULL, version text, build text, executable text, name text,
                usage_keys text NOT NULL, background_modes text NOT NULL, temporary_purpose_keys text,
                default_accuracy_reduced text, default_accuracy_reduced_type text,
                plist_path text NOT NULL, plist_sha256 text NOT NULL, ingested_at text NOT NULL, first_seen_us bigint NOT NULL,
                UNIQUE (bundle_id, plist_sha256)
            );
            -- The latest Info.plist of each app, as the SQLite store's apps table keeps it.
            CREATE VIEW locaudit.apps AS
                SELECT DISTINCT ON (bundle_id) bundle_id, executable, name, version, usage_keys, background_modes,
                    temporary_purpose_keys, default_accuracy_reduced, default_accuracy_reduced_type, plist_path, plist_sha256, ingested_at
                FROM locaudit.app_versions ORDER BY bundle_id, ingested_at DESC, id DESC;
            CREATE TABLE locaudit.sources (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                content_sha256 text NOT NULL UNIQUE,
                path text NOT NULL, file_sha256 text NOT NULL, size bigint NOT NULL, content_size bigint NOT NULL,
                gzip_members bigint NOT NULL, container text NOT NULL, device_id text, os_version text,
                zone_assumed bigint NOT NULL, zone_offset bigint, zone_from text, first_time text, last_time text,
                lines_read bigint NOT NULL, events bigint NOT NULL, skipped text NOT NULL, notes text NOT NULL,
                ingested_at text NOT NULL,
                pushed_from text NOT NULL              -- the host that pushed it
            );
            CREATE TABLE locaudit.events (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                source_id bigint NOT NULL REFERENCES locaudit.sources(id),
                line bigint NOT NULL, device_id text NOT NULL, time_us bigint NOT NULL, utc_offset bigint,
                process text, pid bigint, app_pid bigint, bundle_id text, bundle_via text,
                kind text NOT NULL, pattern text NOT NULL,
                status text, accuracy text, temporary bigint, provisional bigint, reason text,
                app_state text, service text, call text,
                horizontal_accuracy double precision, latitude double precision, longitude double precision, location_private bigint,
                property text, value text, prompt_kind text, prompt_options text, choice text,
                purpose_key text, visible bigint, intent text, user_kill bigint,
                message text NOT NULL, fingerprint bigint NOT NULL
            );
            CREATE UNIQUE INDEX events_by_line ON locaudit.events (device_id, (time_us / 1000000), fingerprint);
            CREATE INDEX events_by_app ON locaudit.events (device_id, bundle_id, time_us);
            CREATE TABLE locaudit.sessions (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                device_id text NOT NULL, bundle_id text NOT NULL, pid bigint,
                start_us bigint NOT NULL, start text NOT NULL, end_us bigint NOT NULL, "end" text NOT NULL,
                end_reason text NOT NULL, launch_intent text, relaunch_service text, os_version text,
                events bigint NOT NULL, first_event_id bigint, last_event_id bigint,
                status_at_start text, status_at_end text, evidence_pruned_at text,
                UNIQUE NULLS NOT DISTINCT (device_id, bundle_id, pid, start_us)
            );
            CREATE TABLE locaudit.audit_runs (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                run_key text NOT NULL UNIQUE,          -- SHA-256 of the run's content (CentralPush.runKey)
                pushed_from text NOT NULL,
                started_at text NOT NULL, options text NOT NULL,
                events bigint NOT NULL, sessions bigint NOT NULL, findings bigint NOT NULL,
                new bigint NOT NULL, persisting bigint NOT NULL, resolved bigint NOT NULL,
                evaluated bigint NOT NULL, not_evaluable bigint NOT NULL,
                verdict text NOT NULL, exit_code bigint NOT NULL, fail_on text NOT NULL,
                coverage text, checks text, checks_pruned_at text
            );
            CREATE TABLE locaudit.findings (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                fingerprint text NOT NULL UNIQUE,
                rule text NOT NULL, severity text NOT NULL, device_id text NOT NULL, bundle_id text NOT NULL,
                pid bigint, os_version text, session_start text, session_event bigint,
                time_us bigint NOT NULL, time text NOT NULL, message text NOT NULL, evidence text NOT NULL,
                first_run bigint NOT NULL REFERENCES locaudit.audit_runs(id),
                last_run bigint NOT NULL REFERENCES locaudit.audit_runs(id),
                resolved_run bigint REFERENCES locaudit.audit_runs(id),
                evidence_pruned_at text
            );
            CREATE INDEX findings_by_app ON locaudit.findings (device_id, bundle_id, time_us);
            """),
        // SQL that runs on both engines (saved queries) reads `events.time`, and sorts and
        // compares text as SQLite does: by bytes, whatever the database's locale.
        Migration(name: "v2: events as a view with time; text compared by bytes", sql: """
            DROP VIEW locaudit.apps;
            ALTER TABLE locaudit.events RENAME TO event_rows;
            ALTER TABLE locaudit.devices ALTER COLUMN id TYPE text COLLATE "C", ALTER COLUMN name TYPE text COLLATE "C",
                ALTER COLUMN product_type TYPE text COLLATE "C", ALTER COLUMN os_version TYPE text COLLATE "C",
                ALTER COLUMN updated_at TYPE text COLLATE "C";
            ALTER TABLE locaudit.app_versions ALTER COLUMN bundle_id TYPE text COLLATE "C", ALTER COLUMN version TYPE text COLLATE "C",
                ALTER COLUMN build TYPE text COLLATE "C", ALTER COLUMN executable TYPE text COLLATE "C",
                ALTER COLUMN name TYPE text COLLATE "C", ALTER COLUMN usage_keys TYPE text COLLATE "C",
                ALTER COLUMN background_modes TYPE text COLLATE "C", ALTER COLUMN temporary_purpose_keys TYPE text COLLATE "C",
                ALTER COLUMN default_accuracy_reduced TYPE text COLLATE "C", ALTER COLUMN default_accuracy_reduced_type TYPE text COLLATE "C",
                ALTER COLUMN plist_path TYPE text COLLATE "C", ALTER COLUMN plist_sha256 TYPE text COLLATE "C",
                ALTER COLUMN ingested_at TYPE text COLLATE "C";
            ALTER TABLE locaudit.sources ALTER COLUMN content_sha256 TYPE text COLLATE "C", ALTER COLUMN path TYPE text COLLATE "C",
                ALTER COLUMN file_sha256 TYPE text COLLATE "C", ALTER COLUMN container TYPE text COLLATE "C",
                ALTER COLUMN device_id TYPE text COLLATE "C", ALTER COLUMN os_version TYPE text COLLATE "C",
                ALTER COLUMN zone_from TYPE text COLLATE "C", ALTER COLUMN first_time TYPE text COLLATE "C",
                ALTER COLUMN last_time TYPE text COLLATE "C", ALTER COLUMN skipped TYPE text COLLATE "C",
                ALTER COLUMN notes TYPE text COLLATE "C", ALTER COLUMN ingested_at TYPE text COLLATE "C",
                ALTER COLUMN pushed_from TYPE text COLLATE "C";
            ALTER TABLE locaudit.event_rows ALTER COLUMN device_id TYPE text COLLATE "C", ALTER COLUMN process TYPE text COLLATE "C",
                ALTER COLUMN bundle_id TYPE text COLLATE "C", ALTER COLUMN bundle_via TYPE text COLLATE "C",
                ALTER COLUMN kind TYPE text COLLATE "C", ALTER COLUMN pattern TYPE text COLLATE "C",
                ALTER COLUMN status TYPE text COLLATE "C", ALTER COLUMN accuracy TYPE text COLLATE "C",
                ALTER COLUMN reason TYPE text COLLATE "C", ALTER COLUMN app_state TYPE text COLLATE "C",
                ALTER COLUMN service TYPE text COLLATE "C", ALTER COLUMN call TYPE text COLLATE "C",
                ALTER COLUMN property TYPE text COLLATE "C", ALTER COLUMN value TYPE text COLLATE "C",
                ALTER COLUMN prompt_kind TYPE text COLLATE "C", ALTER COLUMN prompt_options TYPE text COLLATE "C",
                ALTER COLUMN choice TYPE text COLLATE "C", ALTER COLUMN purpose_key TYPE text COLLATE "C",
                ALTER COLUMN intent TYPE text COLLATE "C", ALTER COLUMN message TYPE text COLLATE "C";
            ALTER TABLE locaudit.sessions ALTER COLUMN device_id TYPE text COLLATE "C", ALTER COLUMN bundle_id TYPE text COLLATE "C",
                ALTER COLUMN start TYPE text COLLATE "C", ALTER COLUMN "end" TYPE text COLLATE "C",
                ALTER COLUMN end_reason TYPE text COLLATE "C", ALTER COLUMN launch_intent TYPE text COLLATE "C",
                ALTER COLUMN relaunch_service TYPE text COLLATE "C", ALTER COLUMN os_version TYPE text COLLATE "C",
                ALTER COLUMN status_at_start TYPE text COLLATE "C", ALTER COLUMN status_at_end TYPE text COLLATE "C",
                ALTER COLUMN evidence_pruned_at TYPE text COLLATE "C";
            ALTER TABLE locaudit.audit_runs ALTER COLUMN run_key TYPE text COLLATE "C", ALTER COLUMN pushed_from TYPE text COLLATE "C",
                ALTER COLUMN started_at TYPE text COLLATE "C", ALTER COLUMN options TYPE text COLLATE "C",
                ALTER COLUMN verdict TYPE text COLLATE "C", ALTER COLUMN fail_on TYPE text COLLATE "C",
                ALTER COLUMN coverage TYPE text COLLATE "C", ALTER COLUMN checks TYPE text COLLATE "C",
                ALTER COLUMN checks_pruned_at TYPE text COLLATE "C";
            ALTER TABLE locaudit.findings ALTER COLUMN fingerprint TYPE text COLLATE "C", ALTER COLUMN rule TYPE text COLLATE "C",
                ALTER COLUMN severity TYPE text COLLATE "C", ALTER COLUMN device_id TYPE text COLLATE "C",
                ALTER COLUMN bundle_id TYPE text COLLATE "C", ALTER COLUMN os_version TYPE text COLLATE "C",
                ALTER COLUMN session_start TYPE text COLLATE "C", ALTER COLUMN time TYPE text COLLATE "C",
                ALTER COLUMN message TYPE text COLLATE "C", ALTER COLUMN evidence TYPE text COLLATE "C",
                ALTER COLUMN evidence_pruned_at TYPE text COLLATE "C";
            CREATE VIEW locaudit.apps AS
                SELECT DISTINCT ON (bundle_id) bundle_id, executable, name, version, usage_keys, background_modes,
                    temporary_purpose_keys, default_accuracy_reduced, default_accuracy_reduced_type, plist_path, plist_sha256, ingested_at
                FROM locaudit.app_versions ORDER BY bundle_id, ingested_at DESC, id DESC;
            -- The columns of the SQLite store's events, in its order (docs/schema.md).
            CREATE VIEW locaudit.events AS
                SELECT id, source_id, line, device_id, time_us,
                    (to_char(to_timestamp(time_us / 1000000) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') || '.'
                        || lpad((time_us % 1000000)::text, 6, '0') || 'Z') COLLATE "C" AS time,
                    utc_offset, process, pid, app_pid, bundle_id, bundle_via, kind, pattern, status, accuracy, temporary,
                    provisional, reason, app_state, service, call, horizontal_accuracy, latitude, longitude, location_private,
                    property, value, prompt_kind, prompt_options, choice, purpose_key, visible, intent, message, fingerprint, user_kill
                FROM locaudit.event_rows;
            """),
        Migration(name: "v3: an Info.plist's build SDK and explicit service sessions", sql: """
            ALTER TABLE locaudit.app_versions ADD COLUMN platform_version text COLLATE "C",
                ADD COLUMN sdk_name text COLLATE "C", ADD COLUMN requires_explicit_service_session bigint;
            """),
        Migration(name: "v4: the test tool that wrapped a log's lines", sql: """
            ALTER TABLE locaudit.sources ADD COLUMN wrapper text COLLATE "C";
            """),
        // What the fleet's audit settled of each app on each device (CentralAudit): the next
        // audit copies and replays only the lines after it.
        Migration(name: "v5: the fleet's audit's checkpoints", sql: """
            CREATE TABLE locaudit.replay_checkpoints (
                device_id text COLLATE "C" NOT NULL, bundle_id text COLLATE "C" NOT NULL,
                as_of_us bigint, as_of_source bigint, as_of_line bigint, state text COLLATE "C",
                settled text COLLATE "C" NOT NULL, last_event_id bigint NOT NULL, rules text COLLATE "C" NOT NULL,
                pruned_at text COLLATE "C", created_at text COLLATE "C" NOT NULL,
                PRIMARY KEY (device_id, bundle_id)
            );
            """),
    ]

    /// A key of locaudit's own for `pg_advisory_xact_lock`: hosts migrating at once take turns.
    static let lockKey: Int64 = 0x6C6F_6361_7564_6974 // "locaudit"

    /// Applies the migrations the central store lacks, in one transaction under the advisory
    /// lock. A store already current is only read (a host's role needs no DDL privilege).
    /// Refuses a store that a newer locaudit migrated. Returns the names applied.
    @discardableResult
    package static func migrate(_ central: Central) async throws -> [String] {
        let known = Set(migrations.map(\.name))
        let refuseNewer: @Sendable (Set<String>) throws -> Void = { applied in
            let unknown = applied.subtracting(known)
            if !unknown.isEmpty {
                throw CentralError(.server("\(central.url.display) was migrated by a newer locaudit (\(unknown.sorted().joined(separator: ", "))): upgrade locaudit on this host"))
            }
        }
        if let applied = try await appliedNames(central) {
            try refuseNewer(applied)
            if known.isSubset(of: applied) { return [] }
        }
        do {
            return try await apply(central, refuseNewer)
        } catch let error as CentralError where error.sqlState == "42501" {
            throw CentralError(.server("\(central.url.display) lacks locaudit's schema (or this version's upgrade of it) and the role \(central.url.user) may not create it: run `locaudit push --migrate-only --to URL` once as the database's owner (docs/many-hosts.md)"), sqlState: "42501")
        }
    }

    private static func apply(_ central: Central, _ refuseNewer: @escaping @Sendable (Set<String>) throws -> Void) async throws -> [String] {
        try await central.transaction { central in
            try await central.execute("SELECT pg_advisory_xact_lock(\(lockKey))")
            try await central.execute("CREATE SCHEMA IF NOT EXISTS locaudit")
            try await central.execute("CREATE TABLE IF NOT EXISTS locaudit.schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())")
            // Again under the lock: another host may have migrated while this one waited.
            let names: [String] = try await central.rows("SELECT name FROM locaudit.schema_migrations", as: String.self)
            let applied = Set(names)
            try refuseNewer(applied)
            var done: [String] = []
            for migration in migrations where !applied.contains(migration.name) {
                // One statement at a time: the extended protocol takes one a message.
                for statement in migration.sql.components(separatedBy: ";\n") where !statement.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                    try await central.execute(PostgresQuery(unsafeSQL: statement))
                }
                try await central.execute("INSERT INTO locaudit.schema_migrations (name) VALUES (\(migration.name))")
                done.append(migration.name)
            }
            return done
        }
    }

    /// The applied migrations, or nil when the store has no `schema_migrations` yet.
    private static func appliedNames(_ central: Central) async throws -> Set<String>? {
        let exists = try await central.rows("SELECT to_regclass('locaudit.schema_migrations') IS NOT NULL", as: Bool.self)
        guard exists.first == true else { return nil }
        let names: [String] = try await central.rows("SELECT name FROM locaudit.schema_migrations", as: String.self)
        return Set(names)
    }
}
