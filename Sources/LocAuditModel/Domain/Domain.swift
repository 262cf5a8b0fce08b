/// `CLAuthorizationStatus`, as the `events.status` column spells it.
public enum AuthorizationStatus: String, Codable, Sendable, CaseIterable {
    /// The user has not been asked yet (or an Allow Once grant has lapsed).
    case notDetermined
    /// Parental controls or a profile forbid location.
    case restricted
    /// The user said no.
    case denied
    /// Location at any time (before iOS 8 the only grant, "authorized").
    case authorizedAlways
    /// Location while the app is in use (iOS 8+).
    case authorizedWhenInUse

    /// Whether the app may receive locations at all.
    public var isAuthorized: Bool { self == .authorizedAlways || self == .authorizedWhenInUse }
}

/// `CLAccuracyAuthorization` (iOS 14+).
public enum AccuracyAuthorization: String, Codable, Sendable {
    /// Precise locations.
    case full
    /// Approximate locations only.
    case reduced
}

/// The app's run state, as RunningBoard reports it to locationd.
public enum AppState: String, Codable, Sendable {
    /// On screen.
    case foregroundRunning
    /// Running in the background.
    case backgroundRunning
    /// Suspended in the background.
    case backgroundTaskSuspended
    /// The process is gone.
    case terminated

    /// Whether a delivery in this state is a background delivery.
    public var isBackground: Bool { self == .backgroundRunning || self == .backgroundTaskSuspended }
}

/// A CoreLocation service.
public enum LocationService: String, Codable, Sendable, CaseIterable {
    /// Standard location updates (`startUpdatingLocation`).
    case standard
    /// Significant-change location service.
    case significantChange
    /// Visits service.
    case visits
    /// Region monitoring.
    case region
    /// iBeacon ranging.
    case beacon
    /// Heading updates.
    case heading
    /// `CLMonitor` conditions (iOS 17+): a relaunching service, as region monitoring is.
    case monitor

    /// Whether iOS relaunches a suspended or terminated app for this service (Apple,
    /// "Handling location updates in the background": significant-change, visits, regions;
    /// `CLMonitor` from iOS 17, rules-model.md v2).
    public var relaunchesApp: Bool { self == .significantChange || self == .visits || self == .region || self == .monitor }
}

/// Services running, as bits: the replay copies its state at every event.
public struct LocationServices: Sendable, Equatable, Codable {
    private var bits: UInt8 = 0
    public init() {}
    private static func bit(_ s: LocationService) -> UInt8 { 1 << UInt8(LocationService.allCases.firstIndex(of: s)!) }
    public func contains(_ s: LocationService) -> Bool { bits & Self.bit(s) != 0 }
    public mutating func insert(_ s: LocationService) { bits |= Self.bit(s) }
    public mutating func remove(_ s: LocationService) { bits &= ~Self.bit(s) }
    /// The first running service (in `LocationService.allCases` order) that satisfies `predicate`.
    public func first(where predicate: (LocationService) -> Bool) -> LocationService? {
        LocationService.allCases.first { contains($0) && predicate($0) }
    }
}

/// Which authorization an app asks for.
public enum AuthorizationRequest: String, Codable, Sendable {
    /// `requestWhenInUseAuthorization`.
    case whenInUse
    /// `requestAlwaysAuthorization`.
    case always
}

/// The kind of an authorization prompt, as `events.prompt_kind` spells it. An open set:
/// locationd's request types whose name no log shows are kept as written (a number), and a
/// user catalog may set any kind; such a kind is a value like the named ones, never an error.
public struct PromptKind: RawRepresentable, Hashable, Codable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// A first prompt for WhenInUse.
    public static let whenInUse = PromptKind(rawValue: "WhenInUse")
    /// A prompt for Always.
    public static let always = PromptKind(rawValue: "Always")
    /// A prompt upgrading WhenInUse to Always.
    public static let alwaysUpgrade = PromptKind(rawValue: "AlwaysUpgrade")
    /// A prompt for temporary full accuracy (iOS 14+).
    public static let temporaryFullAccuracy = PromptKind(rawValue: "TemporaryFullAccuracy")
    /// locationd's request type 5 (`AuthorizationRequestTypeLegacyAlways`).
    public static let legacyAlways = PromptKind(rawValue: "LegacyAlways")
    /// The system's periodic reminder to an app that holds Always and uses location in the
    /// background (v2): not an app's prompt, never a repeated one.
    public static let alwaysReminder = PromptKind(rawValue: "AlwaysReminder")
    /// The kinds docs/schema.md names.
    public static let named: [PromptKind] = [.whenInUse, .always, .alwaysUpgrade, .temporaryFullAccuracy, .legacyAlways, .alwaysReminder]
}

/// The user's answer to a prompt, as `events.choice` spells it; also the options a prompt
/// offers (`events.prompt_options`, comma-separated).
public enum PromptChoice: String, Codable, Sendable, CaseIterable {
    /// Allow Once: a temporary WhenInUse grant (iOS 13+).
    case allowOnce = "AllowOnce"
    /// While Using: WhenInUse (on an Always prompt on iOS 13+, provisional Always).
    case whenInUse = "WhenInUse"
    /// Always.
    case always = "Always"
    /// Keep Only While Using, on an upgrade prompt.
    case keepWhenInUse = "KeepWhenInUse"
    /// Keep Always, on the system's Always reminder (v2).
    case keepAlways = "KeepAlways"
    /// Allow, on a temporary full-accuracy prompt.
    case allow = "Allow"
    /// Don't Allow.
    case deny = "Deny"

    /// The options of a prompt's `prompt_options` (`AllowOnce,WhenInUse,Deny`); an option
    /// outside the vocabulary is left out.
    /// The options of `events.prompt_options` (comma-separated), in order, each once.
    public static func options(_ text: String?) -> [PromptChoice] {
        var options: [PromptChoice] = []
        for word in (text ?? "").split(separator: ",") {
            if let option = PromptChoice(rawValue: word.trimmingCharacters(in: .whitespaces)), !options.contains(option) {
                options.append(option)
            }
        }
        return options
    }
}

/// The CLLocationManager methods the replay and the rules read, as `events.call` spells
/// them (the `_cmd`). The app may log any method: `AppEvent.call` keeps it as written.
public enum ManagerCall: String, Sendable, CaseIterable {
    case requestWhenInUseAuthorization
    case requestAlwaysAuthorization
    case requestTemporaryFullAccuracy = "requestTemporaryFullAccuracyAuthorizationWithPurposeKey:"
    case requestLocation
    /// `CLLocationUpdate.liveUpdates` (iOS 17+): standard updates, started.
    case liveUpdates = "CLLocationUpdate.liveUpdates"
    /// The live updates stopped.
    case stopLiveUpdates = "CLLocationUpdate.stop"
    /// A `CLBackgroundActivitySession` created (iOS 17+).
    case backgroundActivitySession = "CLBackgroundActivitySession.backgroundActivitySession"
    /// A background activity session invalidated.
    case invalidateBackgroundActivitySession = "CLBackgroundActivitySession.invalidate"
    /// A `CLServiceSession` created (iOS 18+); `events.status` holds the authorization it
    /// declares, `events.purpose_key` its full-accuracy purpose key.
    case serviceSession = "CLServiceSession.sessionRequiringAuthorization:"
    /// A service session invalidated.
    case invalidateServiceSession = "CLServiceSession.invalidate"
    /// A `CLMonitor` condition added (iOS 17+): the monitor service, which relaunches apps.
    case addMonitorCondition = "CLMonitor.addConditionForMonitoring:identifier:"

    /// The first iOS version that has this API; nil for the CLLocationManager methods the
    /// other rows of the version table already cover.
    public var firstVersion: Int? {
        switch self {
        case .liveUpdates, .stopLiveUpdates, .backgroundActivitySession, .invalidateBackgroundActivitySession, .addMonitorCondition: return 17
        case .serviceSession, .invalidateServiceSession: return 18
        default: return nil
        }
    }

    /// The service this call starts (true) or stops (false), for the calls whose name does
    /// not say it with `start…`/`stop…`.
    public var startsService: (LocationService, Bool)? {
        switch self {
        case .liveUpdates: return (.standard, true)
        case .stopLiveUpdates: return (.standard, false)
        case .addMonitorCondition: return (.monitor, true)
        default: return nil
        }
    }

    /// The authorization request this call makes; nil for other calls.
    public var request: AuthorizationRequest? {
        switch self {
        case .requestWhenInUseAuthorization: return .whenInUse
        case .requestAlwaysAuthorization: return .always
        default: return nil
        }
    }

    /// The call that makes `request`.
    public init(_ request: AuthorizationRequest) {
        self = request == .always ? .requestAlwaysAuthorization : .requestWhenInUseAuthorization
    }
}

/// A location manager property a line sets, as `events.property` spells it.
public enum ManagerProperty: String, Codable, Sendable, CaseIterable {
    /// `allowsBackgroundLocationUpdates`.
    case allowsBackgroundLocationUpdates
    /// `showsBackgroundLocationIndicator`.
    case showsBackgroundLocationIndicator
    /// `pausesLocationUpdatesAutomatically`.
    case pausesLocationUpdatesAutomatically
    /// Standard location updates running (a `state transition` line).
    case updatingLocation
    /// Updates paused automatically (1) or resumed (0).
    case paused
    /// locationd's side: the app's client subscribed (1) or left (0) location updates (the
    /// built-in catalog's `system.location-subscription`), not the app's own line.
    case locationUpdates
}

/// Why locationd changed a status or an accuracy (`events.reason` of a `status-change` or
/// `accuracy-change`; the column holds other things for other kinds).
public enum ChangeReason: String, Codable, Sendable, CaseIterable {
    /// The user answered a prompt.
    case prompt = "Prompt"
    /// The user changed it in Settings.
    case settings = "Settings"
    /// A temporary grant expired.
    case expired = "Expired"
    /// A restriction (parental controls, a profile).
    case restricted = "Restricted"
    /// A tap on `CLLocationButton` (iOS 15+, v2): a temporary When In Use grant, like Allow Once.
    case locationButton = "LocationButton"
}

/// How SpringBoard launches an app (`events.intent`): on screen, or in the background.
public enum LaunchIntent: String, Codable, Sendable, CaseIterable {
    case foregroundInteractive = "foreground-interactive"
    case background
}

/// The iOS version of a device when a log was taken, compared in full (major.minor.patch:
/// 13.4 changed the upgrade prompt, v2), never by major alone.
public struct IOSVersion: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var major: Int
    public var minor: Int
    public var patch: Int
    public var text: String

    /// `17.5.1` -> 17.5.1, `26` -> 26.0.0; nil for an unknown or unreadable version (a
    /// component that is not a small number, more than three components).
    public init?(_ text: String?) {
        guard let text else { return nil }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var numbers: [Int] = []
        for part in parts {
            guard (1...4).contains(part.count), part.allSatisfy(\.isASCII), let n = Int(part), n >= 0 else { return nil }
            numbers.append(n)
        }
        while numbers.count < 3 { numbers.append(0) }
        (major, minor, patch) = (numbers[0], numbers[1], numbers[2])
        self.text = text
    }

    public init(major: Int, minor: Int = 0, patch: Int = 0) {
        (self.major, self.minor, self.patch) = (major, minor, patch)
        self.text = patch == 0 ? (minor == 0 ? String(major) : "\(major).\(minor)") : "\(major).\(minor).\(patch)"
    }

    public var description: String { text }
    public static func < (a: IOSVersion, b: IOSVersion) -> Bool { (a.major, a.minor, a.patch) < (b.major, b.minor, b.patch) }
    public static func == (a: IOSVersion, b: IOSVersion) -> Bool { (a.major, a.minor, a.patch) == (b.major, b.minor, b.patch) }
    public func hash(into hasher: inout Hasher) { hasher.combine(major); hasher.combine(minor); hasher.combine(patch) }

    /// The SDK version of a built Info.plist: `DTPlatformVersion` (`"10.3"`), else the
    /// version in `DTSDKName` (`"iphoneos10.3"`); nil when neither says one.
    public static func sdk(platformVersion: String?, sdkName: String?) -> IOSVersion? {
        if let v = IOSVersion(platformVersion) { return v }
        guard let name = sdkName?.lowercased(), name.hasPrefix("iphoneos") else { return nil }
        return IOSVersion(String(name.dropFirst("iphoneos".count)))
    }
}

/// Info.plist usage keys.
public enum UsageKey {
    public static let legacy = "NSLocationUsageDescription"
    public static let whenInUse = "NSLocationWhenInUseUsageDescription"
    public static let always = "NSLocationAlwaysUsageDescription"
    public static let alwaysAndWhenInUse = "NSLocationAlwaysAndWhenInUseUsageDescription"
    /// Every one, in the order an app's facts list those it has.
    public static let all = [legacy, whenInUse, always, alwaysAndWhenInUse]
}
