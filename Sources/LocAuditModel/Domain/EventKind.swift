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
    /// locationd's status-bar location arrow for a client changed (`#sbim client arrow state
    /// changed`, real; v2): stored and shown, read by no rule until a source says it is the
    /// background indicator. `reason` holds the new arrow state.
    case locationArrow = "location-arrow"
    /// CoreLocation warns that a call may block the main thread (real, iOS 16+; v2): a
    /// timeline line, read by no rule.
    case mainThreadWarning = "main-thread-warning"

    /// The kinds the app logs in its own process (the catalog's `app` scope). In a log
    /// without pids (a Console copy) such a line is keyed by its process name alone.
    public static let loggedByApp: Set<EventKind> = [.authorization, .location, .property, .call, .crash, .usageKeyMissing]
}
