import Foundation
import GRDB
import LocAuditModel

extension AppVersions {
    /// Every app's versions, by bundle id.
    static func load(_ db: Database) throws -> [String: AppVersions] {
        var byApp: [String: [AppVersion]] = [:]
        for row in try Row.fetchAll(db, sql: """
            SELECT bundle_id, executable, name, version, build, usage_keys, background_modes, temporary_purpose_keys,
                   default_accuracy_reduced, default_accuracy_reduced_type, plist_path, plist_sha256, first_seen_us
            FROM app_versions
            """) {
            func list(_ text: String?) -> [String]? {
                text.flatMap { try? JSONDecoder().decode([String].self, from: Data($0.utf8)) }
            }
            var facts = AppFacts(bundleId: row[0], usageKeys: list(row[5]) ?? [], backgroundModes: list(row[6]) ?? [])
            facts.executable = row[1]
            facts.name = row[2]
            facts.version = row[3]
            facts.build = row[4]
            facts.temporaryPurposeKeys = list(row[7])
            facts.defaultAccuracyReduced = row[8]
            facts.defaultAccuracyReducedType = row[9]
            byApp[facts.bundleId, default: []].append(AppVersion(facts: facts, path: row[10], sha256: row[11], firstSeenUS: row[12]))
        }
        return byApp.mapValues(AppVersions.init)
    }
}
