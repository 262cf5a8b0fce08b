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
///
/// The lines come one at a time (`add`, in time order), and each session is handed over
/// (`take`) as soon as no later line can reach it, in the order the sessions opened: a session
/// that is not the last one can only gain a line of its own pid while that pid is still its
/// (`byPid`), so it is over when it has no pid, when a later session took its pid, or when
/// its pid's last line of the app (`lastLines`, known ahead) has gone by. So an app's lines
/// are not all held at once, only those of the sessions not over yet (docs/performance.md,
/// "Audit memory, streamed").
package struct SessionBuilder {
    private let versions: [Int64: IOSVersion]
    /// pid -> the time of the app's last line naming it; a pid not there is held to the end.
    private let lastLines: [Int64: Int64]
    /// The sessions not handed over yet: `pending[k]` is session `handed + k - head`.
    private var pending: [Session] = []
    /// Sessions of `pending` already taken (its first `head`), dropped in bulk.
    private var head = 0
    /// Sessions handed over.
    private var handed = 0
    /// Sessions opened.
    private var opened: Int { handed + pending.count - head }
    private var byPid: [Int64: Int] = [:]
    private var before: [AppEvent] = []

    package init(versions: [Int64: IOSVersion], lastLines: [Int64: Int64] = [:]) {
        self.versions = versions
        self.lastLines = lastLines
    }

    /// Every session of `events` at once.
    package static func sessions(of events: some Sequence<AppEvent>, versions: [Int64: IOSVersion]) -> [Session] {
        var builder = SessionBuilder(versions: versions)
        for event in events { builder.add(event) }
        return builder.finish()
    }

    /// Session `index` (of those opened), not handed over yet.
    private subscript(index: Int) -> Session {
        _read { yield pending[index - handed + head] }
        _modify { yield &pending[index - handed + head] }
    }

    /// The next session, when it is over for good (no later line can reach it): handed over
    /// once, in the order the sessions opened. `nowUS`: the time of the last line added (no
    /// later line comes before it).
    package mutating func take(nowUS: Int64) -> Session? {
        guard opened - handed > 1 else { return nil }
        if let pid = self[handed].pid, byPid[pid] == handed {
            guard let last = lastLines[pid], last < nowUS else { return nil }
            byPid[pid] = nil
        }
        return pop()
    }

    /// The sessions not handed over yet, once every line has been added.
    package mutating func finish() -> [Session] {
        var rest: [Session] = []
        while opened > handed { rest.append(pop()) }
        return rest
    }

    private mutating func pop() -> Session {
        var session = Session(row: "", bundleId: "", pid: nil, startUS: 0, endUS: 0, endReason: .endOfLog, launchIntent: nil,
                              relaunchService: nil, osVersion: nil)
        swap(&session, &pending[head])
        head += 1
        handed += 1
        if head == pending.count {
            pending.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64, head * 2 >= pending.count {
            pending.removeFirst(head)
            head = 0
        }
        return session
    }

    /// Adds the next line (in time order).
    package mutating func add(_ event: AppEvent) {
        func open(_ event: AppEvent) -> Int {
            if opened > handed {
                let last = opened - 1
                if self[last].endReason != .terminated {
                    self[last].endReason = .nextLaunch
                    self[last].endUS = event.timeUS
                }
            }
            let first = opened == 0
            let session = Session(deviceId: event.deviceId, bundleId: event.bundleId, pid: nil,
                                  startUS: event.timeUS, endUS: event.timeUS, endReason: .endOfLog, events: [],
                                  before: first ? before : [])
            pending.append(session)
            if first { before = [] }
            return opened - 1
        }
        // The last session is never handed over before the end: it is the open one.
        let lastIndex: Int? = opened > handed ? opened - 1 : nil
        /// The open session, when it is still running.
        var running: Int? {
            guard opened > handed else { return nil }
            return self[opened - 1].endReason == .terminated ? nil : opened - 1
        }
        let target: Int
        if event.isLaunch {
            // One background relaunch is two launch lines (SpringBoard's and locationd's).
            if let open = running, self[open].events.allSatisfy(\.isLaunch),
               self[open].pid == nil || event.appPid == nil || self[open].pid == event.appPid {
                target = open
            } else {
                target = open(event)
            }
        } else if let pid = event.appPid {
            let launched = running.flatMap { self[$0].pid == nil && self[$0].events.first?.isLaunch == true ? $0 : nil }
            // A session handed over is never the pid's (`take`); `handed` guards it all the same.
            if let known = byPid[pid], known >= handed,
               self[known].endReason == .terminated ? !event.isRunningState : launched == nil {
                target = known
            } else if let open = running, self[open].pid == nil {
                target = open
            } else {
                target = open(event)
            }
        } else if opened == 0, event.isInstallation {
            // An install before the app ever ran is no process of it.
            before.append(event)
            return
        } else if running == nil, event.isTerminatedState {
            // "No process", naming none, while none of the app runs (RunningBoard computes
            // `none` before a launch too): it opens no session.
            guard let last = lastIndex else { return }
            target = last
        } else {
            // A line the app logged itself (in a log without pids) after its termination:
            // a new process runs, whose launch the log does not show.
            if let open = running {
                target = open
            } else if let last = lastIndex, !EventKind.loggedByApp.contains(event.kind) {
                target = last
            } else {
                target = open(event)
            }
        }
        if let pid = event.appPid, self[target].pid == nil {
            self[target].pid = pid
            byPid[pid] = target
        }
        let versions = versions
        Self.apply(event, to: &self[target], versions: versions)
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
