import Foundation
import GRDB
import LocAuditModel

extension AppVersions {
    /// Every app's versions, by bundle id.
    package static func load(_ db: Database) throws -> [String: AppVersions] {
        var byApp: [String: [AppVersion]] = [:]
        for stored in try StoredAppVersion.fetchAll(db) {
            var facts = AppFacts(bundleId: stored.bundleId, usageKeys: stored.usageKeys.value ?? [],
                                 backgroundModes: stored.backgroundModes.value ?? [])
            facts.executable = stored.executable
            facts.name = stored.name
            facts.version = stored.version
            facts.build = stored.build
            facts.temporaryPurposeKeys = stored.temporaryPurposeKeys.value
            facts.defaultAccuracyReduced = stored.defaultAccuracyReduced
            facts.defaultAccuracyReducedType = stored.defaultAccuracyReducedType
            facts.platformVersion = stored.platformVersion
            facts.sdkName = stored.sdkName
            facts.requiresExplicitServiceSession = stored.requiresExplicitServiceSession
            byApp[facts.bundleId, default: []].append(AppVersion(facts: facts, path: stored.plistPath, sha256: stored.plistSHA256,
                                                                 firstSeenUS: stored.firstSeenUS))
        }
        return byApp.mapValues(AppVersions.init)
    }
}

/// A row of `app_versions`, as the replay reads it.
struct StoredAppVersion: Decodable, FetchableRecord, TableRecord {
    static let databaseTableName = "app_versions"
    static var databaseSelection: [any SQLSelectable] { CodingKeys.allCases.map { Column($0) } }

    var bundleId: String
    var executable: String?
    var name: String?
    var version: String?
    var build: String?
    var usageKeys: JSONColumn<[String]>
    var backgroundModes: JSONColumn<[String]>
    var temporaryPurposeKeys: JSONColumn<[String]>
    var defaultAccuracyReduced: String?
    var defaultAccuracyReducedType: String?
    var plistPath: String
    var plistSHA256: String
    var firstSeenUS: Int64
    var platformVersion: String?
    var sdkName: String?
    var requiresExplicitServiceSession: Bool?

    enum CodingKeys: String, CodingKey, CaseIterable, ColumnExpression {
        case bundleId = "bundle_id", executable, name, version, build, usageKeys = "usage_keys", backgroundModes = "background_modes"
        case temporaryPurposeKeys = "temporary_purpose_keys", defaultAccuracyReduced = "default_accuracy_reduced"
        case defaultAccuracyReducedType = "default_accuracy_reduced_type", plistPath = "plist_path", plistSHA256 = "plist_sha256"
        case firstSeenUS = "first_seen_us", platformVersion = "platform_version", sdkName = "sdk_name"
        case requiresExplicitServiceSession = "requires_explicit_service_session"
    }
}
