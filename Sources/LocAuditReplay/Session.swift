import LocAuditModel

extension AppEvent {
    /// RunningBoard says the process runs: after a termination, a reused pid is a new process.
    var isRunningState: Bool { kind == .appState && appState != .terminated && appState != nil }
    /// SpringBoard's launch line or locationd's relaunch.
    var isLaunch: Bool { kind == .launch || kind == .relaunch }
    /// MobileInstallation's install or uninstall line.
    var isInstallation: Bool { kind == .install || kind == .uninstall }
    /// A state line saying the app's process is gone (locationd's `Terminated`, RunningBoard's `none`).
    var isTerminatedState: Bool { kind == .appState && appState == .terminated }
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
    /// Install and uninstall lines before the first session of the app (they open none).
    public var before: [AppEvent] = []

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
/// A launch (SpringBoard's `Bootstrapping`, locationd's relaunch) always opens a session,
/// also for a pid seen before (pids are reused, e.g. after a reboot), unless the open one
/// has seen nothing but launch lines of the same process (the two lines of one background
/// relaunch); a pid the open session does not have opens one too (a log that starts
/// mid-run). Lines with a pid go to the session of that pid, also after its termination
/// (deliveries to a dead process), except that the first pid line after a launch that named
/// none belongs to the launched process when the pid's earlier session was not seen to end
/// (the launch says it did); lines without one go to the open session, except a line the
/// app logged itself after a termination (a log without pids, a Console copy), which opens one. Install and
/// uninstall lines before the app's first session open none: they come `before` it.
package enum SessionBuilder {
    package static func sessions(of events: ArraySlice<AppEvent>, versions: [Int64: IOSVersion]) -> [Session] {
        var sessions: [Session] = []
        var byPid: [Int64: Int] = [:]
        var before: [AppEvent] = []
        func open(_ event: AppEvent) -> Int {
            if let last = sessions.indices.last, sessions[last].endReason != .terminated {
                sessions[last].endReason = .nextLaunch
                sessions[last].endUS = event.timeUS
            }
            sessions.append(Session(deviceId: event.deviceId, bundleId: event.bundleId, pid: nil,
                                    startUS: event.timeUS, endUS: event.timeUS, endReason: .endOfLog, events: [],
                                    before: sessions.isEmpty ? before : []))
            return sessions.count - 1
        }
        /// The open session, when it is still running.
        var running: Int? {
            sessions.indices.last.flatMap { sessions[$0].endReason == .terminated ? nil : $0 }
        }
        for event in events {
            let target: Int
            if event.isLaunch {
                // One background relaunch is two launch lines (SpringBoard's and locationd's).
                if let open = running, sessions[open].events.allSatisfy(\.isLaunch),
                   sessions[open].pid == nil || event.appPid == nil || sessions[open].pid == event.appPid {
                    target = open
                } else {
                    target = open(event)
                }
            } else if let pid = event.appPid {
                let launched = running.flatMap { sessions[$0].pid == nil && sessions[$0].events.first?.isLaunch == true ? $0 : nil }
                if let known = byPid[pid],
                   sessions[known].endReason == .terminated ? !event.isRunningState : launched == nil {
                    target = known
                } else if let open = running, sessions[open].pid == nil {
                    target = open
                } else {
                    target = open(event)
                }
            } else if sessions.isEmpty, event.isInstallation {
                // An install before the app ever ran is no process of it.
                before.append(event)
                continue
            } else if running == nil, event.isTerminatedState {
                // "No process", naming none, while none of the app runs (RunningBoard computes
                // `none` before a launch too): it opens no session.
                guard let last = sessions.indices.last else { continue }
                target = last
            } else {
                // A line the app logged itself (in a log without pids) after its termination:
                // a new process runs, whose launch the log does not show.
                if let open = running {
                    target = open
                } else if let last = sessions.indices.last, !EventKind.loggedByApp.contains(event.kind) {
                    target = last
                } else {
                    target = open(event)
                }
            }
            if let pid = event.appPid, sessions[target].pid == nil {
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

extension Session {
    /// A session known by its row alone (no events): one an earlier audit settled.
    package init(row deviceId: String, bundleId: String, pid: Int64?, startUS: Int64, endUS: Int64, endReason: EndReason,
                 launchIntent: String?, relaunchService: LocationService?, osVersion: IOSVersion?, events: [AppEvent] = []) {
        (self.deviceId, self.bundleId, self.pid, self.startUS, self.endUS, self.endReason) = (deviceId, bundleId, pid, startUS, endUS, endReason)
        (self.launchIntent, self.relaunchService, self.osVersion, self.events) = (launchIntent, relaunchService, osVersion, events)
    }
}
