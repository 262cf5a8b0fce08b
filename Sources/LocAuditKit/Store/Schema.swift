import GRDB

/// The database schema, as named migrations. `docs/schema.md` documents every column:
/// users write SQL against it, so a change here is a change of interface.
enum Schema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: sources, devices, apps, events") { db in
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
        }
        return migrator
    }

    /// Event columns in insert order (after the fixed ones).
    static let eventColumns = EventColumn.allCases
}
