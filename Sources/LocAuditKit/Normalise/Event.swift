/// What a recognised log message says happened.
public enum EventKind: String, Codable, CaseIterable, Sendable {
    /// The app's delegate was told its authorization status (app process).
    case authorization
    /// A location was delivered to the app (app process).
    case location
    /// A location manager property changed (app process), including automatic pause/resume.
    case property
    /// The app called a CLLocationManager method (app process).
    case call
    /// The app crashed (app process).
    case crash
    /// The system refused a request for lack of a usage description (app process).
    case usageKeyMissing = "usage-key-missing"
    /// The app's run state changed (locationd / RunningBoard).
    case appState = "app-state"
    /// SpringBoard launched the app.
    case launch
    /// locationd launched the app for a location event.
    case relaunch
    /// The background location indicator (blue bar) was shown or hidden.
    case blueBar = "blue-bar"
    /// The system showed an authorization prompt.
    case prompt
    /// The user answered an authorization prompt.
    case promptResponse = "prompt-response"
    /// locationd changed the app's authorization status.
    case statusChange = "status-change"
    /// locationd changed the app's accuracy authorization.
    case accuracyChange = "accuracy-change"
    /// An App Privacy Report location access interval began.
    case accessBegin = "access-begin"
    /// An App Privacy Report location access interval ended.
    case accessEnd = "access-end"
    /// MobileInstallation installed the app (a first install, a placeholder, or a reinstall over itself).
    case install
    /// MobileInstallation uninstalled the app: iOS forgets its location authorization.
    case uninstall

    /// The kinds the app logs in its own process (the catalog's `app` scope). In a log
    /// without pids (a Console copy) such a line is keyed by its process name alone.
    public static let loggedByApp: Set<EventKind> = [.authorization, .location, .property, .call, .crash, .usageKeyMissing]
}

/// A typed column of the `events` table that a catalog pattern can fill.
public enum EventColumn: String, Codable, CaseIterable, Sendable {
    case bundleId = "bundle_id"
    case appPid = "app_pid"
    case status
    case accuracy
    case temporary
    case provisional
    case reason
    case appState = "app_state"
    case service
    case call
    case horizontalAccuracy = "horizontal_accuracy"
    case latitude
    case longitude
    case locationPrivate = "location_private"
    case property
    case value
    case promptKind = "prompt_kind"
    case promptOptions = "prompt_options"
    case choice
    case purposeKey = "purpose_key"
    case visible
    case intent
}

/// A typed value of one event column.
public enum ColumnValue: Equatable, Sendable, CustomStringConvertible {
    case text(String)
    case integer(Int64)
    case real(Double)

    public var description: String {
        switch self {
        case .text(let s): return s
        case .integer(let i): return String(i)
        case .real(let d): return d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d)
        }
    }
}

/// One recognised message, normalised: what goes into a row of `events`.
public struct Event: Sendable {
    public var kind: EventKind
    /// Catalog pattern that recognised it.
    public var pattern: String
    /// Whether the app logged it itself (its pid is the line's) or a daemon did.
    public var scope: PatternScope = .system
    /// The columns set, in the order they were set: an event has a handful, and a short
    /// array beats hashing on the ingest loop.
    public private(set) var columns: [(EventColumn, ColumnValue)] = []

    public init(kind: EventKind, pattern: String) {
        self.kind = kind
        self.pattern = pattern
    }

    public subscript(_ column: EventColumn) -> ColumnValue? {
        get { columns.first { $0.0 == column }?.1 }
        set {
            if let i = columns.firstIndex(where: { $0.0 == column }) {
                if let newValue { columns[i].1 = newValue } else { columns.remove(at: i) }
            } else if let newValue {
                columns.append((column, newValue))
            }
        }
    }
}
