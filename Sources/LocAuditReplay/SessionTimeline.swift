import Foundation
import LocAuditModel

/// One session with findings, ready to draw: what the replay says the app and iOS held
/// at each moment (lanes), the locations delivered, and the findings.
public struct SessionTimeline: Sendable, Equatable {
    public var deviceId: String
    public var bundleId: String
    public var pid: Int64?
    /// iOS version of the device; nil when unknown.
    public var osVersion: String?
    /// The session's start as findings cite it (`Finding.sessionStart`).
    public var sessionStart: String
    /// The drawn span: the session, and any line of its process after its end.
    public var startUS: Int64
    public var endUS: Int64
    public var endReason: Session.EndReason
    /// App state, authorization, accuracy, blue bar and services, in that order.
    public var lanes: [Lane]
    public var deliveries: [Delivery]
    /// The authorization prompts iOS showed the app in the session and what the user
    /// answered, in time order: empty for a session with no prompt or answer line (the
    /// report then draws no prompts lane).
    public var prompts: [Prompt] = []
    /// The session's findings, in report order.
    public var findings: [FindingMark]

    /// One row of the drawing: a replayed value as step intervals.
    public struct Lane: Sendable, Equatable {
        public var kind: LaneKind
        public var intervals: [Interval]
    }

    /// What a lane shows.
    public enum LaneKind: String, Sendable, CaseIterable {
        /// Foreground, background, suspended, terminated.
        case appState = "app state"
        /// In use or not (rules-model.md "In use", v2): what When In Use authorizes.
        case inUse = "in use"
        /// The effective status (provisional Always and Allow Once named as such).
        case authorization
        /// Full, full (temporary) or reduced.
        case accuracy
        /// The background location indicator.
        case blueBar = "blue bar"
        /// Location services running.
        case services
        /// The status-bar location arrow locationd reports for the app (`#sbim client arrow
        /// state changed`): drawn only for a session with such a line. No rule reads it: that it
        /// stands for the background indicator is not established (docs/log-formats.md).
        case locationArrow = "location arrow"
    }

    /// A lane's value as the replay holds it: what a report colours (one style a case),
    /// whatever the label that names it.
    public enum LaneState: String, Sendable, CaseIterable {
        case foreground, background, suspended, terminated
        /// In use: the foreground, the grace, or kept by updates or a session (and by which).
        case inUse = "in-use", notInUse = "not-in-use"
        case notDetermined = "not-determined", restricted, denied
        case whenInUse = "when-in-use", allowOnce = "allow-once", provisionalAlways = "provisional-always", always
        case full, fullTemporary = "full-temporary", reduced
        case shown, hidden
        /// No service runs.
        case none
        /// Some service runs: the lane names them.
        case on
        /// The location arrow: locationd says the app receives location (its state named), or off.
        case arrowOn = "arrow-on", arrowOff = "arrow-off"

        /// The lane that shows it.
        public var lane: LaneKind {
            switch self {
            case .foreground, .background, .suspended, .terminated: return .appState
            case .inUse, .notInUse: return .inUse
            case .notDetermined, .restricted, .denied, .whenInUse, .allowOnce, .provisionalAlways, .always: return .authorization
            case .full, .fullTemporary, .reduced: return .accuracy
            case .shown, .hidden: return .blueBar
            case .none, .on: return .services
            case .arrowOn, .arrowOff: return .locationArrow
            }
        }

        /// How the lane names it (running services are named by the services).
        public var label: String {
            switch self {
            case .notDetermined: return "not determined"
            case .whenInUse: return "When In Use"
            case .allowOnce: return "Allow Once"
            case .provisionalAlways: return "provisional Always"
            case .always: return "Always"
            case .fullTemporary: return "full (temporary)"
            case .inUse: return "in use"
            case .notInUse: return "not in use"
            case .arrowOn: return "on"
            case .arrowOff: return "off"
            default: return rawValue
            }
        }

        /// The state of a status a line says.
        init(_ status: AuthorizationStatus) {
            switch status {
            case .notDetermined: self = .notDetermined
            case .restricted: self = .restricted
            case .denied: self = .denied
            case .authorizedWhenInUse: self = .whenInUse
            case .authorizedAlways: self = .always
            }
        }
    }

    /// A value held from `startUS` to `endUS`; nil while unknown (no line has said it, and
    /// the model implies nothing): drawn hatched, never as a default.
    public struct Interval: Sendable, Equatable {
        public var startUS: Int64
        public var endUS: Int64
        public var value: String?
        /// What `value` names, for the report's colours; nil while unknown.
        public var state: LaneState? = nil
        /// How the replay knows the value, for the lanes that tell (authorization); nil otherwise.
        public var origin: Origin? = nil
        /// Lines of the interval that say another value than the replay holds (the replay
        /// keeps its own: a callback after a lapsed Allow Once grant is evidence against iOS).
        public var contradictions: [LoggedValue] = []
    }

    /// How the replay knows a lane's value.
    public enum Origin: String, Sendable {
        /// A line of this session says it.
        case observed
        /// No line of this session says it: carried over from an earlier session, or the
        /// replay's model of iOS (an Allow Once grant lapses at relaunch).
        case modelled
    }

    /// What a line logged, where it is not what the replay holds.
    public struct LoggedValue: Sendable, Equatable {
        public var event: Int64
        public var timeUS: Int64
        /// As the lane names it (`When In Use`).
        public var value: String
    }

    /// A location delivered to the app.
    public struct Delivery: Sendable, Equatable {
        public var event: Int64
        public var timeUS: Int64
        /// Metres; nil when the log hides the location (`<private>`).
        public var horizontalAccuracy: Double?
        /// Delivered while the app was in the background (and alive); nil when its state is unknown.
        public var background: Bool?
        /// Only with `ReportOptions.showCoordinates`, rounded to `coordinateDecimals`.
        public var coordinate: Coordinate?
    }

    /// A rounded position.
    public struct Coordinate: Sendable, Equatable {
        public var latitude: Double
        public var longitude: Double
    

        package init(latitude: Double, longitude: Double) {
            self.latitude = latitude
            self.longitude = longitude
        }
}

    /// A prompt locationd showed the app (`prompt` line), and the user's answer to it
    /// (`prompt-response` line): either may be missing from the session's lines.
    public struct Prompt: Sendable, Equatable {
        /// The prompt line; nil for an answer whose prompt no line of the session shows.
        public var shown: Shown?
        /// The answer line; nil while the prompt was not answered in the session's lines.
        public var answer: Answer?

        public struct Shown: Sendable, Equatable {
            public var event: Int64
            public var timeUS: Int64
            /// As the line says (`WhenInUse`, `Always`, `AlwaysUpgrade`, ...; an open set).
            public var kind: String?
            /// The choices offered, as the line says them (`AllowOnce`, `WhenInUse`, `Deny`).
            public var options: [String]
        }

        public struct Answer: Sendable, Equatable {
            public var event: Int64
            public var timeUS: Int64
            /// The choice; nil for an answer outside the vocabulary.
            public var choice: PromptChoice?
        }

        /// When the prompt shows on the timeline: its line, else its answer's.
        public var startUS: Int64 { shown?.timeUS ?? answer?.timeUS ?? 0 }
        /// When it was answered, else when it was shown.
        public var endUS: Int64 { answer?.timeUS ?? shown?.timeUS ?? 0 }
    }

    /// A finding on the timeline, with the times of the events that show it.
    public struct FindingMark: Sendable, Equatable {
        public var fingerprint: String
        public var rule: String
        public var severity: Severity
        public var timeUS: Int64
        /// Evidence events of this session: id and time.
        public var evidence: [EvidenceMark]
    }

    /// An event a finding cites, placed on the timeline.
    public struct EvidenceMark: Sendable, Equatable {
        public var event: Int64
        public var timeUS: Int64
    }
}

extension SessionTimeline {
    /// The timelines of the `sessions` (in device, app and time order) that session findings
    /// name, each with its own findings.
    package static func timelines(of sessions: some Sequence<ReplayedSession>, findings: [Finding]) -> [SessionTimeline] {
        let sessionFindings = findings.filter { $0.sessionStartUS != nil }
        guard !sessionFindings.isEmpty else { return [] }
        var timelines: [SessionTimeline] = []
        for replayed in sessions {
            let s = replayed.session
            let own = sessionFindings.filter {
                $0.device == s.deviceId && $0.bundleId == s.bundleId && $0.pid == s.pid && $0.sessionStartUS == s.startUS
            }
            if !own.isEmpty { timelines.append(SessionTimeline(replayed, findings: own)) }
        }
        return timelines
    }

    /// The timeline of one replayed session and its findings.
    package init(_ replayed: ReplayedSession, findings: [Finding]) {
        let session = replayed.session
        deviceId = session.deviceId
        bundleId = session.bundleId
        pid = session.pid
        osVersion = session.osVersion?.text
        sessionStart = Timestamps.isoUTC(session.startUS)
        // App Privacy Report intervals are not drawn: a day's report after the session's end
        // would squeeze the session into a corner.
        let drawn = session.events.filter { $0.kind != .accessBegin && $0.kind != .accessEnd }
        startUS = min(session.startUS, drawn.first?.timeUS ?? session.startUS)
        endUS = max(session.endUS, drawn.last?.timeUS ?? session.endUS)
        endReason = session.endReason

        // The state from the start, then after each event (and the event).
        var changes: [(timeUS: Int64, state: ReplayState, event: AppEvent?)] = [(startUS, replayed.initial, nil)]
        for (i, step) in replayed.steps.enumerated() where step.event.timeUS <= endUS {
            changes.append((step.event.timeUS, i + 1 < replayed.steps.count ? replayed.steps[i + 1].state : replayed.final, step.event))
        }
        // The moments the grace after leaving the foreground runs out, between two lines.
        for i in changes.indices.reversed() {
            let state = changes[i].state
            guard !state.startedInBackground, let left = state.backgroundSinceUS else { continue }
            let (expiry, overflow) = left.addingReportingOverflow(state.graceUS)
            guard !overflow else { continue }
            let next = i + 1 < changes.count ? changes[i + 1].timeUS : endUS
            if expiry > changes[i].timeUS, expiry < next { changes.insert((expiry, state, nil), at: i + 1) }
        }
        let end = endUS
        let arrow = session.events.contains { $0.kind == .locationArrow }
        lanes = LaneKind.allCases.filter { $0 != .locationArrow || arrow }.map { kind in
            var intervals: [Interval] = []
            for change in changes {
                let held = kind.value(in: change.state, at: change.timeUS)
                let value = held?.label
                // A value a line of the session says is observed; one carried over from the
                // start or set with no line saying it (or against what a line says) is modelled.
                var origin: Origin?
                var contradiction: LoggedValue?
                if kind.tellsOrigin {
                    if value != nil { origin = intervals.last?.value == value ? intervals.last?.origin ?? .modelled : .modelled }
                    if let event = change.event, let said = kind.status(saidBy: event) {
                        if said == change.state.status.value {
                            origin = .observed
                        } else {
                            contradiction = LoggedValue(event: event.id, timeUS: change.timeUS, value: said.laneName)
                        }
                    }
                }
                if let last = intervals.last, last.value == value, last.origin == origin {
                    if let contradiction { intervals[intervals.count - 1].contradictions.append(contradiction) }
                    continue
                }
                if !intervals.isEmpty { intervals[intervals.count - 1].endUS = change.timeUS }
                intervals.append(Interval(startUS: change.timeUS, endUS: end, value: value, state: held?.state, origin: origin,
                                          contradictions: contradiction.map { [$0] } ?? []))
            }
            // Values held for no time (two lines in the same microsecond) are not drawn; what
            // a line said at that moment stays with the value that follows.
            var shown: [Interval] = []
            var carried: [LoggedValue] = []
            for interval in intervals {
                guard interval.endUS > interval.startUS || intervals.count == 1 else { carried += interval.contradictions; continue }
                var interval = interval
                interval.contradictions = carried + interval.contradictions
                carried = []
                shown.append(interval)
            }
            if !carried.isEmpty, !shown.isEmpty { shown[shown.count - 1].contradictions += carried }
            return Lane(kind: kind, intervals: shown)
        }
        deliveries = replayed.steps.filter { $0.event.isDelivery }.map { step in
            Delivery(event: step.event.id, timeUS: step.event.timeUS,
                     horizontalAccuracy: step.event.locationPrivate ? nil : step.event.horizontalAccuracy,
                     background: step.state.inBackground, coordinate: nil)
        }
        prompts = Self.prompts(in: session.events)
        var times: [Int64: Int64] = [:]
        for event in session.events { times[event.id] = event.timeUS }
        self.findings = findings.map { f in
            FindingMark(fingerprint: f.fingerprint, rule: f.rule, severity: f.severity, timeUS: f.timeUS,
                        evidence: f.evidence.compactMap { e in e.event.flatMap { id in times[id].map { EvidenceMark(event: id, timeUS: $0) } } })
        }
    }

    /// Each prompt line with the answer that follows it (before the next prompt); an answer
    /// after an answered prompt, or before any prompt line, stands alone.
    static func prompts(in events: [AppEvent]) -> [Prompt] {
        var prompts: [Prompt] = []
        for event in events {
            switch event.kind {
            case .prompt:
                prompts.append(Prompt(shown: .init(event: event.id, timeUS: event.timeUS, kind: event.promptKind?.rawValue,
                                                   options: event.promptOptions.map(\.rawValue))))
            case .promptResponse:
                let answer = Prompt.Answer(event: event.id, timeUS: event.timeUS, choice: event.choice)
                if let last = prompts.indices.last, prompts[last].shown != nil, prompts[last].answer == nil {
                    prompts[last].answer = answer
                } else {
                    prompts.append(Prompt(shown: nil, answer: answer))
                }
            default:
                continue
            }
        }
        return prompts
    }

    package static func round(_ value: Double, _ decimals: Int) -> Double {
        let scale = Foundation.pow(10, Double(max(0, decimals)))
        return (value * scale).rounded() / scale
    }
}

extension SessionTimeline.LaneKind {
    /// Whether the lane tells values a line said from values the replay models.
    var tellsOrigin: Bool { self == .authorization }

    /// The status a line says, for the authorization lane: a callback or a status change.
    func status(saidBy event: AppEvent) -> AuthorizationStatus? {
        guard self == .authorization, event.kind == .authorization || event.kind == .statusChange else { return nil }
        return event.status
    }

    /// What this lane shows for a replayed state, and its label; nil when the logs have not said it.
    func value(in state: ReplayState, at timeUS: Int64) -> (state: SessionTimeline.LaneState, label: String)? {
        let held: SessionTimeline.LaneState?
        switch self {
        case .inUse:
            guard let inUse = state.inUse(at: timeUS) else { return nil }
            guard inUse else { return (.notInUse, SessionTimeline.LaneState.notInUse.label) }
            if state.appState.value == .foregroundRunning { return (.inUse, "in use (foreground)") }
            if state.keptInUse == true { return (.inUse, "in use (\(state.keptBy))") }
            return (.inUse, "in use (grace)")
        case .appState:
            if state.terminated { held = .terminated; break }
            switch state.appState.value {
            case .foregroundRunning: held = .foreground
            case .backgroundRunning: held = .background
            case .backgroundTaskSuspended: held = .suspended
            case .terminated: held = .terminated
            case nil: held = nil
            }
        case .authorization:
            switch state.status.value {
            case .authorizedWhenInUse: held = state.grantIsAllowOnce.value == true ? .allowOnce : .whenInUse
            case .authorizedAlways: held = state.provisionalAlways.value == true ? .provisionalAlways : .always
            case let status: held = status.map(SessionTimeline.LaneState.init)
            }
        case .accuracy:
            switch state.accuracy.value {
            case .full: held = state.temporaryFullAccuracy ? .fullTemporary : .full
            case .reduced: held = .reduced
            case nil: held = nil
            }
        case .blueBar:
            held = state.blueBarVisible.value.map { $0 ? .shown : .hidden }
        case .locationArrow:
            guard let arrow = state.locationArrow.value else { return nil }
            return arrow == "Off" ? (.arrowOff, SessionTimeline.LaneState.arrowOff.label) : (.arrowOn, arrow)
        case .services:
            let running = LocationService.allCases.filter { state.services.contains($0) }
            // Without the launch line a service may run from before the log.
            if running.isEmpty { held = state.servicesKnown ? SessionTimeline.LaneState.none : nil; break }
            let names = running.map(\.displayName).joined(separator: ", ")
            return (.on, state.paused.value == true ? names + " (paused)" : names)
        }
        return held.map { ($0, $0.label) }
    }
}

extension AuthorizationStatus {
    /// How the authorization lane names a status a line says.
    var laneName: String { SessionTimeline.LaneState(self).label }
}

extension LocationService {
    /// How reports name the service.
    var displayName: String {
        switch self {
        case .standard: return "standard"
        case .significantChange: return "significant change"
        case .visits: return "visits"
        case .region: return "region monitoring"
        case .beacon: return "beacon ranging"
        case .heading: return "heading"
        case .monitor: return "CLMonitor"
        }
    }
}
