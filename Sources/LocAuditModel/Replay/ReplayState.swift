import Foundation

/// What iOS holds for one app on one device at one moment, as the replay rebuilds it.
///
/// Every fact is what a line said (observed), what the model implies (rules-model.md
/// "Evidence"), or unknown: nil, never a default. The first group persists across sessions
/// (iOS stores it, and the replay's knowledge of it is per app and device); the second lasts
/// one session and is reset at each launch. Codable as a whole: `prune` keeps it per app and
/// device (`ReplayCheckpoint`), so that the replay of later data starts from it. An optional
/// field defaults to nil: a checkpoint's missing key (JSON leaves nil out) then reads as nil.
public struct ReplayState: Sendable, Codable {
    // MARK: Persisted by iOS

    /// Effective authorization status; nil while unknown.
    public var status: AuthorizationStatus? {
        didSet { if status != nil { whenInUseOrLapsed = false } }
    }
    /// The status is iOS 13+ provisional Always (Settings still shows WhenInUse); nil when a
    /// callback said Always and no line said whether it is provisional.
    public var provisionalAlways: Bool?
    /// The WhenInUse grant is an Allow Once grant (lapses at relaunch); nil when a callback
    /// said WhenInUse and no prompt answer or status change said which grant it is.
    public var grantIsAllowOnce: Bool?
    /// Accuracy without any temporary grant; nil until a line says it.
    public var permanentAccuracy: AccuracyAuthorization?
    /// The app's first authorization request since it was last notDetermined, from its first prompt.
    public var firstRequest: AuthorizationRequest?
    /// The user kept WhenInUse on the first prompt of a direct `requestAlways`.
    public var keptWhenInUseOnDirectAlways = false
    /// Always prompts shown after WhenInUse (upgrade prompts) since the app was last notDetermined.
    public var upgradePrompts = 0
    /// The prompts since the app was last notDetermined are all in the log: the replay saw it
    /// notDetermined (a line, an install, an uninstall, a lapsed Allow Once) or its first prompt.
    /// Until then `firstRequest`, `upgradePrompts` and `keptWhenInUseOnDirectAlways` count only
    /// what the log shows.
    public var promptHistoryKnown = false
    /// Some line of the app on this device was replayed: an install after it is no first install.
    public var appSeen = false
    /// Which lines this device's logs carry at all (for every app): facts of a family the
    /// logs never carry are unknown, not absent.
    public var deviceLogs = DeviceLogs()

    // MARK: One session

    /// Effective accuracy (with a temporary grant, full).
    public var accuracy: AccuracyAuthorization?
    /// A temporary full-accuracy grant is active, for this purpose key.
    public var temporaryFullAccuracy = false
    public var temporaryPurposeKey: String?
    /// The session started after an Allow Once grant that iOS should have dropped, and no
    /// new grant has been seen since; nil when it is unknown whether one lapsed (the status
    /// before the session, or whether its WhenInUse was Allow Once, is unknown).
    public var allowOnceLapsed: Bool?
    /// The status is unknown but one of two: the session started after a WhenInUse grant
    /// that is Allow Once (notDetermined now) or permanent (WhenInUse still).
    public var whenInUseOrLapsed = false
    /// The session started after a temporary full-accuracy grant that iOS should have
    /// dropped, and no new accuracy has been seen since.
    public var temporaryPreciseLapsed = false
    /// RunningBoard's state, or the launch's (a background relaunch starts in the background);
    /// nil until a line says it.
    public var appState: AppState?
    /// The app has the `location` background mode; nil without its Info.plist.
    public var capability: Bool?
    /// `allowsBackgroundLocationUpdates`; nil while unknown (see `startSession`).
    public var backgroundFlag: Bool?
    /// `showsBackgroundLocationIndicator`; nil while unknown.
    public var indicatorFlag: Bool?
    /// The blue bar is shown; nil while unknown (always on a device whose logs carry no indicator lines).
    public var blueBarVisible: Bool?
    /// Updates paused automatically and not resumed; nil while unknown.
    public var paused: Bool?
    public var services = LocationServices()
    /// `services` holds every service running: the session's launch (none) or a start line
    /// of standard updates was seen. Without it a service may run from before the log.
    public var servicesKnown = false
    /// The process has terminated (or crashed).
    public var terminated = false
    /// The latest authorization request of this session.
    public var lastRequest: AuthorizationRequest?
    /// The latest prompt of this session and its kind (`WhenInUse`, `Always`, `AlwaysUpgrade`, ...).
    public var lastPromptKind: PromptKind?
    public var lastPromptEvent: Int64?
    /// Where that prompt stands in the app's prompt history (classified before it applied).
    public var lastPromptPlace: PromptClass?

    public init() {}

    /// The status iOS shows in Settings: provisional Always is WhenInUse there; nil while
    /// unknown (an Always not known to be permanent or provisional).
    public var settingsStatus: AuthorizationStatus? {
        guard status == .authorizedAlways else { return status }
        return provisionalAlways.map { $0 ? .authorizedWhenInUse : .authorizedAlways }
    }
    /// Whether the status satisfies `test`; nil when that is unknown (the status is unknown,
    /// or one of two that `test` tells apart).
    public func status(is test: (AuthorizationStatus) -> Bool) -> Bool? {
        if let status { return test(status) }
        guard whenInUseOrLapsed else { return nil }
        let (kept, lapsed) = (test(.authorizedWhenInUse), test(.notDetermined))
        return kept == lapsed ? kept : nil
    }
    /// Whether the app is in the background (and alive); nil while its state is unknown.
    public var inBackground: Bool? { terminated ? false : appState.map(\.isBackground) }
}

/// The line families a device's logs carry: which facts its logs can show at all.
public struct DeviceLogs: Sendable, Codable, Equatable {
    /// Background location indicator lines (the blue bar).
    public var indicator = false
    /// locationd's authorization lines: prompts, answers, status and accuracy changes.
    public var authorization = false

    public init(indicator: Bool = false, authorization: Bool = false) {
        self.indicator = indicator
        self.authorization = authorization
    }

    /// The event kinds of the authorization family.
    package static let authorizationKinds: Set<EventKind> = [.prompt, .promptResponse, .statusChange, .accuracyChange]
}

/// How a prompt stands in the app's prompt history.
public enum PromptClass: Sendable, Equatable, Codable {
    /// The first prompt since the app was notDetermined (only then does iOS show one).
    case first(AuthorizationRequest)
    /// An Always prompt after WhenInUse (or provisional Always).
    case upgrade
    /// An Always prompt whose place is unknown: the status before it is unknown.
    case unknown
    /// Not an authorization prompt (temporary full accuracy).
    case other
}

/// One event of a replayed session with the state it happened in (before it applied).
/// A class: rules pass steps around by the million, and a reference is cheap to copy.
public final class ReplayStep: Sendable {
    public let event: AppEvent
    public let state: ReplayState

    init(event: AppEvent, state: ReplayState) {
        self.event = event
        self.state = state
    }
}
