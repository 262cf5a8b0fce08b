import LocAuditModel

/// A session replayed: every event with the state it happened in.
public struct ReplayedSession: Sendable {
    public var session: Session
    public var steps: [ReplayStep]
    /// The app's Info.plist in force when the session started (`AppVersions.inForce`), nil when none was ingested.
    public var plist: AppVersion?
    /// The state when the session started (after iOS dropped what it does not persist).
    @inlinable public var initial: ReplayState {
        get { ends.initial }
        set { ends = Ends(initial: newValue, final: ends.final) }
    }
    /// The state after the last event.
    @inlinable public var final: ReplayState {
        get { ends.final }
        set { ends = Ends(initial: ends.initial, final: newValue) }
    }
    /// The two states, in an object of their own: they are most of a session's bytes (about
    /// 0.5 KB each), and a session is copied whole where it is kept (what configuration rules
    /// read of every session of a run, the sessions a report draws): docs/performance.md,
    /// "Audit memory".
    @usableFromInline var ends: Ends
    /// The app's own CoreLocation lines are in the session: without them its callbacks,
    /// deliveries and flags cannot show, so rules that read them are not evaluable.
    public var hasAppLines: Bool

    /// The Info.plist's facts.
    public var app: AppFacts? { plist?.facts }
    public var version: IOSVersion? { session.osVersion }
    /// What the session's iOS promises an app built with its Info.plist's SDK; nil for an
    /// unknown version. Worked out once, by the replay: the rules read it at every step.
    public var behaviour: IOSBehaviour?

    init(session: Session, steps: [ReplayStep], plist: AppVersion?, initial: ReplayState, final: ReplayState, hasAppLines: Bool,
         behaviour: IOSBehaviour?) {
        self.init(session: session, steps: steps, plist: plist, ends: Ends(initial: initial, final: final), hasAppLines: hasAppLines,
                  behaviour: behaviour)
    }

    init(session: Session, steps: [ReplayStep], plist: AppVersion?, ends: Ends, hasAppLines: Bool, behaviour: IOSBehaviour?) {
        (self.session, self.steps, self.plist, self.ends) = (session, steps, plist, ends)
        (self.hasAppLines, self.behaviour) = (hasAppLines, behaviour)
    }

    /// A session's initial and final states.
    @usableFromInline final class Ends: Sendable {
        @usableFromInline let initial: ReplayState
        @usableFromInline let final: ReplayState
        @usableFromInline init(initial: ReplayState, final: ReplayState) {
            self.initial = initial
            self.final = final
        }
        /// Both empty: a session known without its states (a settled one, what configuration rules read).
        static let none = Ends(initial: ReplayState(), final: ReplayState())
    }
}

/// Replays the sessions of one app on one device in time order, carrying what iOS
/// persists from one session to the next and dropping the rest at each launch. The replay
/// starts from what was known before the first of them (a prune's checkpoint), else from
/// nothing; `deviceLogs` says which line families the device's logs carry at all.
///
/// One session at a time (`next`), so that a reader that is done with a session's steps
/// (the audit) need not hold every session's of an app at once.
package struct Replayer {
    /// The app's own CoreLocation lines: what the app logs of its location manager. A crash
    /// is the app's own line too, but says nothing of its location use (unless it is the
    /// background-flag crash, a configuration fact).
    static let appLocationKinds = EventKind.loggedByApp.subtracting([.crash])

    /// Whether a line is one of the app's own CoreLocation lines. locationd's "is
    /// (un)subscribing to notification kCLConnectionMessageLocation" lines are `property`
    /// events (`locationUpdates`) too, but the daemon's: they show nothing the app's own
    /// lines would (its callbacks, its flags, its deliveries).
    static func isAppsOwnLocationLine(_ e: AppEvent) -> Bool {
        appLocationKinds.contains(e.kind) && !(e.kind == .property && e.property == .locationUpdates)
    }

    /// What the sessions replayed so far left.
    private var state: ReplayState
    private let plists: AppVersions

    package init(plists: AppVersions, from known: ReplayState = ReplayState(), deviceLogs: DeviceLogs = DeviceLogs(),
                 graceUS: Int64 = 10_000_000) {
        state = known
        state.deviceLogs = state.deviceLogs.union(deviceLogs)
        state.graceUS = graceUS
        self.plists = plists
    }

    /// Replays the session after the ones replayed so far.
    package mutating func next(_ session: Session) -> ReplayedSession {
        let plist = plists.inForce(at: session.startUS)
        let behaviour = session.osVersion.map { IOSBehaviour.of($0, sdk: plist?.facts.buildSDK) }
        // Install and uninstall lines before the session's first line.
        for event in session.before { state.apply(event, behaviour) }
        let hasAppLines = session.events.contains(where: Replayer.isAppsOwnLocationLine)
        state.startSession(capability: plist.map(\.facts.hasLocationCapability), behaviour: behaviour,
                           launched: session.events.first?.isLaunch == true, appLines: hasAppLines)
        let initial = state
        var steps: [ReplayStep] = []
        steps.reserveCapacity(session.events.count)
        var held: HeldState?
        for event in session.events {
            // A temporary grant lapses the moment the app stops being in use (v2).
            state.lapseTemporaryGrants(at: event.timeUS, behaviour)
            let current = held?.same(as: state) ?? HeldState(state)
            held = current
            steps.append(ReplayStep(event: event, state: current))
            state.apply(event, behaviour)
            state.refreshUpdatesKeepInUse(at: event.timeUS, behaviour)
        }
        return ReplayedSession(session: session, steps: steps, plist: plist, initial: initial, final: state,
                               hasAppLines: hasAppLines, behaviour: behaviour)
    }
}

extension ReplayState {
    /// A new process: iOS keeps the status and prompt history, drops Allow Once and
    /// temporary full accuracy, and the manager's flags start at their defaults. What the
    /// replay knows of the new process: with its launch line in the log, that nothing runs,
    /// nothing is paused and no blue bar shows yet (on a device whose logs carry indicator
    /// lines); with the app's own CoreLocation lines in the session too, that its flags are
    /// at their documented defaults unless a line sets them. Without a launch line the
    /// process started before the log: all of that is unknown until a line says it.
    mutating func startSession(capability: Bool?, behaviour: IOSBehaviour?, launched: Bool, appLines: Bool) {
        allowOnceLapsed = false
        whenInUseOrLapsed = false
        if status.value == .authorizedWhenInUse {
            switch grantIsAllowOnce.value ?? (behaviour?.hasAllowOnce == false ? false : nil) {
            case true?:
                lapseTemporaryWhenInUse()
                allowOnceLapsed = true
            case false?:
                break
            case nil:
                // An Allow Once grant lapses, a permanent one stays: which one is unknown.
                status = .unknown
                whenInUseOrLapsed = true
                allowOnceLapsed = nil
            }
        } else if status.value == nil {
            allowOnceLapsed = nil
        }
        if temporaryFullAccuracy || grantIsAllowOnce.value == true { lapsedSinceUpgradePrompt = true }
        temporaryPreciseLapsed = temporaryFullAccuracy
        temporaryFullAccuracy = false
        temporaryPurposeKey = nil
        accuracy = permanentAccuracy
        appState = .unknown
        self.capability = Known(capability, .implied(.infoPlist))
        let defaults = launched && appLines
        // Before iOS 9 there is no flag and background delivery behaves as if it were YES.
        if let behaviour, !behaviour.backgroundNeedsFlag {
            backgroundFlag = Known(true, .implied(.iosVersion))
        } else {
            backgroundFlag = Known(defaults ? false : nil, .implied(.managerDefaults))
        }
        indicatorFlag = Known(defaults ? false : nil, .implied(.managerDefaults))
        blueBarVisible = Known(launched && deviceLogs.indicator ? false : nil, .implied(.launch))
        paused = Known(launched ? false : nil, .implied(.launch))
        locationArrow = .unknown
        services = LocationServices()
        servicesKnown = launched
        terminated = false
        backgroundSinceUS = nil
        startedInBackground = false
        updatesKeepInUse = launched ? false : nil
        activitySessions = 0
        activitySessionsUnknown = 0
        activitySessionsHeld = 0
        // A session from before the log would not show: known none only where the app's own
        // lines and its launch are in the log, or before iOS 17.
        activitySessionsFromBefore = behaviour?.hasBackgroundActivitySession != false && !defaults
        temporaryGrantFrom = nil
        temporaryLapseUS = nil
        serviceSession = nil
        lastRequest = nil
        lastPromptKind = nil
        lastPromptEvent = nil
        lastPromptPlace = nil
    }

    /// A temporary When In Use grant ends: an Allow Once grant back to notDetermined, a
    /// location-button grant back to the status before it (unknown when that was unknown).
    /// `basis`: locationd's lapse line, or (by default) the model's lapse.
    mutating func lapseTemporaryWhenInUse(_ basis: Basis = .implied(.lapse)) {
        lapsedGrantEvent = grantIsAllowOnce.event
        let (from, known) = (temporaryGrantFrom ?? .notDetermined, temporaryGrantFrom != nil || !temporaryGrantFromUnknown)
        if !known {
            status = .unknown
        } else if from == .notDetermined {
            becomeNotDetermined(basis)
        } else {
            status = Known(from, basis)
        }
        grantIsAllowOnce = Known(false, basis)
        provisionalAlways = Known(false, basis)
        temporaryGrantFrom = nil
        temporaryGrantFromUnknown = false
        lapsedSinceUpgradePrompt = true
    }

    /// The temporary grants end when the app stops being in use (rules-model.md "In use"):
    /// called before each event with its time. A WhenInUse not known to be temporary or
    /// permanent (iOS 13+) becomes one of the two: unknown.
    mutating func lapseTemporaryGrants(at timeUS: Int64, _ behaviour: IOSBehaviour?) {
        guard (status.value == .authorizedWhenInUse && grantIsAllowOnce.value != false) || temporaryFullAccuracy,
              inUse(at: timeUS) == false else { return }
        let expiry = backgroundSinceUS.map { $0.addingReportingOverflow(graceUS) }
        let since = expiry.flatMap { $0.overflow ? nil : $0.partialValue } ?? timeUS
        if status.value == .authorizedWhenInUse {
            switch grantIsAllowOnce.value ?? (behaviour?.hasAllowOnce == false ? false : nil) {
            case true?:
                lapseTemporaryWhenInUse()
                allowOnceLapsed = true
                temporaryLapseUS = since
            case nil:
                status = .unknown
                whenInUseOrLapsed = true
                allowOnceLapsed = nil
            case false?:
                break
            }
        }
        if temporaryFullAccuracy {
            temporaryFullAccuracy = false
            temporaryPurposeKey = nil
            temporaryPreciseLapsed = true
            accuracy = permanentAccuracy
            temporaryLapseUS = since
            lapsedSinceUpgradePrompt = true
        }
    }

    /// Whether running standard updates keep the app in use: decided while the app is in use
    /// (by the foreground, the grace or a session) from the capability and the background
    /// flag, kept while it is not, false once they stop (called after each event).
    mutating func refreshUpdatesKeepInUse(at timeUS: Int64, _ behaviour: IOSBehaviour?) {
        guard services.contains(.standard) else {
            if servicesKnown { updatesKeepInUse = false }
            return
        }
        switch inUseBesidesUpdates(at: timeUS) {
        case true?:
            let flag: Bool? = behaviour?.backgroundNeedsFlag == false ? true : backgroundFlag.value
            updatesKeepInUse = Self.and(capability.value, behaviour == nil && flag != true ? nil : flag)
        case nil:
            if updatesKeepInUse != true { updatesKeepInUse = nil }
        case false?:
            break
        }
    }

    /// Three-valued AND: false when either is, true when both are, else unknown.
    package static func and(_ a: Bool?, _ b: Bool?) -> Bool? {
        if a == false || b == false { return false }
        return a == true && b == true ? true : nil
    }

    /// The app is (again) notDetermined: iOS forgets its grants and prompt history, and the
    /// replay knows every prompt from here. `basis`: the line that says so, or what implies it.
    mutating func becomeNotDetermined(_ basis: Basis) {
        status = Known(.notDetermined, basis)
        provisionalAlways = Known(false, basis)
        grantIsAllowOnce = Known(false, basis)
        forgetPromptHistory()
    }

    mutating func forgetPromptHistory() {
        firstRequest = nil
        upgradePrompts = 0
        keptWhenInUseOnDirectAlways = false
        promptHistoryKnown = true
    }

    /// Where a prompt stands in the app's history, from the state before it: a WhenInUse
    /// prompt only shows to a notDetermined app; an Always prompt is an upgrade when the app
    /// holds WhenInUse in Settings or the prompt offers KeepWhenInUse, a first prompt when
    /// the app is notDetermined or the prompt offers Deny (an upgrade prompt never does).
    public func classify(prompt e: AppEvent) -> PromptClass {
        switch e.promptKind {
        case .whenInUse?: return .first(.whenInUse)
        case .alwaysUpgrade?: return .upgrade
        case .always?:
            let options = Set(e.promptOptions)
            if options.contains(.keepWhenInUse) { return .upgrade }
            switch settingsStatus {
            case .authorizedWhenInUse?: return .upgrade
            case .notDetermined?: return .first(.always)
            default: return options.contains(.deny) ? .first(.always) : .unknown
            }
        default: return .other
        }
    }

    /// What one event changes (`behaviour`: the session's iOS, nil when unknown).
    mutating func apply(_ e: AppEvent, _ behaviour: IOSBehaviour? = nil) {
        defer { appSeen = true }
        let seen = Basis.observed(e.id)
        // What a status learned without saying more leaves unknown: on iOS 13+ whether a
        // WhenInUse is Allow Once, whether an Always is provisional (before, none is).
        let allowOnceUnknown = Known<Bool>(behaviour?.hasAllowOnce == false ? false : nil, .implied(.iosVersion))
        let provisionalUnknown = Known<Bool>(behaviour?.hasProvisionalAlways == false ? false : nil, .implied(.iosVersion))
        switch e.kind {
        case .authorization:
            // The app is told its status. When an Allow Once grant should have lapsed the
            // callback is evidence against iOS, not a new grant: the model's status stands.
            if allowOnceLapsed != false, e.status == .notDetermined { allowOnceLapsed = false }
            if temporaryPreciseLapsed, e.accuracy == .reduced { temporaryPreciseLapsed = false }
            if let status = e.status, !(allowOnceLapsed == true && status.isAuthorized) {
                if status == .notDetermined {
                    if self.status.value != .notDetermined { becomeNotDetermined(seen) }
                } else if status != self.status.value {
                    self.status = Known(status, seen)
                    provisionalAlways = status == .authorizedAlways ? provisionalUnknown : Known(false, seen)
                    grantIsAllowOnce = status == .authorizedWhenInUse ? allowOnceUnknown : Known(false, seen)
                }
            }
            if let accuracy = e.accuracy, !(temporaryPreciseLapsed && accuracy == .full) {
                self.accuracy = Known(accuracy, seen)
                if !temporaryFullAccuracy { permanentAccuracy = Known(accuracy, seen) }
            }
        case .statusChange where e.changeReason == .expired && e.temporary == true && e.status == nil:
            // locationd's own word that a temporary grant lapsed (`#TemporaryAuth … losing WIU status`).
            if status.value == .authorizedWhenInUse, grantIsAllowOnce.value != false {
                lapseTemporaryWhenInUse(seen)
                allowOnceLapsed = true
                temporaryLapseUS = e.timeUS
            }
        case .statusChange where e.changeReason == .locationButton:
            // A location-button tap grants When In Use for as long as the app is in use.
            guard e.status?.isAuthorized == true else { break }
            if status.value != .authorizedWhenInUse || grantIsAllowOnce.value == true {
                temporaryGrantFrom = status.value?.isAuthorized == true ? nil : status.value
                temporaryGrantFromUnknown = status.value == nil
            }
            status = Known(.authorizedWhenInUse, seen)
            grantIsAllowOnce = Known(true, seen)
            provisionalAlways = Known(false, seen)
            allowOnceLapsed = false
        case .statusChange:
            guard let status = e.status else { break }
            if status == .notDetermined {
                becomeNotDetermined(seen)
            } else {
                self.status = Known(status, seen)
                provisionalAlways = status != .authorizedAlways ? Known(false, seen)
                    : provisionalUnknown.value == false ? provisionalUnknown : Known(e.provisional, seen)
                grantIsAllowOnce = status != .authorizedWhenInUse ? Known(false, seen)
                    : allowOnceUnknown.value == false ? allowOnceUnknown : Known(e.temporary, seen)
            }
            if e.reason != nil { allowOnceLapsed = false }
        case .prompt:
            let place = classify(prompt: e)
            switch place {
            case .first(let request):
                // Only a notDetermined app is shown a first prompt: its history starts here.
                forgetPromptHistory()
                firstRequest = request
            case .upgrade:
                // A service session that declares Always may ask again after a temporary grant
                // lapsed; a prompt during Allow Once is not the app's upgrade (it is ignored).
                if !(serviceSession == .always && lapsedSinceUpgradePrompt), holdsTemporaryWhenInUse != true { upgradePrompts += 1 }
                lapsedSinceUpgradePrompt = false
            case .unknown: promptHistoryKnown = false
            case .other: break
            }
            lastPromptKind = e.promptKind
            lastPromptEvent = e.id
            lastPromptPlace = place
        case .promptResponse:
            if lastPromptKind == .always, e.choice == .whenInUse, firstRequest == .always, upgradePrompts == 0 {
                keptWhenInUseOnDirectAlways = true
            }
            answer(e.choice, behaviour, seen)
        case .accuracyChange:
            guard let accuracy = e.accuracy else { break }
            temporaryPreciseLapsed = false
            if accuracy == .full, e.temporary == true {
                temporaryFullAccuracy = true
                temporaryPurposeKey = e.purposeKey ?? temporaryPurposeKey
            } else {
                temporaryFullAccuracy = false
                permanentAccuracy = Known(accuracy, seen)
            }
            self.accuracy = Known(accuracy, seen)
        case .call:
            switch e.managerCall {
            case .requestWhenInUseAuthorization?: lastRequest = .whenInUse
            case .requestAlwaysAuthorization?: lastRequest = .always
            case .requestTemporaryFullAccuracy?: temporaryPurposeKey = e.purposeKey
            case .backgroundActivitySession?:
                activitySessionsHeld += 1
                switch Self.and(inUse(at: e.timeUS), capability.value) {
                case true?: activitySessions += 1
                case nil: activitySessionsUnknown += 1
                case false?: break
                }
            case .invalidateBackgroundActivitySession?:
                activitySessionsHeld = max(0, activitySessionsHeld - 1)
                if activitySessions > 0 { activitySessions -= 1 } else if activitySessionsUnknown > 0 { activitySessionsUnknown -= 1 }
            case .serviceSession?:
                switch e.status {
                case .authorizedAlways?: serviceSession = .always; lastRequest = .always
                case .authorizedWhenInUse?: serviceSession = .whenInUse; lastRequest = .whenInUse
                default: serviceSession = nil
                }
                if let key = e.purposeKey { temporaryPurposeKey = key }
            case .invalidateServiceSession?:
                serviceSession = nil
            case .requestLocation?, .liveUpdates?, .stopLiveUpdates?, .addMonitorCondition?, nil:
                if let service = e.callService, let starts = e.startsService {
                    if starts { services.insert(service) } else { services.remove(service) }
                    if service == .standard, starts { paused = Known(false, seen) }
                    if service == .standard, !starts { updatesKeepInUse = false }
                }
            }
        case .property:
            let on = e.value == 1
            switch e.property {
            case .allowsBackgroundLocationUpdates?: backgroundFlag = Known(on, seen)
            case .showsBackgroundLocationIndicator?: indicatorFlag = Known(on, seen)
            case .updatingLocation?:
                if on { services.insert(.standard) } else { services.remove(.standard); updatesKeepInUse = false }
            case .paused?: paused = Known(on, seen)
            default: break
            }
        case .appState:
            switch (appState.value, e.appState) {
            case (_, .foregroundRunning?):
                backgroundSinceUS = nil
                startedInBackground = false
            case (.foregroundRunning?, .backgroundRunning?), (.foregroundRunning?, .backgroundTaskSuspended?):
                backgroundSinceUS = e.timeUS
            default:
                break
            }
            appState = Known(e.appState, seen)
            if e.appState == .terminated { ended() }
        case .crash:
            ended()
        case .blueBar:
            if let visible = e.visible { blueBarVisible = Known(visible, seen) }
        case .launch:
            // A launch says how the process starts: on screen, or in the background.
            switch e.launchIntent {
            case .foregroundInteractive?: appState = Known(.foregroundRunning, seen)
            case .background?:
                appState = Known(.backgroundRunning, seen)
                startedInBackground = true
            case nil: break
            }
        case .relaunch:
            appState = Known(.backgroundRunning, seen)
            startedInBackground = true
            if let service = e.service { services.insert(service) }
        case .install:
            // A first install: the app starts notDetermined. A reinstall over it changes nothing.
            if !appSeen { becomeNotDetermined(.implied(.notDetermined)) }
        case .uninstall:
            // iOS forgets the app's authorization, accuracy and prompt history.
            becomeNotDetermined(.implied(.notDetermined))
            permanentAccuracy = .unknown
            accuracy = .unknown
            temporaryFullAccuracy = false
            temporaryPurposeKey = nil
            allowOnceLapsed = false
            temporaryPreciseLapsed = false
        case .locationArrow:
            if let arrow = e.reason { locationArrow = Known(arrow, seen) }
        case .location, .usageKeyMissing, .accessBegin, .accessEnd, .mainThreadWarning:
            break
        }
    }

    /// The process is gone: no bar shows for it, nothing runs.
    private mutating func ended() {
        terminated = true
        if deviceLogs.indicator { blueBarVisible = Known(false, .implied(.termination)) }
    }

    /// What a prompt answer grants: `AllowOnce` is an Allow Once grant (a temporary
    /// WhenInUse), `Always` a permanent Always, `Deny` denied, `KeepWhenInUse` a permanent
    /// WhenInUse, `WhenInUse` a permanent WhenInUse on a WhenInUse prompt (on an Always
    /// prompt iOS 13+ gives provisional Always: the status change says which).
    private mutating func answer(_ choice: PromptChoice?, _ behaviour: IOSBehaviour?, _ seen: Basis) {
        let granted: AuthorizationStatus
        switch choice {
        case .allowOnce?:
            granted = .authorizedWhenInUse
            temporaryGrantFrom = nil
            temporaryGrantFromUnknown = false
        case .always?, .keepAlways?: granted = .authorizedAlways
        case .deny?: granted = .denied
        case .keepWhenInUse?: granted = .authorizedWhenInUse
        case .whenInUse? where lastPromptKind == .whenInUse || lastPromptKind == .alwaysReminder || behaviour?.hasProvisionalAlways == false:
            granted = .authorizedWhenInUse
        default:
            return
        }
        status = Known(granted, seen)
        grantIsAllowOnce = Known(choice == .allowOnce, seen)
        provisionalAlways = Known(false, seen)
        allowOnceLapsed = false
    }
}

extension ReplayedSession {
    /// A session as configuration rules read it (`configurationView`), rebuilt from what an
    /// earlier audit kept of it: its first line and its configuration steps, with no state
    /// (configuration rules read none).
    package init(settled deviceId: String, bundleId: String, pid: Int64?, startUS: Int64, endUS: Int64, endReason: Session.EndReason,
                 osVersion: IOSVersion?, first: AppEvent?, steps events: [AppEvent], plist: AppVersion?, hasAppLines: Bool) {
        let none = HeldState.none
        let session = Session(row: deviceId, bundleId: bundleId, pid: pid, startUS: startUS, endUS: endUS, endReason: endReason,
                              launchIntent: nil, relaunchService: nil, osVersion: osVersion, events: first.map { [$0] } ?? [])
        self.init(session: session, steps: events.map { ReplayStep(event: $0, state: none) }, plist: plist,
                  ends: .none, hasAppLines: hasAppLines, behaviour: nil)
    }
}

extension ReplayedSession {
    /// The session with the steps `keep` keeps and no state: every step's is an empty one, and
    /// so are the initial and final states. For readers that read no state (configuration
    /// rules), so that what they keep of a session does not hold a copy of the state for each
    /// step that changed it (about 0.5 KB each), nor the session's two.
    package func stateless(keeping keep: (ReplayStep) -> Bool) -> ReplayedSession {
        var view = self
        view.steps = steps.compactMap { keep($0) ? ReplayStep(event: $0.event, state: .none) : nil }
        view.ends = .none
        return view
    }
}

extension HeldState {
    /// The state of steps whose readers read none (`ReplayedSession.stateless`, a settled session).
    static let none = HeldState(ReplayState())
}
