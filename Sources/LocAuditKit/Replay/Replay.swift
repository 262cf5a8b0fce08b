/// A session replayed: every event with the state it happened in.
public struct ReplayedSession: Sendable {
    public var session: Session
    public var steps: [ReplayStep]
    /// The app's Info.plist facts, nil when none was ingested.
    public var app: AppFacts?
    /// The state when the session started (after iOS dropped what it does not persist).
    public var initial: ReplayState
    /// The state after the last event.
    public var final: ReplayState

    public var version: IOSVersion? { session.osVersion }
    public var behaviour: IOSBehaviour? { version.map(IOSBehaviour.of) }
}

/// Replays the sessions of one app on one device in time order, carrying what iOS
/// persists from one session to the next and dropping the rest at each launch. The replay
/// starts from what was known before the first of them (a prune's checkpoint), else from nothing.
enum Replayer {
    static func replay(_ sessions: [Session], app: AppFacts?, from known: ReplayState = ReplayState()) -> [ReplayedSession] {
        var state = known
        var replayed: [ReplayedSession] = []
        for session in sessions {
            let behaviour = session.osVersion.map(IOSBehaviour.of)
            state.startSession(capability: app.map(\.hasLocationCapability), behaviour: behaviour)
            let initial = state
            var steps: [ReplayStep] = []
            steps.reserveCapacity(session.events.count)
            for event in session.events {
                steps.append(ReplayStep(event: event, state: state))
                state.apply(event)
            }
            replayed.append(ReplayedSession(session: session, steps: steps, app: app, initial: initial, final: state))
        }
        return replayed
    }
}

extension ReplayState {
    /// A new process: iOS keeps the status and prompt history, drops Allow Once and
    /// temporary full accuracy, and the manager's flags start at their defaults.
    mutating func startSession(capability: Bool?, behaviour: IOSBehaviour?) {
        allowOnceLapsed = false
        if grantIsAllowOnce {
            status = .notDetermined
            grantIsAllowOnce = false
            allowOnceLapsed = true
        }
        temporaryPreciseLapsed = temporaryFullAccuracy
        temporaryFullAccuracy = false
        temporaryPurposeKey = nil
        accuracy = permanentAccuracy
        appState = nil
        self.capability = capability
        // Before iOS 9 there is no flag and background delivery behaves as if it were YES.
        backgroundFlag = behaviour.map { !$0.backgroundNeedsFlag } ?? false
        indicatorFlag = false
        blueBarVisible = false
        paused = false
        services = LocationServices()
        terminated = false
        lastRequest = nil
        lastPromptKind = nil
        lastPromptEvent = nil
    }

    /// What one event changes.
    mutating func apply(_ e: AppEvent) {
        switch e.kind {
        case .authorization:
            // The app is told its status. When an Allow Once grant should have lapsed the
            // callback is evidence against iOS, not a new grant: the model's status stands.
            if allowOnceLapsed, e.status == .notDetermined { allowOnceLapsed = false }
            if temporaryPreciseLapsed, e.accuracy == .reduced { temporaryPreciseLapsed = false }
            if let status = e.status, !(allowOnceLapsed && status.isAuthorized) {
                if status != self.status { provisionalAlways = false; grantIsAllowOnce = false }
                self.status = status
            }
            if let accuracy = e.accuracy, !(temporaryPreciseLapsed && accuracy == .full) {
                self.accuracy = accuracy
                if !temporaryFullAccuracy { permanentAccuracy = accuracy }
            }
        case .statusChange:
            guard let status = e.status else { break }
            self.status = status
            provisionalAlways = status == .authorizedAlways && e.provisional == true
            grantIsAllowOnce = status == .authorizedWhenInUse && e.temporary == true
            if e.reason != nil { allowOnceLapsed = false }
        case .prompt:
            lastPromptKind = e.promptKind
            lastPromptEvent = e.id
            switch e.promptKind {
            case "WhenInUse": if firstRequest == nil { firstRequest = .whenInUse }
            case "Always":
                if settingsStatus == .authorizedWhenInUse { upgradePrompts += 1 } else if firstRequest == nil { firstRequest = .always }
            case "AlwaysUpgrade": upgradePrompts += 1
            default: break
            }
        case .promptResponse:
            if lastPromptKind == "Always", e.choice == "WhenInUse", firstRequest == .always, upgradePrompts == 0 {
                keptWhenInUseOnDirectAlways = true
            }
        case .accuracyChange:
            guard let accuracy = e.accuracy else { break }
            temporaryPreciseLapsed = false
            if accuracy == .full, e.temporary == true {
                temporaryFullAccuracy = true
                temporaryPurposeKey = e.purposeKey ?? temporaryPurposeKey
            } else {
                temporaryFullAccuracy = false
                permanentAccuracy = accuracy
            }
            self.accuracy = accuracy
        case .call:
            switch e.call {
            case "requestWhenInUseAuthorization": lastRequest = .whenInUse
            case "requestAlwaysAuthorization": lastRequest = .always
            case "requestTemporaryFullAccuracyAuthorizationWithPurposeKey:": temporaryPurposeKey = e.purposeKey
            default:
                if let service = e.service, let starts = e.startsService {
                    if starts { services.insert(service) } else { services.remove(service) }
                    if service == .standard, starts { paused = false }
                }
            }
        case .property:
            let on = e.value == 1
            switch e.property {
            case "allowsBackgroundLocationUpdates": backgroundFlag = on
            case "showsBackgroundLocationIndicator": indicatorFlag = on
            case "updatingLocation": if on { services.insert(.standard) } else { services.remove(.standard) }
            case "paused": paused = on
            default: break
            }
        case .appState:
            appState = e.appState
            if e.appState == .terminated { terminated = true; blueBarVisible = false }
        case .crash:
            terminated = true
            blueBarVisible = false
        case .blueBar:
            blueBarVisible = e.visible ?? blueBarVisible
        case .relaunch:
            if let service = e.service { services.insert(service) }
        case .location, .usageKeyMissing, .launch, .accessBegin, .accessEnd:
            break
        case .install, .uninstall:
            // Stored facts the replay does not use yet (an uninstall resets the app's state).
            break
        }
    }
}
