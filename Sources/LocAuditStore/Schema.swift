import Foundation
import GRDB
import LocAuditNormalise

/// The database schema, as named migrations. `docs/schema.md` documents every column:
/// users write SQL against it, so a change here is a change of interface.
enum Schema {
    struct Migration {
        var identifier: String
        var run: (Database) throws -> Void
        init(_ identifier: String, _ run: @escaping (Database) throws -> Void) {
            self.identifier = identifier
            self.run = run
        }
    }

    /// The migrations, in order. Each applied one is recorded in `grdb_migrations` (the table
    /// of GRDB's migrator, which earlier versions used: their stores keep their history).
    static var migrations: [Migration] { [
        Migration("v1: sources, devices, apps, events") { db in
            try db.execute(sql: """
                CREATE TABLE devices (
                    id TEXT PRIMARY KEY,            -- UniqueDeviceID, --device, the name in the log, or 'unknown'
                    name TEXT,
                    product_type TEXT,
                    os_version TEXT,                -- latest known
                    updated_at TEXT NOT NULL
                );
                CREATE TABLE sources (
                    id INTEGER PRIMARY KEY,
                    path TEXT NOT NULL,
                    file_sha256 TEXT NOT NULL,      -- of the bytes as stored (compressed for gzip)
                    content_sha256 TEXT NOT NULL UNIQUE, -- of the decompressed or raw content
                    size INTEGER NOT NULL,          -- bytes as stored
                    content_size INTEGER NOT NULL,
                    gzip_members INTEGER NOT NULL,  -- 0 for plain files
                    container TEXT NOT NULL,
                    device_id TEXT REFERENCES devices(id),
                    os_version TEXT,                -- iOS version of the device when the log was taken; NULL if unknown
                    zone_assumed INTEGER NOT NULL,  -- 1 when times had no zone and UTC was assumed
                    first_time TEXT,
                    last_time TEXT,
                    lines_read INTEGER NOT NULL,
                    events INTEGER NOT NULL,
                    skipped TEXT NOT NULL,          -- JSON object: reason -> lines
                    notes TEXT NOT NULL,            -- JSON object: repair/assumption -> count
                    ingested_at TEXT NOT NULL
                );
                CREATE INDEX sources_by_file ON sources(size, file_sha256);
                CREATE TABLE apps (
                    bundle_id TEXT PRIMARY KEY,
                    executable TEXT,
                    name TEXT,
                    version TEXT,
                    usage_keys TEXT NOT NULL,       -- JSON array of the NSLocation*UsageDescription keys present
                    background_modes TEXT NOT NULL, -- JSON array (UIBackgroundModes)
                    temporary_purpose_keys TEXT,    -- JSON array, NULL without NSLocationTemporaryUsageDescriptionDictionary
                    default_accuracy_reduced TEXT,  -- value as written, NULL when absent
                    default_accuracy_reduced_type TEXT, -- 'boolean', 'string', 'integer', ... NULL when absent
                    plist_path TEXT NOT NULL,
                    plist_sha256 TEXT NOT NULL,
                    ingested_at TEXT NOT NULL
                );
                CREATE TABLE process_links (
                    device_id TEXT NOT NULL,
                    pid INTEGER NOT NULL,
                    bundle_id TEXT NOT NULL,
                    first_time_us INTEGER NOT NULL,
                    last_time_us INTEGER NOT NULL,
                    PRIMARY KEY (device_id, pid, bundle_id)
                ) WITHOUT ROWID;
                CREATE TABLE events (
                    id INTEGER PRIMARY KEY,
                    source_id INTEGER NOT NULL, -- sources.id (no index: evidence is looked up by event id)
                    line INTEGER NOT NULL,
                    device_id TEXT NOT NULL,
                    time_us INTEGER NOT NULL,       -- UTC, microseconds since 1970
                    time TEXT GENERATED ALWAYS AS (  -- UTC, ISO 8601, computed when read
                        printf('%s.%06dZ', strftime('%Y-%m-%dT%H:%M:%S', time_us / 1000000, 'unixepoch'), time_us % 1000000)) VIRTUAL,
                    utc_offset INTEGER,             -- seconds; NULL when the zone was assumed
                    process TEXT,
                    pid INTEGER,                    -- of the process that logged the line
                    app_pid INTEGER,                -- of the app process the event is about (the session)
                    bundle_id TEXT,                 -- NULL until the app process is linked to a bundle
                    bundle_via TEXT,                -- how: 'message', 'pid', 'executable', 'name'
                    kind TEXT NOT NULL,
                    pattern TEXT NOT NULL,
                    status TEXT, accuracy TEXT, temporary INTEGER, provisional INTEGER, reason TEXT,
                    app_state TEXT, service TEXT, call TEXT,
                    horizontal_accuracy REAL, latitude REAL, longitude REAL, location_private INTEGER,
                    property TEXT, value, prompt_kind TEXT, prompt_options TEXT, choice TEXT,
                    purpose_key TEXT, visible INTEGER, intent TEXT,
                    message TEXT NOT NULL,
                    fingerprint INTEGER NOT NULL
                );
                -- The fingerprint includes the device; time first keeps inserts local.
                CREATE UNIQUE INDEX events_by_fingerprint ON events(time_us, fingerprint);
                CREATE INDEX events_by_app ON events(device_id, bundle_id, time_us);
                CREATE INDEX events_unlinked ON events(device_id, app_pid) WHERE bundle_id IS NULL;
                """)
        },
        Migration("v2: sessions, findings, audit runs") { db in
            try db.execute(sql: """
                CREATE TABLE sessions (             -- rebuilt by every audit from events
                    id INTEGER PRIMARY KEY,
                    device_id TEXT NOT NULL,
                    bundle_id TEXT NOT NULL,
                    pid INTEGER,                    -- the app process; NULL when no line names it
                    start_us INTEGER NOT NULL,      -- launch, else first line
                    start TEXT NOT NULL,
                    end_us INTEGER NOT NULL,
                    end TEXT NOT NULL,
                    end_reason TEXT NOT NULL,       -- 'terminated', 'next-launch', 'end-of-log'
                    launch_intent TEXT,             -- 'foreground-interactive', 'background', NULL without a launch line
                    relaunch_service TEXT,          -- service locationd relaunched the app for
                    os_version TEXT,                -- NULL when unknown
                    events INTEGER NOT NULL,
                    first_event_id INTEGER,
                    last_event_id INTEGER,
                    status_at_start TEXT,           -- replayed status when the session began
                    status_at_end TEXT
                );
                CREATE INDEX sessions_by_app ON sessions(device_id, bundle_id, start_us);
                CREATE TABLE audit_runs (
                    id INTEGER PRIMARY KEY,
                    started_at TEXT NOT NULL,
                    options TEXT NOT NULL,          -- JSON: the filters and thresholds of the run
                    events INTEGER NOT NULL,
                    sessions INTEGER NOT NULL,
                    findings INTEGER NOT NULL,      -- found by this run (before any baseline)
                    new INTEGER NOT NULL,
                    persisting INTEGER NOT NULL,
                    resolved INTEGER NOT NULL,
                    evaluated INTEGER NOT NULL,     -- rule checks evaluated
                    not_evaluable INTEGER NOT NULL,
                    verdict TEXT NOT NULL,          -- 'findings', 'pass', 'insufficient evidence'
                    exit_code INTEGER NOT NULL
                );
                CREATE TABLE findings (             -- one row per finding ever seen; re-audits update it
                    id INTEGER PRIMARY KEY,
                    fingerprint TEXT NOT NULL UNIQUE, -- rule + device + bundle + pid + session start (configuration: rule + bundle + iOS)
                    rule TEXT NOT NULL,
                    severity TEXT NOT NULL,
                    device_id TEXT NOT NULL,
                    bundle_id TEXT NOT NULL,
                    pid INTEGER,                    -- NULL for configuration findings
                    os_version TEXT,
                    session_start TEXT,             -- NULL for configuration findings
                    time_us INTEGER NOT NULL,
                    time TEXT NOT NULL,
                    message TEXT NOT NULL,
                    evidence TEXT NOT NULL,         -- JSON [{event, file, line}]
                    first_run INTEGER NOT NULL REFERENCES audit_runs(id),
                    last_run INTEGER NOT NULL REFERENCES audit_runs(id),
                    resolved_run INTEGER REFERENCES audit_runs(id) -- NULL while the finding is still seen
                );
                CREATE INDEX findings_by_app ON findings(device_id, bundle_id, time_us);
                """)
        },
        Migration("v3: audit runs keep their coverage and checks") { db in
            // What `locaudit report` needs to render a stored run exactly as the audit did.
            try db.execute(sql: """
                ALTER TABLE audit_runs ADD COLUMN fail_on TEXT NOT NULL DEFAULT 'high';
                ALTER TABLE audit_runs ADD COLUMN coverage TEXT;  -- JSON (the report's coverage)
                ALTER TABLE audit_runs ADD COLUMN checks TEXT;    -- JSON [{subject, rule, notEvaluable, findings}]
                """)
        },
        Migration("v4: a line is one event whatever the precision of its export") { db in
            // The fingerprint leaves the time out and the key is the UTC second: a whole-second
            // idevicesyslog line and the same line from `log show` (microseconds) are one event.
            try db.execute(sql: "DROP INDEX events_by_fingerprint")
            try Schema.refingerprintEvents(db)
            try db.execute(sql: "CREATE UNIQUE INDEX events_by_line ON events(time_us / 1000000, fingerprint)")
        },
        Migration("v5: a zone-less log says whose offset it took") { db in
            try db.execute(sql: """
                ALTER TABLE sources ADD COLUMN zone_offset INTEGER; -- seconds: the offset taken from a zoned export of the device and period
                ALTER TABLE sources ADD COLUMN zone_from TEXT;      -- the path of that export
                """)
        },
        Migration("v6: a session finding knows the event that opened its session") { db in
            // Its identity when the session gains lines; for findings of older runs, from the
            // session they were recorded with.
            try db.execute(sql: """
                ALTER TABLE findings ADD COLUMN session_event INTEGER; -- events.id of the line that opened the session
                UPDATE findings SET session_event = (
                    SELECT s.first_event_id FROM sessions s
                    WHERE s.device_id = findings.device_id AND s.bundle_id = findings.bundle_id
                        AND s.pid IS findings.pid AND s.start = findings.session_start
                    ORDER BY s.id LIMIT 1)
                WHERE session_start IS NOT NULL;
                """)
        },
        Migration("v7: prune keeps what the replay knew, and marks what it pruned") { db in
            try db.execute(sql: """
                ALTER TABLE sessions ADD COLUMN evidence_pruned_at TEXT; -- when prune removed lines it was built from: kept as it was
                ALTER TABLE findings ADD COLUMN evidence_pruned_at TEXT; -- when prune removed lines it cites: never resolved
                CREATE TABLE replay_checkpoints (     -- what the replay of an app on a device knew where prune cut its lines
                    device_id TEXT NOT NULL,
                    bundle_id TEXT NOT NULL,
                    as_of_us INTEGER NOT NULL,        -- the last line replayed into it: time, source and line (the replay's order)
                    as_of_source INTEGER NOT NULL,
                    as_of_line INTEGER NOT NULL,
                    state TEXT NOT NULL,              -- JSON: the replay state (status, grants, prompts shown, ...)
                    created_at TEXT NOT NULL,
                    PRIMARY KEY (device_id, bundle_id)
                ) WITHOUT ROWID;
                """)
        },
        Migration("v8: prune thins the rule checks of old runs") { db in
            try db.execute(sql: """
                ALTER TABLE audit_runs ADD COLUMN checks_pruned_at TEXT; -- when prune dropped the run's checks (their counts stay)
                """)
        },
        Migration("v9: terminations keep whether the user killed the app") { db in
            try db.execute(sql: "ALTER TABLE events ADD COLUMN user_kill INTEGER")
        },
        Migration("v10: every Info.plist of an app is kept, and the audit finds which lines a device's logs carry") { db in
            // A session is judged by the Info.plist in force when it ran; `apps` keeps the
            // latest. The partial index finds the devices whose logs carry indicator or
            // authorization lines without reading every event.
            try db.execute(sql: """
                CREATE TABLE app_versions (           -- one row per Info.plist of an app ever ingested
                    id INTEGER PRIMARY KEY,
                    bundle_id TEXT NOT NULL,
                    version TEXT,                     -- CFBundleShortVersionString
                    build TEXT,                       -- CFBundleVersion
                    executable TEXT,
                    name TEXT,
                    usage_keys TEXT NOT NULL,
                    background_modes TEXT NOT NULL,
                    temporary_purpose_keys TEXT,
                    default_accuracy_reduced TEXT,
                    default_accuracy_reduced_type TEXT,
                    plist_path TEXT NOT NULL,
                    plist_sha256 TEXT NOT NULL,
                    ingested_at TEXT NOT NULL,        -- first ingest
                    first_seen_us INTEGER NOT NULL,   -- in force from: its first ingest, or the first line of the logs ingested with it
                    first_seen TEXT GENERATED ALWAYS AS (
                        printf('%s.%06dZ', strftime('%Y-%m-%dT%H:%M:%S', first_seen_us / 1000000, 'unixepoch'), first_seen_us % 1000000)) VIRTUAL,
                    UNIQUE (bundle_id, plist_sha256)
                );
                INSERT INTO app_versions (bundle_id, version, executable, name, usage_keys, background_modes, temporary_purpose_keys,
                    default_accuracy_reduced, default_accuracy_reduced_type, plist_path, plist_sha256, ingested_at, first_seen_us)
                SELECT bundle_id, version, executable, name, usage_keys, background_modes, temporary_purpose_keys,
                    default_accuracy_reduced, default_accuracy_reduced_type, plist_path, plist_sha256, ingested_at,
                    CAST(strftime('%s', ingested_at) AS INTEGER) * 1000000
                FROM apps;
                CREATE INDEX events_by_family ON events(device_id, kind) WHERE kind IN ('blue-bar', 'prompt', 'prompt-response', 'status-change', 'accuracy-change');
                """)
        },
        Migration("v11: events in narrow rows, each message as its format and its numbers") { db in
            // `events` becomes a view with the same columns (docs/schema.md): the device, app,
            // process, kind, pattern and link of a row are ids into `names`, and the message
            // is `printf(format, a1, ..., a12)` (`MessageTemplate`): about a third of the bytes.
            try db.execute(sql: """
                CREATE TABLE names (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE); -- devices, apps, processes, kinds, patterns, links
                INSERT INTO names (name) VALUES ('authorization'), ('location'), ('property'), ('call'), ('crash'),
                    ('usage-key-missing'), ('app-state'), ('launch'), ('relaunch'), ('blue-bar'), ('prompt'), ('prompt-response'),
                    ('status-change'), ('accuracy-change'), ('access-begin'), ('access-end'), ('install'), ('uninstall');
                CREATE TABLE event_rows (
                    id INTEGER PRIMARY KEY,
                    source_id INTEGER NOT NULL,
                    line INTEGER NOT NULL,
                    device_ref INTEGER NOT NULL,    -- names.id of the device id
                    time_us INTEGER NOT NULL,
                    utc_offset INTEGER,
                    process_ref INTEGER,            -- names.id of the process
                    pid INTEGER,
                    app_pid INTEGER,
                    bundle_ref INTEGER,             -- names.id of the bundle id; NULL until linked
                    via_ref INTEGER,                -- names.id of bundle_via
                    kind_ref INTEGER NOT NULL,      -- names.id of the kind
                    pattern_ref INTEGER NOT NULL,   -- names.id of the pattern
                    status TEXT, accuracy TEXT, temporary INTEGER, provisional INTEGER, reason TEXT,
                    app_state TEXT, service TEXT, call TEXT,
                    horizontal_accuracy REAL, latitude REAL, longitude REAL, location_private INTEGER,
                    property TEXT, value, prompt_kind TEXT, prompt_options TEXT, choice TEXT,
                    purpose_key TEXT, visible INTEGER, intent TEXT, user_kill INTEGER,
                    fingerprint INTEGER NOT NULL
                );
                CREATE TABLE message_formats (id INTEGER PRIMARY KEY, hash INTEGER NOT NULL, format TEXT NOT NULL);
                CREATE INDEX message_formats_by_hash ON message_formats(hash);
                CREATE TABLE event_messages (id INTEGER PRIMARY KEY, format INTEGER NOT NULL, \(MessageWriter.argumentColumns.joined(separator: ", ")));
                INSERT OR IGNORE INTO names (name)
                    SELECT device_id FROM events UNION SELECT process FROM events WHERE process IS NOT NULL
                    UNION SELECT bundle_id FROM events WHERE bundle_id IS NOT NULL UNION SELECT bundle_via FROM events WHERE bundle_via IS NOT NULL
                    UNION SELECT kind FROM events UNION SELECT pattern FROM events;
                INSERT INTO event_rows SELECT e.id, e.source_id, e.line, d.id, e.time_us, e.utc_offset, p.id, e.pid, e.app_pid, b.id, v.id,
                    k.id, pt.id, e.status, e.accuracy, e.temporary, e.provisional, e.reason, e.app_state, e.service, e.call,
                    e.horizontal_accuracy, e.latitude, e.longitude, e.location_private, e.property, e.value, e.prompt_kind,
                    e.prompt_options, e.choice, e.purpose_key, e.visible, e.intent, e.user_kill, e.fingerprint
                FROM events e JOIN names d ON d.name = e.device_id LEFT JOIN names p ON p.name = e.process
                    LEFT JOIN names b ON b.name = e.bundle_id LEFT JOIN names v ON v.name = e.bundle_via
                    JOIN names k ON k.name = e.kind JOIN names pt ON pt.name = e.pattern;
                """)
            let messages = try MessageWriter(db)
            let rows = try Row.fetchCursor(db, sql: "SELECT id, message FROM events")
            while let row = try rows.next() { try messages.write(id: row["id"], message: row["message"]) }
            try db.execute(sql: """
                DROP TABLE events;
                CREATE UNIQUE INDEX events_by_line ON event_rows(time_us / 1000000, fingerprint);
                CREATE INDEX events_by_app ON event_rows(device_ref, bundle_ref, time_us);
                CREATE INDEX events_unlinked ON event_rows(device_ref, app_pid) WHERE bundle_ref IS NULL;
                CREATE INDEX events_by_family ON event_rows(device_ref, kind_ref) WHERE \(try EventNames.familyCondition(db));
                CREATE TRIGGER event_rows_delete AFTER DELETE ON event_rows BEGIN DELETE FROM event_messages WHERE id = old.id; END;
                \(eventsView)
                """)
        },
        Migration("v12: a nightly run records what it owes the audit until its audit is recorded") { db in
            try db.execute(sql: """
                CREATE TABLE audit_owed (           -- one row per locaudit run between its ingest and its audit
                    id INTEGER PRIMARY KEY,
                    started_at TEXT NOT NULL,
                    pid INTEGER NOT NULL,
                    after_source INTEGER NOT NULL,  -- sources with a greater id were stored by it (or after it)
                    after_event INTEGER NOT NULL    -- events with a greater id likewise
                );
                """)
        },
        Migration("v13: an Info.plist's build SDK and explicit service sessions") { db in
            // Rules model v2: the SDK an app was built with decides some rules (the Always
            // key on iOS 11+); NSLocationRequireExplicitServiceSession is shown.
            try db.execute(sql: """
                ALTER TABLE app_versions ADD COLUMN platform_version TEXT;                  -- DTPlatformVersion
                ALTER TABLE app_versions ADD COLUMN sdk_name TEXT;                          -- DTSDKName
                ALTER TABLE app_versions ADD COLUMN requires_explicit_service_session INTEGER; -- NSLocationRequireExplicitServiceSession, 0/1
                DROP INDEX events_by_family;
                CREATE INDEX events_by_family ON event_rows(device_ref, kind_ref) WHERE \(try EventNames.familyCondition(db));
                """)
            // Relaunch lines became an evidence family of their own (DeviceLogs).
        },
        Migration("v14: a device keeps its time zone and the facts set by hand") { db in
            // `locaudit devices set` mends a device's facts after ingest; later logs linked to
            // the device (by its name) are read in its zone.
            try db.execute(sql: """
                ALTER TABLE devices ADD COLUMN time_zone TEXT;    -- TimeZone (ideviceinfo) or `devices set --tz`
                ALTER TABLE devices ADD COLUMN set_by_hand TEXT;  -- JSON list of the columns `devices set` wrote
                """)
        },
        Migration("v15: an audit run records its scope") { db in
            // Exploratory audits (--app, --device, --rule, --since, --until) are not nights:
            // the fleet's trend counts nightly and full runs only. Past runs: from their options.
            try db.execute(sql: """
                ALTER TABLE audit_runs ADD COLUMN scope TEXT NOT NULL DEFAULT 'full'; -- 'full', 'nightly', 'exploratory'
                UPDATE audit_runs SET scope = 'exploratory' WHERE json_extract(options, '$.device') IS NOT NULL
                    OR json_extract(options, '$.app') IS NOT NULL OR json_extract(options, '$.since') IS NOT NULL
                    OR json_extract(options, '$.until') IS NOT NULL;
                """)
        },
        Migration("v16: a source records the test tool that wrapped its lines") { db in
            // Appium and `flutter run -v` put a prefix before each device line (issue 26):
            // `container` stays the container inside; NULL for a file no tool wrapped.
            try db.execute(sql: """
                ALTER TABLE sources ADD COLUMN wrapper TEXT; -- 'appium', 'flutter', or NULL
                """)
        },
        Migration("v17: events_by_family's condition as comparisons, not an IN list") { db in
            // The same rows in the index; its condition is now tested without a temporary
            // B-tree at every insert (EventNames.familyCondition).
            try db.execute(sql: """
                DROP INDEX events_by_family;
                CREATE INDEX events_by_family ON event_rows(device_ref, kind_ref) WHERE \(try EventNames.familyCondition(db));
                """)
        },
        Migration("v18: a run's checks, a row a subject") { db in
            // One text of every check made a large run's recording hold it twice (16 MB at
            // 4 GiB of logs, and SQLite's record of it): each subject is now a row, written as
            // it is made. Runs in the grouped shape move here; a run in the older list shape
            // (of records) keeps it in `audit_runs.checks`, read as before.
            try db.execute(sql: """
                CREATE TABLE audit_checks (
                    run_id INTEGER NOT NULL,   -- audit_runs.id
                    position INTEGER NOT NULL, -- the subject's place in the run: 0, 1, …
                    checks TEXT NOT NULL,      -- JSON {subject, passed, notEvaluable, findings}
                    PRIMARY KEY (run_id, position)
                );
                INSERT INTO audit_checks (run_id, position, checks)
                    SELECT r.id, s.key, s.value
                    FROM audit_runs r, json_each(CASE WHEN json_valid(r.checks) THEN r.checks ELSE '{}' END, '$.subjects') s
                    WHERE r.checks IS NOT NULL;
                UPDATE audit_runs SET checks = NULL
                    WHERE CASE WHEN json_valid(checks) THEN json_type(checks, '$.subjects') = 'array' ELSE 0 END;
                """)
        },
        Migration("v19: the audit reads an app's events from indexes that hold what it reads") { db in
            // The audit read each row of an app through `events_by_app` and then its record in
            // `event_rows` (a seek, and the record's 35 columns' header for the 9 it reads), and
            // tested all 17 columns most rows leave NULL to learn whether to read them by id
            // (half its SQLite time): `events_by_app` now holds the 9 columns it reads of every
            // row, in (time, id) order, and `events_rare` the rows that fill a rare column
            // (docs/performance.md, "Audit on two cores"). Its condition is
            // `AppEvent.rareFilled`'s, word for word; `events_by_app`'s columns are
            // `AppEvent.selection`'s.
            try db.execute(sql: """
                DROP INDEX events_by_app;
                CREATE INDEX events_by_app ON event_rows(device_ref, bundle_ref, time_us, id, kind_ref, app_pid, source_id, line, \
                horizontal_accuracy, location_private, fingerprint);
                CREATE INDEX events_rare ON event_rows(device_ref, bundle_ref, time_us)
                    WHERE coalesce(status, accuracy, temporary, provisional, reason, app_state, service, call, property, value, \
                prompt_kind, prompt_options, choice, purpose_key, visible, intent, user_kill) IS NOT NULL;
                """)
        },
    ] }

    /// The events with the columns of docs/schema.md, over the narrow tables of v11. Every
    /// join is a LEFT JOIN on a primary key, so that SQLite leaves out those whose columns a
    /// query does not read.
    static let eventsView = """
        CREATE VIEW events AS SELECT r.id, r.source_id, r.line, device.name AS device_id, r.time_us,
            printf('%s.%06dZ', strftime('%Y-%m-%dT%H:%M:%S', r.time_us / 1000000, 'unixepoch'), r.time_us % 1000000) AS time,
            r.utc_offset, process.name AS process, r.pid, r.app_pid, bundle.name AS bundle_id, via.name AS bundle_via,
            kind.name AS kind, pattern.name AS pattern, r.status, r.accuracy, r.temporary, r.provisional, r.reason,
            r.app_state, r.service, r.call, r.horizontal_accuracy, r.latitude, r.longitude, r.location_private,
            r.property, r.value, r.prompt_kind, r.prompt_options, r.choice, r.purpose_key, r.visible, r.intent,
            CASE format.format WHEN '' THEN '' ELSE printf(format.format, \(MessageWriter.argumentColumns.map { "m.\($0)" }.joined(separator: ", "))) END AS message,
            r.fingerprint, r.user_kill
        FROM event_rows r
            LEFT JOIN names device ON device.id = r.device_ref LEFT JOIN names process ON process.id = r.process_ref
            LEFT JOIN names bundle ON bundle.id = r.bundle_ref LEFT JOIN names via ON via.id = r.via_ref
            LEFT JOIN names kind ON kind.id = r.kind_ref LEFT JOIN names pattern ON pattern.id = r.pattern_ref
            LEFT JOIN event_messages m ON m.id = r.id LEFT JOIN message_formats format ON format.id = m.format;
        """

    /// What a database holds, before anything is written to it.
    enum State: Equatable {
        /// No table (a new or empty file), or only the bookkeeping of a migration that another
        /// process is running right now.
        case empty
        /// A locaudit store, migrated to this version's schema.
        case current
        /// A locaudit store of an older version: migrations to run.
        case pending
        /// A locaudit store migrated by a newer version.
        case newer
        /// Some other database: its tables.
        case foreign([String])
    }

    static func state(_ db: Database) throws -> State {
        let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        let applied = tables.contains("grdb_migrations") ? Set(try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")) : []
        let known = Set(migrations.map(\.identifier))
        if applied.isEmpty {
            let others = tables.filter { $0 != "grdb_migrations" }
            return others.isEmpty ? .empty : .foreign(others)
        }
        if applied.isDisjoint(with: known) { return .foreign(tables) }
        if !applied.isSubset(of: known) { return .newer }
        return applied == known ? .current : .pending
    }

    /// Brings the store to the current schema, in WAL mode, and returns the state it found.
    /// The check and every missing migration run in one transaction that holds the write
    /// lock (`BEGIN IMMEDIATE`): several processes opening a new store at once (cron overlap,
    /// parallel ingests) take turns, and each after the first finds it migrated. A store
    /// found `foreign` or `newer` under the lock is left as it was.
    static func migrate(_ queue: DatabaseQueue) throws -> State {
        try queue.inDatabase { db in
            // Outside a transaction, as SQLite requires. While another process has the new
            // file open SQLite answers "busy" at once rather than wait: try again, as long as
            // the busy timeout.
            let deadline = Date().addingTimeInterval(120)
            while try String.fetchOne(db, sql: "PRAGMA journal_mode") != "wal" {
                do {
                    try db.execute(sql: "PRAGMA journal_mode = WAL")
                } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && Date() < deadline {
                    Thread.sleep(forTimeInterval: 0.01)
                }
            }
            var found = State.current
            var narrowed = false
            try db.inTransaction(.immediate) {
                found = try state(db)
                guard found == .empty || found == .pending else { return .rollback }
                try db.execute(sql: "CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
                let applied = Set(try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations"))
                for migration in migrations where !applied.contains(migration.identifier) {
                    try migration.run(db)
                    try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES (?)", arguments: [migration.identifier])
                    if migration.identifier.hasPrefix("v11:") { narrowed = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM event_rows)")! }
                }
                return .commit
            }
            // The events of an older store now take a third of the pages: give the rest back
            // to the file system once (a reader still open elsewhere makes it wait for another prune).
            if narrowed { try? db.execute(sql: "VACUUM") }
            return found
        }
    }

    /// Gives every stored event the fingerprint of `LineFingerprint`, its ordinal counted
    /// among identical lines of its device in its second (in time order): what a fresh ingest
    /// of any of its exports computes, so that they find the line already stored.
    static func refingerprintEvents(_ db: Database) throws {
        let update = try db.makeStatement(sql: "UPDATE events SET fingerprint = ? WHERE id = ?")
        var group: (device: String, second: Int64) = ("", .min)
        var seen: [Int64: Int] = [:]
        let rows = try Row.fetchCursor(db, sql: """
            SELECT id, device_id, time_us, process, pid, message FROM events ORDER BY device_id, time_us, id
            """)
        while let row = try rows.next() {
            let device: String = row["device_id"], second = LineFingerprint.second(row["time_us"])
            if device != group.device || second != group.second {
                group = (device, second)
                seen.removeAll(keepingCapacity: true)
            }
            let process: String? = row["process"], pid: Int64? = row["pid"], message: String = row["message"]
            let base = LineFingerprint.of(process: process, pid: pid, message: message, ordinal: 0)
            let ordinal = seen[base, default: 0]
            seen[base] = ordinal + 1
            let line = ordinal == 0 ? base : LineFingerprint.of(process: process, pid: pid, message: message, ordinal: ordinal)
            try update.execute(arguments: [LineFingerprint.stored(line, device: device), row["id"] as Int64])
        }
    }
}
