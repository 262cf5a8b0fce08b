import Foundation

/// What an app's Info.plist promises about location: the configuration rules read it.
public struct AppFacts: Sendable, Codable, Equatable {
    public var bundleId: String
    public var executable: String?
    public var name: String?
    /// `CFBundleShortVersionString` and `CFBundleVersion`.
    public var version: String?
    public var build: String?
    /// The `NSLocation*UsageDescription` keys present (with a non-empty string value).
    public var usageKeys: [String]
    public var backgroundModes: [String]
    /// Purpose keys of `NSLocationTemporaryUsageDescriptionDictionary`; nil when the key is absent.
    public var temporaryPurposeKeys: [String]?
    /// `NSLocationDefaultAccuracyReduced` as written, and its property-list type.
    public var defaultAccuracyReduced: String?
    public var defaultAccuracyReducedType: String?

    static let usageKeyNames = ["NSLocationUsageDescription", "NSLocationWhenInUseUsageDescription",
                                "NSLocationAlwaysUsageDescription", "NSLocationAlwaysAndWhenInUseUsageDescription"]

    /// Reads an Info.plist (XML or binary).
    public static func read(_ data: Data) throws -> AppFacts {
        let plist: Any
        do {
            plist = try PropertyListSerialization.propertyList(from: data, format: nil)
        } catch {
            throw FactsError(reason: "not a readable property list (\(error.localizedDescription))",
                             advice: "Check it with `plutil -lint` (macOS) or `python3 -m plistlib`; re-export it from the .app bundle.")
        }
        guard let dict = plist as? [String: Any] else {
            throw FactsError(reason: "the property list is not a dictionary", advice: "Pass the app's Info.plist.")
        }
        guard let bundleId = dict["CFBundleIdentifier"] as? String, !bundleId.isEmpty else {
            throw FactsError(reason: "no CFBundleIdentifier", advice: "Pass the app's own Info.plist (the one inside the .app bundle).")
        }
        var facts = AppFacts(bundleId: bundleId, usageKeys: [], backgroundModes: [])
        facts.executable = dict["CFBundleExecutable"] as? String
        facts.name = (dict["CFBundleDisplayName"] as? String) ?? (dict["CFBundleName"] as? String)
        facts.version = dict["CFBundleShortVersionString"] as? String
        facts.build = dict["CFBundleVersion"] as? String
        facts.usageKeys = usageKeyNames.filter { ($0 as String?).flatMap { dict[$0] as? String }.map { !$0.isEmpty } ?? false }
        facts.backgroundModes = (dict["UIBackgroundModes"] as? [Any])?.compactMap { $0 as? String } ?? []
        if let purposes = dict["NSLocationTemporaryUsageDescriptionDictionary"] {
            facts.temporaryPurposeKeys = (purposes as? [String: Any]).map { $0.keys.sorted() } ?? []
        }
        if let reduced = dict["NSLocationDefaultAccuracyReduced"] {
            facts.defaultAccuracyReducedType = plistType(reduced)
            facts.defaultAccuracyReduced = "\(reduced)"
        }
        return facts
    }

    static func plistType(_ value: Any) -> String {
        if type(of: value) == Bool.self { return "boolean" }
        if value is String { return "string" }
        if let n = value as? NSNumber {
            let t = String(cString: n.objCType)
            return t == "d" || t == "f" ? "real" : "integer"
        }
        if value is [Any] { return "array" }
        if value is [String: Any] { return "dictionary" }
        if value is Date { return "date" }
        if value is Data { return "data" }
        return "unknown"
    }

    /// Whether the app declares the location background mode.
    public var hasLocationCapability: Bool { backgroundModes.contains("location") }
}

/// Why a device-facts or Info.plist file could not be read.
public struct FactsError: Error, CustomStringConvertible, Sendable {
    public var reason: String
    public var advice: String
    public var description: String { "\(reason). \(advice)" }
}
