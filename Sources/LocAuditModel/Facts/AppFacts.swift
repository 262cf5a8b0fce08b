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
    /// `DTPlatformVersion` and `DTSDKName`, which Xcode writes into a built Info.plist: the
    /// SDK the app was built with (v2: iOS keeps some old behaviour for old SDKs).
    public var platformVersion: String?
    public var sdkName: String?
    /// `NSLocationRequireExplicitServiceSession` (iOS 18+): read and shown; no rule reads it yet.
    public var requiresExplicitServiceSession: Bool?

    /// A property-list value's type, as `app_versions.default_accuracy_reduced_type` spells it.
    public enum PlistType: String, Sendable, CaseIterable {
        case boolean, string, integer, real, array, dictionary, date, data, unknown
    }

    /// Reads an Info.plist (XML or binary).
    public static func read(_ data: Data) throws -> AppFacts {
        if binaryObjectMarkers(data)?.contains(where: { $0 >> 4 == 0xC }) == true {
            throw FactsError(reason: "the binary property list holds a set, which no Info.plist has (a damaged or foreign file)",
                             advice: "Pass the app's own Info.plist; check it with `plutil -lint` (macOS) or `python3 -m plistlib`.")
        }
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
        facts.usageKeys = UsageKey.all.filter { ($0 as String?).flatMap { dict[$0] as? String }.map { !$0.isEmpty } ?? false }
        facts.backgroundModes = (dict["UIBackgroundModes"] as? [Any])?.compactMap { $0 as? String } ?? []
        if let purposes = dict["NSLocationTemporaryUsageDescriptionDictionary"] {
            facts.temporaryPurposeKeys = (purposes as? [String: Any]).map { $0.keys.sorted() } ?? []
        }
        facts.platformVersion = dict["DTPlatformVersion"] as? String
        facts.sdkName = dict["DTSDKName"] as? String
        if let explicit = dict["NSLocationRequireExplicitServiceSession"], plistType(explicit) == .boolean {
            facts.requiresExplicitServiceSession = explicit as? Bool
        }
        if let reduced = dict["NSLocationDefaultAccuracyReduced"] {
            let type = plistType(reduced)
            facts.defaultAccuracyReducedType = type.rawValue
            facts.defaultAccuracyReduced = text(reduced, type: type)
        }
        return facts
    }

    /// The first byte (the type marker) of every object of a binary property list, read
    /// from its offset table; nil when `data` is not one or its table does not fit in it
    /// (the parser says what is wrong then). Foundation on Linux crashes (SIGSEGV) turning a
    /// set (marker 0xCn) into a Swift value, so sets are looked for before it parses.
    static func binaryObjectMarkers(_ data: Data) -> [UInt8]? {
        let b = [UInt8](data)
        // "bplist00", the objects, the offset table, a 32-byte trailer.
        guard b.count >= 40, b.starts(with: Array("bplist".utf8)) else { return nil }
        let trailer = b.count - 32
        func number(_ at: Int, _ size: Int) -> Int? {
            guard size <= 7 || b[at] < 0x80 else { return nil } // would not fit in an Int
            return b[at..<(at + size)].reduce(0) { $0 << 8 | Int($1) }
        }
        let offsetSize = Int(b[trailer + 6])
        guard (1...8).contains(offsetSize), let count = number(trailer + 8, 8), let table = number(trailer + 24, 8),
              table >= 8, table <= trailer, count <= (trailer - table) / offsetSize else { return nil }
        var markers: [UInt8] = []
        markers.reserveCapacity(count)
        for i in 0..<count {
            guard let offset = number(table + i * offsetSize, offsetSize), offset >= 8, offset < trailer else { return nil }
            markers.append(b[offset])
        }
        return markers
    }

    /// A property-list value as stored and shown: a scalar as written (`YES`, `1`, `true`), a
    /// collection by its type and size (`array of 2 values`, `dictionary of 1 key`): Swift's
    /// own text of a collection is debug text (`[AnyHashable("a"): 1]`) whose order changes
    /// from one run to the next.
    static func text(_ value: Any, type: PlistType) -> String {
        switch type {
        case .array:
            let count = (value as? [Any])?.count ?? 0
            return "array of \(count) value\(count == 1 ? "" : "s")"
        case .dictionary:
            let count = (value as? [String: Any])?.count ?? 0
            return "dictionary of \(count) key\(count == 1 ? "" : "s")"
        default:
            return "\(value)"
        }
    }

    static func plistType(_ value: Any) -> PlistType {
        if type(of: value) == Bool.self { return .boolean }
        if value is String { return .string }
        if let n = value as? NSNumber {
            let t = String(cString: n.objCType)
            return t == "d" || t == "f" ? .real : .integer
        }
        if value is [Any] { return .array }
        if value is [String: Any] { return .dictionary }
        if value is Date { return .date }
        if value is Data { return .data }
        return .unknown
    }

    /// The SDK the app was built with; nil when the Info.plist does not say (a source
    /// Info.plist, not the one Xcode built).
    public var buildSDK: IOSVersion? { IOSVersion.sdk(platformVersion: platformVersion, sdkName: sdkName) }

    /// Whether the app declares the location background mode.
    public var hasLocationCapability: Bool { backgroundModes.contains("location") }

    package init(bundleId: String, usageKeys: [String], backgroundModes: [String]) {
        self.bundleId = bundleId
        self.usageKeys = usageKeys
        self.backgroundModes = backgroundModes
    }
}

/// Why a device-facts or Info.plist file could not be read.
public struct FactsError: Error, CustomStringConvertible, Sendable {
    public var reason: String
    public var advice: String
    public var description: String { "\(reason). \(advice)" }
}
