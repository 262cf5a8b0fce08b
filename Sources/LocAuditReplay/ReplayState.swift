import Foundation
import LocAuditModel

/// What iOS holds for one app on one device at one moment, as the replay rebuilds it.
///
/// Every fact is what a line said (observed), what the model implies (rules-model.md
/// "Evidence"), or unknown, never a default: the facts rules read are `Known` values, which
/// carry the line that said them or the rule of the model that implies them. The first group
/// persists across sessions (iOS stores it, and the replay's knowledge of it is per app and
/// device); the second lasts one session and is reset at each launch. Codable as a whole:
/// `prune` keeps it per app and device (`ReplayCheckpoint`), so that the replay of later data
/// starts from it. A field missing from a checkpoint reads as its initial value (unknown, nil).
public struct ReplayState: Sendable, Codable {
    // MARK: Persisted by iOS

    /// Effective authorization status.
    public var status = Known<AuthorizationStatus>.unknown {
        didSet { if status.value != nil { whenInUseOrLapsed = false } }
    }
    /// The status is iOS 13+ provisional Always (Settings still shows WhenInUse); unknown when
    /// a callback said Always and no line said whether it is provisional.
    public var provisionalAlways = Known<Bool>.unknown
    /// The WhenInUse grant is temporary (Allow Once, a location button: lapses when the app
    /// stops being in use); unknown when a callback said WhenInUse and no prompt answer or
    /// status change said which grant it is.
    public var grantIsAllowOnce = Known<Bool>.unknown
    /// Accuracy without any temporary grant.
    public var permanentAccuracy = Known<AccuracyAuthorization>.unknown
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
    /// A temporary grant lapsed since the last upgrade prompt: a service session may ask
    /// again for what it declares (v2), and that prompt is owed.
    public var lapsedSinceUpgradePrompt = false
    /// Which lines this device's logs carry at all (for every app): facts of a family the
    /// logs never carry are unknown, not absent.
    public var deviceLogs = DeviceLogs()

    // MARK: One session

    /// Effective accuracy (with a temporary grant, full).
    public var accuracy = Known<AccuracyAuthorization>.unknown
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
    /// RunningBoard's state, or the launch's (a background relaunch starts in the background).
    public var appState = Known<AppState>.unknown
    /// The app has the `location` background mode (implied by its Info.plist); unknown without one.
    public var capability = Known<Bool>.unknown
    /// `allowsBackgroundLocationUpdates` (see `startSession` for what the model implies).
    public var backgroundFlag = Known<Bool>.unknown
    /// `showsBackgroundLocationIndicator`.
    public var indicatorFlag = Known<Bool>.unknown
    /// The blue bar is shown (always unknown on a device whose logs carry no indicator lines).
    public var blueBarVisible = Known<Bool>.unknown
    /// Updates paused automatically and not resumed.
    public var paused = Known<Bool>.unknown
    /// The status-bar location arrow as locationd last named it for the app in this session
    /// (`ReceivingLocationInformation`, `Off`, …): shown on the timeline, read by no rule.
    public var locationArrow = Known<String>.unknown
    public var services = LocationServices()
    /// `services` holds every service running: the session's launch (none) or a start line
    /// of standard updates was seen. Without it a service may run from before the log.
    public var servicesKnown = false
    /// The process has terminated (or crashed).
    public var terminated = false

    // MARK: In use (rules-model.md "In use", v2)

    /// How long an app that left the foreground stays in use (`--background-grace`), µs.
    public var graceUS: Int64 = 10_000_000
    /// When the app last left the foreground in this session; nil while it is in the
    /// foreground, or when that is unknown (it was first seen in the background mid-log).
    public var backgroundSinceUS: Int64?
    /// The app started in the background (a background launch, a relaunch): never in use
    /// by the grace in this session until it comes to the foreground.
    public var startedInBackground = false
    /// Standard updates run that keep the app in use: started (or running) while it was in
    /// use, with the capability and the background flag (iOS 9+; the capability on iOS 8).
    /// false when none run or those running do not; nil while unknown.
    public var updatesKeepInUse: Bool? = false
    /// Background activity sessions held (iOS 17+) created while the app was in use with the
    /// capability; those created while that was unknown; and whether a session may be held
    /// from before the log (no launch line, or no line of the app's own).
    public var activitySessions = 0
    public var activitySessionsUnknown = 0
    public var activitySessionsFromBefore = false
    /// Background activity sessions held of any kind (also those that keep nothing).
    public var activitySessionsHeld = 0
    /// The status before a location-button grant, to which it lapses (an Allow Once grant
    /// lapses to notDetermined).
    public var temporaryGrantFrom: AuthorizationStatus?
    /// The status before the location-button grant was unknown.
    public var temporaryGrantFromUnknown = false
    /// When a temporary grant lapsed in this process (the app stopped being in use); nil when
    /// none did, or it lapsed at relaunch.
    public var temporaryLapseUS: Int64?
    /// The line that granted the temporary When In Use grant that lapsed last (an Allow Once
    /// answer, a location-button tap), often in an earlier session: a finding that the grant
    /// persisted cites it. Nil when unknown or when no grant lapsed.
    public var lapsedGrantEvent: Int64?
    /// The authorization a service session held (iOS 18+) declares.
    public var serviceSession: AuthorizationRequest?
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
        guard status.value == .authorizedAlways else { return status.value }
        return provisionalAlways.value.map { $0 ? .authorizedWhenInUse : .authorizedAlways }
    }
    /// Whether the status satisfies `test`; nil when that is unknown (the status is unknown,
    /// or one of two that `test` tells apart).
    public func status(is test: (AuthorizationStatus) -> Bool) -> Bool? {
        if let status = status.value { return test(status) }
        guard whenInUseOrLapsed else { return nil }
        let (kept, lapsed) = (test(.authorizedWhenInUse), test(.notDetermined))
        return kept == lapsed ? kept : nil
    }
    /// Whether the app is in the background (and alive); nil while its state is unknown.
    public var inBackground: Bool? { terminated ? false : appState.value.map(\.isBackground) }

    /// A background activity session keeps the app in use; nil while unknown.
    public var sessionKeepsInUse: Bool? {
        if activitySessions > 0 { return true }
        return activitySessionsUnknown > 0 || activitySessionsFromBefore ? nil : false
    }

    /// Something keeps the app in use in the background: updates started in use, or a
    /// background activity session; nil while unknown.
    public var keptInUse: Bool? {
        let (a, b) = (updatesKeepInUse, sessionKeepsInUse)
        if a == true || b == true { return true }
        return a == false && b == false ? false : nil
    }

    /// What keeps the app in use in the background, in the user's terms.
    package var keptBy: String {
        if sessionKeepsInUse == true { return "a background activity session" }
        return "updates started in use with allowsBackgroundLocationUpdates \"YES\""
    }

    /// Whether the app is in use at `timeUS` (rules-model.md "In use"): in the foreground,
    /// less than the grace after it left it, or kept in use in the background; nil while unknown.
    public func inUse(at timeUS: Int64) -> Bool? { inUse(at: timeUS, kept: keptInUse) }

    /// In use without counting running updates (whether updates keep the app in use is decided from this).
    func inUseBesidesUpdates(at timeUS: Int64) -> Bool? { inUse(at: timeUS, kept: sessionKeepsInUse) }

    private func inUse(at timeUS: Int64, kept: Bool?) -> Bool? {
        if terminated { return false }
        switch appState.value {
        case .foregroundRunning?: return true
        case .terminated?: return false
        case nil: return kept == true ? true : nil
        case .backgroundRunning?, .backgroundTaskSuspended?:
            if kept == true { return true }
            let inGrace: Bool? = startedInBackground ? false
                : backgroundSinceUS.map { timeUS >= $0 && timeUS.subtractingReportingOverflow($0).partialValue < graceUS }
            if inGrace == true { return true }
            return inGrace == false && kept == false ? false : nil
        }
    }

    /// The app holds a temporary When In Use grant (Allow Once, a location button); nil while unknown.
    public var holdsTemporaryWhenInUse: Bool? {
        switch status.value {
        case .authorizedWhenInUse?: return grantIsAllowOnce.value
        case nil: return nil
        default: return false
        }
    }
}

/// The evidence families a device's logs carry (rules-model.md "Evidence families", v2):
/// whether its logs can show a fact at all is decided family by family, never for several
/// at once: one real prompt line says nothing of status or accuracy changes.
public struct DeviceLogs: Sendable, Codable, Equatable {
    /// Background location indicator lines (the blue bar).
    public var indicator = false
    /// locationd's authorization prompts.
    public var prompts = false
    /// The user's answers to them.
    public var answers = false
    /// locationd's status changes (also a location-button grant, a temporary grant's lapse).
    public var statusChanges = false
    /// locationd's accuracy changes.
    public var accuracyChanges = false
    /// locationd's relaunches of an app for a location event.
    public var relaunches = false

    public init(indicator: Bool = false, prompts: Bool = false, answers: Bool = false, statusChanges: Bool = false,
                accuracyChanges: Bool = false, relaunches: Bool = false) {
        (self.indicator, self.prompts, self.answers) = (indicator, prompts, answers)
        (self.statusChanges, self.accuracyChanges, self.relaunches) = (statusChanges, accuracyChanges, relaunches)
    }

    /// A checkpoint written before version 2 holds `indicator` and one `authorization` flag
    /// for four families: which of them it saw is unknown, so it counts for none.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func flag(_ key: CodingKeys) throws -> Bool { try c.decodeIfPresent(Bool.self, forKey: key) ?? false }
        self.init(indicator: try flag(.indicator), prompts: try flag(.prompts), answers: try flag(.answers),
                  statusChanges: try flag(.statusChanges), accuracyChanges: try flag(.accuracyChanges), relaunches: try flag(.relaunches))
    }

    /// The family an event of `kind` belongs to, as a key path; nil for kinds no family tracks.
    package static func family(of kind: EventKind) -> WritableKeyPath<DeviceLogs, Bool>? {
        switch kind {
        case .blueBar: return \.indicator
        case .prompt: return \.prompts
        case .promptResponse: return \.answers
        case .statusChange: return \.statusChanges
        case .accuracyChange: return \.accuracyChanges
        case .relaunch: return \.relaunches
        default: return nil
        }
    }

    /// The event kinds of the tracked families.
    package static let kinds: [EventKind] = [.blueBar, .prompt, .promptResponse, .statusChange, .accuracyChange, .relaunch]

    /// Both sets of families together.
    package func union(_ other: DeviceLogs) -> DeviceLogs {
        DeviceLogs(indicator: indicator || other.indicator, prompts: prompts || other.prompts, answers: answers || other.answers,
                   statusChanges: statusChanges || other.statusChanges, accuracyChanges: accuracyChanges || other.accuracyChanges,
                   relaunches: relaunches || other.relaunches)
    }
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
/// A value of two references (the event and the held state, both shared): one allocation
/// less per event than a class of its own (2.5% fewer instructions in an audit, 4% less peak
/// memory: docs/performance.md, "Audit in bulk").
public struct ReplayStep: Sendable {
    public let event: AppEvent
    @usableFromInline let held: HeldState
    /// Inlinable: the rules read it at every step, and a call across the module for each read
    /// cost the audit about a tenth more CPU (docs/performance.md, "Rules model v2").
    @inlinable public var state: ReplayState { _read { yield held.state } }

    init(event: AppEvent, state: HeldState) {
        self.event = event
        self.held = state
    }
}

/// A state as steps hold it: one copy for a run of steps that changed nothing (most lines,
/// deliveries among them, change no fact), so that a session's steps cost a reference each,
/// not a whole state each.
@usableFromInline final class HeldState: Sendable {
    @usableFromInline let state: ReplayState
    init(_ state: ReplayState) { self.state = state }

    /// This held state when `state` is bit for bit the same (so the same values: the same
    /// numbers, the same string storage), else a new one. Bits that differ but mean the same
    /// (padding, another copy of a string) only cost a new copy.
    func same(as state: ReplayState) -> HeldState {
        let equal = withUnsafeBytes(of: self.state) { held in
            withUnsafeBytes(of: state) { now in memcmp(held.baseAddress!, now.baseAddress!, held.count) == 0 }
        }
        return equal ? self : HeldState(state)
    }
}
