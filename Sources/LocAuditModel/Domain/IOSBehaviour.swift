/// What one iOS release promises about location: one row of rules-model.md's table.
///
/// `IOSBehaviour.table` is the only place that knows version numbers: a later iOS
/// release that changes a promise is a new entry there, nothing else.
public struct IOSBehaviour: Sendable {
    /// First version this row applies to (a row may start at a minor version: 13.4).
    public var from: IOSVersion

    /// `authorizedWhenInUse` exists (iOS 8+).
    public var hasWhenInUse = false
    /// Allow Once, a temporary WhenInUse grant for one session (iOS 13+).
    public var hasAllowOnce = false
    /// Full / reduced accuracy and temporary full accuracy by purpose key (iOS 14+).
    public var hasAccuracy = false
    /// A first `requestAlways` answered "While Using" gives provisional Always (iOS 13+).
    public var hasProvisionalAlways = false

    /// Background delivery needs the `location` background mode (iOS 8+).
    public var backgroundNeedsCapability = false
    /// Background delivery also needs `allowsBackgroundLocationUpdates` YES (iOS 9+);
    /// before that the flag behaves as always YES.
    public var backgroundNeedsFlag = false
    /// The background flag YES without the capability crashes the app (iOS 9+).
    public var flagWithoutCapabilityCrashes = false

    /// When the blue bar is due for a background delivery under WhenInUse.
    public var blueBarUnderWhenInUse = false
    /// When the blue bar is due for a background delivery under (permanent) Always.
    public var blueBarUnderAlways = BlueBarUnderAlways.never

    /// The usage keys a request needs (all of them), per request.
    public var requiredKeys: [AuthorizationRequest: [String]] = [:]
    /// `NSLocationAlwaysUsageDescription` alone no longer serves an Always request (iOS 11+).
    public var alwaysKeyDeprecated = false

    /// How many Always prompts an app is owed, and when.
    public var upgrade = UpgradePolicy.none
    /// `requestAlwaysAuthorization` after When In Use shows its upgrade prompt at once
    /// (13.4+); on 13.0-13.3 the system asked later (v2).
    public var upgradePromptAtOnce = false
    /// A tap on `CLLocationButton` grants When In Use temporarily (iOS 15+, v2).
    public var hasLocationButton = false
    /// `CLLocationUpdate`, `CLBackgroundActivitySession` and `CLMonitor` (iOS 17+, v2).
    public var hasBackgroundActivitySession = false
    /// `CLServiceSession` (iOS 18+, v2).
    public var hasServiceSession = false

    /// When the blue bar shows for a background Always delivery.
    public enum BlueBarUnderAlways: Sendable {
        /// Never (iOS 8-10).
        case never
        /// Only if `showsBackgroundLocationIndicator` is YES (iOS 11+).
        case ifIndicatorFlag
    }

    /// The system's promise about prompts for Always after the first answer.
    public enum UpgradePolicy: Sendable {
        /// No WhenInUse, so no upgrade (iOS <= 7).
        case none
        /// Once: the first `requestAlways` after WhenInUse (iOS 8-10, 001 §2).
        case onceAfterWhenInUse
        /// Once, and only if the first request was WhenInUse (iOS 11-12, 002 item 5).
        case onceIfFirstRequestWasWhenInUse
        /// At most one upgrade prompt, by `requestAlways` after WhenInUse or by the
        /// system after provisional Always (iOS 13+, 004).
        case atMostOneUpgradePrompt
    }

    /// The rows, oldest first; each starts from the previous one.
    public static let table: [IOSBehaviour] = {
        var rows: [IOSBehaviour] = []
        var row = IOSBehaviour(from: IOSVersion(major: 1))
        row.requiredKeys = [.always: []]
        rows.append(row)                                  // <= 7: Always only, no request methods

        row.from = IOSVersion(major: 8)
        row.hasWhenInUse = true
        row.backgroundNeedsCapability = true
        row.blueBarUnderWhenInUse = true
        row.requiredKeys = [.whenInUse: [UsageKey.whenInUse], .always: [UsageKey.always]]
        row.upgrade = .onceAfterWhenInUse
        rows.append(row)

        row.from = IOSVersion(major: 9)
        row.backgroundNeedsFlag = true
        row.flagWithoutCapabilityCrashes = true
        rows.append(row)

        row.from = IOSVersion(major: 11)
        row.blueBarUnderAlways = .ifIndicatorFlag
        row.requiredKeys[.always] = [UsageKey.alwaysAndWhenInUse, UsageKey.whenInUse]
        row.alwaysKeyDeprecated = true
        row.upgrade = .onceIfFirstRequestWasWhenInUse
        rows.append(row)

        row.from = IOSVersion(major: 13)
        row.hasAllowOnce = true
        row.hasProvisionalAlways = true
        row.upgrade = .atMostOneUpgradePrompt
        rows.append(row)

        row.from = IOSVersion(major: 13, minor: 4)
        row.upgradePromptAtOnce = true
        rows.append(row)

        row.from = IOSVersion(major: 14)
        row.hasAccuracy = true
        rows.append(row)

        row.from = IOSVersion(major: 15)
        row.hasLocationButton = true
        rows.append(row)

        row.from = IOSVersion(major: 17)
        row.hasBackgroundActivitySession = true
        rows.append(row)

        row.from = IOSVersion(major: 18)
        row.hasServiceSession = true
        rows.append(row)
        return rows
    }()

    /// The behaviour of an iOS version, compared in full.
    public static func of(_ version: IOSVersion) -> IOSBehaviour {
        table.last { $0.from <= version } ?? table[0]
    }

    /// The behaviour of an iOS version for an app built with `sdk` (nil: unknown): iOS keeps
    /// the old behaviour for an app built before a change (rules-model.md "Build SDK", v2):
    /// the Always key of iOS 8-10 still serves an app built with an SDK before 11, and the
    /// background flag behaves as YES for one built before 9.
    public static func of(_ version: IOSVersion, sdk: IOSVersion?) -> IOSBehaviour {
        var behaviour = of(version)
        guard let sdk, sdk < version else { return behaviour }
        let built = of(sdk)
        if !built.alwaysKeyDeprecated, behaviour.alwaysKeyDeprecated {
            behaviour.alwaysKeyDeprecated = false
            behaviour.requiredKeys[.always] = built.requiredKeys[.always]
        }
        if !built.backgroundNeedsFlag, behaviour.backgroundNeedsFlag {
            behaviour.backgroundNeedsFlag = false
        }
        return behaviour
    }

    /// The keys `request` needs that `present` lacks (empty: the request may prompt).
    public func missingKeys(for request: AuthorizationRequest, present: [String]) -> [String] {
        (requiredKeys[request] ?? []).filter { !present.contains($0) }
    }
}
