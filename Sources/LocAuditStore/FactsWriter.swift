import Foundation
import GRDB
import LocAuditModel

/// The store's upserts for device and app facts.
package enum FactsWriter {
    static func upsertDevice(_ id: String, _ facts: DeviceFacts, in db: Database) throws {
        try db.execute(sql: """
            INSERT INTO devices (id, name, product_type, os_version, time_zone, updated_at) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (id) DO UPDATE SET
                name = CASE WHEN \(Devices.setByHand("name")) THEN name ELSE coalesce(excluded.name, name) END,
                product_type = coalesce(excluded.product_type, product_type),
                os_version = CASE WHEN \(Devices.setByHand("os_version")) THEN os_version ELSE coalesce(excluded.os_version, os_version) END,
                time_zone = CASE WHEN \(Devices.setByHand("time_zone")) THEN time_zone ELSE coalesce(excluded.time_zone, time_zone) END,
                updated_at = excluded.updated_at
            """, arguments: [id, facts.name, facts.productType, facts.osVersion, facts.timeZone, Clock.nowISO()])
    }

    package static func upsertApp(_ app: AppFacts, path: String, sha256: String, in db: Database) throws {
        try db.execute(sql: """
            INSERT INTO apps (bundle_id, executable, name, version, usage_keys, background_modes, temporary_purpose_keys,
                default_accuracy_reduced, default_accuracy_reduced_type, plist_path, plist_sha256, ingested_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (bundle_id) DO UPDATE SET
                executable = excluded.executable, name = excluded.name, version = excluded.version,
                usage_keys = excluded.usage_keys, background_modes = excluded.background_modes,
                temporary_purpose_keys = excluded.temporary_purpose_keys,
                default_accuracy_reduced = excluded.default_accuracy_reduced,
                default_accuracy_reduced_type = excluded.default_accuracy_reduced_type,
                plist_path = excluded.plist_path, plist_sha256 = excluded.plist_sha256, ingested_at = excluded.ingested_at
            """, arguments: [app.bundleId, app.executable, app.name, app.version, jsonText(app.usageKeys),
                             jsonText(app.backgroundModes), app.temporaryPurposeKeys.map { jsonText($0) },
                             app.defaultAccuracyReduced, app.defaultAccuracyReducedType, path, sha256, Clock.nowISO()])
        // Every Info.plist of the app stays, in force from its first ingest (`Ingester` moves
        // that back to the first line of the logs ingested with it).
        try db.execute(sql: """
            INSERT INTO app_versions (bundle_id, version, build, executable, name, usage_keys, background_modes,
                temporary_purpose_keys, default_accuracy_reduced, default_accuracy_reduced_type, plist_path, plist_sha256,
                ingested_at, first_seen_us, platform_version, sdk_name, requires_explicit_service_session)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (bundle_id, plist_sha256) DO NOTHING
            """, arguments: [app.bundleId, app.version, app.build, app.executable, app.name, jsonText(app.usageKeys),
                             jsonText(app.backgroundModes), app.temporaryPurposeKeys.map { jsonText($0) },
                             app.defaultAccuracyReduced, app.defaultAccuracyReducedType, path, sha256, Clock.nowISO(), Clock.nowUS(),
                             app.platformVersion, app.sdkName, app.requiresExplicitServiceSession])
    }
}
