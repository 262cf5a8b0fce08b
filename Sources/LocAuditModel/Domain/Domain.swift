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

    /// Whether iOS relaunches a suspended or terminated app for this service (004's table).
    public var relaunchesApp: Bool { self == .significantChange || self == .visits || self == .region }
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

/// The major iOS version of a device when a log was taken.
public struct IOSVersion: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var major: Int
    public var text: String

    /// `17.5.1` -> 17; nil for an unknown or unreadable version.
    public init?(_ text: String?) {
        guard let text, let major = Int(text.split(separator: ".").first ?? "") else { return nil }
        self.major = major
        self.text = text
    }

    public init(major: Int) {
        self.major = major
        self.text = String(major)
    }

    public var description: String { text }
    public static func < (a: IOSVersion, b: IOSVersion) -> Bool { a.major < b.major }
    public static func == (a: IOSVersion, b: IOSVersion) -> Bool { a.major == b.major }
    public func hash(into hasher: inout Hasher) { hasher.combine(major) }
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
