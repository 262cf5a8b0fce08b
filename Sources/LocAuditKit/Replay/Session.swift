extension AppEvent {
    /// RunningBoard says the process runs: after a termination, a reused pid is a new process.
    var isRunningState: Bool { kind == .appState && appState != .terminated && appState != nil }
}

/// One run of one app process on one device: from its launch (or first line) to its
/// termination, the next launch of the app, or the end of the log.
public struct Session: Sendable {
    public var deviceId: String
    public var bundleId: String
    /// The app process; nil when no line of the session names it.
    public var pid: Int64?
    public var startUS: Int64
    public var endUS: Int64
    public var endReason: EndReason
    /// SpringBoard's launch intent (`foreground-interactive`, `background`), nil without a launch line.
    public var launchIntent: String?
    /// The service locationd relaunched the app for, if it did.
    public var relaunchService: LocationService?
    /// Whether locationd logged a relaunch for a location event.
    public var relaunched = false
    /// iOS version of the device (from the logs' device facts); nil when unknown.
    public var osVersion: IOSVersion?
    /// The events, in time order; pid-less system lines between sessions stay with the previous one.
    public var events: [AppEvent]

    /// How a session ended.
    public enum EndReason: String, Sendable, Codable {
        /// A `Terminated` state line (or a crash).
        case terminated
        /// The app was launched again.
        case nextLaunch = "next-launch"
        /// The log ends first.
        case endOfLog = "end-of-log"
    }

    /// Whether every line is an App Privacy Report interval: no status, no deliveries.
    public var onlyPrivacyReport: Bool {
        events.allSatisfy { $0.kind == .accessBegin || $0.kind == .accessEnd }
    }
}

/// Cuts one app's events on one device into sessions.
///
/// A launch (SpringBoard's `Bootstrapping`, locationd's relaunch) opens a session unless
/// the open one has seen nothing but launch lines (the two lines of one background relaunch);
/// a pid the open session does not have opens one too (a log that starts mid-run). Lines
/// with a pid go to the session of that pid, also after its termination (deliveries to a
/// dead process); lines without one go to the open session, except a line the app logged
/// itself after a termination (a log without pids, a Console copy), which opens one.
enum SessionBuilder {
    static func sessions(of events: ArraySlice<AppEvent>, versions: [Int64: IOSVersion]) -> [Session] {
        var sessions: [Session] = []
        var byPid: [Int64: Int] = [:]
        func open(_ event: AppEvent) {
            if let last = sessions.indices.last, sessions[last].endReason != .terminated {
                sessions[last].endReason = .nextLaunch
                sessions[last].endUS = event.timeUS
            }
            sessions.append(Session(deviceId: event.deviceId, bundleId: event.bundleId, pid: nil,
                                    startUS: event.timeUS, endUS: event.timeUS, endReason: .endOfLog, events: []))
        }
        for event in events {
            let isLaunch = event.kind == .launch || event.kind == .relaunch
            var target: Int
            if let pid = event.appPid, let known = byPid[pid], !(sessions[known].endReason == .terminated && event.isRunningState) {
                target = known
            } else if isLaunch {
                if let last = sessions.indices.last, sessions[last].endReason != .terminated,
                   sessions[last].events.allSatisfy({ $0.kind == .launch || $0.kind == .relaunch }) {
                    target = last
                } else {
                    open(event)
                    target = sessions.count - 1
                }
            } else if let pid = event.appPid {
                if let last = sessions.indices.last, sessions[last].pid == nil, sessions[last].endReason != .terminated {
                    target = last
                } else {
                    open(event)
                    target = sessions.count - 1
                }
                sessions[target].pid = pid
                byPid[pid] = target
            } else {
                // A line the app logged itself (in a log without pids) after its termination:
                // a new process runs, whose launch the log does not show.
                if sessions.isEmpty || (EventKind.loggedByApp.contains(event.kind) && sessions[sessions.count - 1].endReason == .terminated) {
                    open(event)
                }
                target = sessions.count - 1
            }
            if isLaunch, let pid = event.appPid, sessions[target].pid == nil {
                sessions[target].pid = pid
                byPid[pid] = target
            }
            apply(event, to: &sessions[target], versions: versions)
        }
        return sessions
    }

    private static func apply(_ event: AppEvent, to session: inout Session, versions: [Int64: IOSVersion]) {
        session.events.append(event)
        if session.osVersion == nil { session.osVersion = versions[event.sourceId] }
        switch event.kind {
        case .launch:
            session.launchIntent = session.launchIntent ?? event.intent
        case .relaunch:
            session.relaunched = true
            session.relaunchService = session.relaunchService ?? event.service
        case .appState where event.appState == .terminated, .crash:
            if session.endReason != .terminated {
                session.endReason = .terminated
                session.endUS = event.timeUS
            }
            return
        default:
            break
        }
        if session.endReason != .terminated { session.endUS = max(session.endUS, event.timeUS) }
    }
}
