/// What iOS holds for one app on one device at one moment, as the replay rebuilds it.
///
/// The first group persists across sessions (iOS stores it); the second lasts one
/// session and is reset at each launch. Codable as a whole: `prune` keeps it per app and
/// device (`ReplayCheckpoint`), so that the replay of later data starts from it.
public struct ReplayState: Sendable, Codable {
    // MARK: Persisted by iOS

    /// Effective authorization status; nil until a line says it.
    public var status: AuthorizationStatus?
    /// The status is iOS 13+ provisional Always (Settings still shows WhenInUse).
    public var provisionalAlways = false
    /// The WhenInUse grant is an Allow Once grant (lapses at relaunch).
    public var grantIsAllowOnce = false
    /// Accuracy without any temporary grant; nil until a line says it.
    public var permanentAccuracy: AccuracyAuthorization?
    /// The app's first authorization request ever seen, from the first prompt.
    public var firstRequest: AuthorizationRequest?
    /// The user kept WhenInUse on the first prompt of a direct `requestAlways`.
    public var keptWhenInUseOnDirectAlways = false
    /// Always prompts shown after WhenInUse (upgrade prompts), over all sessions.
    public var upgradePrompts = 0

    // MARK: One session

    /// Effective accuracy (with a temporary grant, full).
    public var accuracy: AccuracyAuthorization?
    /// A temporary full-accuracy grant is active, for this purpose key.
    public var temporaryFullAccuracy = false
    public var temporaryPurposeKey: String?
    /// The session started after an Allow Once grant that iOS should have dropped, and no
    /// new grant has been seen since.
    public var allowOnceLapsed = false
    /// The session started after a temporary full-accuracy grant that iOS should have
    /// dropped, and no new accuracy has been seen since.
    public var temporaryPreciseLapsed = false
    public var appState: AppState?
    /// The app has the `location` background mode; nil without its Info.plist.
    public var capability: Bool?
    /// `allowsBackgroundLocationUpdates`.
    public var backgroundFlag = false
    /// `showsBackgroundLocationIndicator`.
    public var indicatorFlag = false
    public var blueBarVisible = false
    /// Updates paused automatically and not resumed.
    public var paused = false
    public var services = LocationServices()
    /// The process has terminated (or crashed).
    public var terminated = false
    /// The latest authorization request of this session.
    public var lastRequest: AuthorizationRequest?
    /// The latest prompt of this session and its kind (`WhenInUse`, `Always`, `AlwaysUpgrade`, ...).
    public var lastPromptKind: String?
    public var lastPromptEvent: Int64?

    /// The status iOS shows in Settings: provisional Always is WhenInUse there.
    public var settingsStatus: AuthorizationStatus? {
        provisionalAlways && status == .authorizedAlways ? .authorizedWhenInUse : status
    }
    /// Whether the app is in the background (and alive).
    public var inBackground: Bool { !terminated && (appState?.isBackground ?? false) }
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
