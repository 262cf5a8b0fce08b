/// One event per transition, however many lines tell it.
///
/// iOS logs one change of an app's run state many times: RunningBoard computes it,
/// FrontBoard applies it, locationd hears of it on several paths (`RBS #AppMonitor Post
/// Application State Change Notification`, `Not Posting … via legacy path`, `#CLIUA
/// AppMonitor notification`, `#dic AppMonitor received Termination`, …), and SpringBoard
/// may execute one background activation several times over. The replay needs each
/// transition once, so for each app (its bundle id, else its pid):
///
/// - an app state equal to the app's last one (same process) is a repeat;
/// - a launch with the same intent within `windowUS` of the app's last launch is a repeat.
///
/// Of the lines that tell one transition within `windowUS`, the event kept is the one of
/// the pattern listed first in the catalog (locationd's `Post … Notification` before the
/// rest), so that every export of a device keeps the same line whichever forms it holds;
/// it takes the columns it lacks (the pid, `user_kill`) from the repeats. A repeat is
/// counted as skipped (`repeat`), and still links its pid to its bundle. A launch makes the
/// app's next state a transition, and so does a new pid.
struct Transitions {
    /// How long after a transition's first line a line listed earlier in the catalog may
    /// still take its place. The lines of one transition come within some 50 ms.
    static let windowUS: Int64 = 1_000_000

    private struct Track {
        /// The app state, or the launch intent.
        var value: String
        var pid: Int64?
        /// Time of the transition's first line.
        var firstUS: Int64
        /// The event kept so far, until the window closes.
        var held: ParsedEvent?
        var heldRank = Int.max
    }

    private var tracks: [String: Track] = [:]
    /// The earliest time a held event's window closes (no scan before it).
    private var nextRelease: Int64 = .max

    /// Takes the next event in file order; `emit` gets the events kept (perhaps later, when
    /// their window closes), `repeated` the lines that repeat a transition.
    mutating func take(_ e: ParsedEvent, rank: Int, emit: (ParsedEvent) throws -> Void,
                       repeated: (ParsedEvent) throws -> Void) throws {
        if e.timeUS > nextRelease { try release(before: e.timeUS, emit) }
        // Only app states and launches are tracked: no other event's app is looked up (for a
        // location delivery that made a string of its pid, two allocations an event).
        guard e.event.kind == .appState || e.event.kind == .launch, let app = Transitions.app(of: e.event) else { return try emit(e) }
        let pid = e.event[.appPid].flatMap { if case .integer(let p) = $0 { return p } else { return nil } }
        switch e.event.kind {
        case .appState:
            guard let state = e.event[.appState]?.description else { return try emit(e) }
            let key = "S\u{0}" + app
            if var track = tracks[key], track.value == state, track.pid == nil || pid == nil || track.pid == pid {
                track.pid = track.pid ?? pid
                try absorb(e, rank: rank, into: &track, repeated)
                tracks[key] = track
            } else {
                try start(key, e, value: state, pid: pid, rank: rank, emit)
            }
        case .launch:
            let intent = "launch:" + (e.event[.intent]?.description ?? "")
            let key = "L\u{0}" + app
            if var track = tracks[key], track.value == intent, abs(e.timeUS - track.firstUS) <= Transitions.windowUS {
                try absorb(e, rank: rank, into: &track, repeated)
                tracks[key] = track
            } else {
                try start(key, e, value: intent, pid: pid, rank: rank, emit)
                // A new process: whatever state it reaches first is a transition.
                let stateKey = "S\u{0}" + app
                if let held = tracks[stateKey]?.held { try emit(held) }
                tracks[stateKey] = nil
            }
        default:
            try emit(e)
        }
    }

    /// The earliest event held, by line.
    var oldestHeld: (line: Int, timeUS: Int64)? {
        tracks.values.compactMap(\.held).min { $0.line < $1.line }.map { ($0.line, $0.timeUS) }
    }

    /// Emits every event still held, in file order.
    mutating func finish(_ emit: (ParsedEvent) throws -> Void) throws {
        for held in tracks.values.compactMap(\.held).sorted(by: { $0.line < $1.line }) { try emit(held) }
        tracks = [:]
        nextRelease = .max
    }

    /// The bundle id, else the pid, that an event is about; nil when it names neither.
    private static func app(of event: Event) -> String? {
        if case .text(let bundle)? = event[.bundleId] { return bundle }
        if let pid = event[.appPid] { return "#" + pid.description }
        return nil
    }

    private mutating func start(_ key: String, _ e: ParsedEvent, value: String, pid: Int64?, rank: Int,
                                _ emit: (ParsedEvent) throws -> Void) throws {
        if let held = tracks[key]?.held { try emit(held) }
        tracks[key] = Track(value: value, pid: pid, firstUS: e.timeUS, held: e, heldRank: rank)
        nextRelease = min(nextRelease, e.timeUS + Transitions.windowUS)
    }

    /// A repeat: it may take the held event's place (keeping the columns only the held one
    /// has), or lend it the columns it lacks.
    private func absorb(_ e: ParsedEvent, rank: Int, into track: inout Track, _ repeated: (ParsedEvent) throws -> Void) throws {
        guard var held = track.held, abs(e.timeUS - track.firstUS) <= Transitions.windowUS else { return try repeated(e) }
        if rank < track.heldRank {
            var kept = e
            kept.event.fill(from: held.event)
            try repeated(held)
            track.held = kept
            track.heldRank = rank
        } else {
            held.event.fill(from: e.event)
            track.held = held
            try repeated(e)
        }
    }

    /// Emits the held events whose window closed before `timeUS`.
    private mutating func release(before timeUS: Int64, _ emit: (ParsedEvent) throws -> Void) throws {
        var next = Int64.max
        var due: [ParsedEvent] = []
        for (key, track) in tracks {
            guard let held = track.held else { continue }
            if timeUS - track.firstUS > Transitions.windowUS {
                due.append(held)
                tracks[key]!.held = nil
            } else {
                next = min(next, track.firstUS + Transitions.windowUS)
            }
        }
        nextRelease = next
        for held in due.sorted(by: { $0.line < $1.line }) { try emit(held) }
    }
}

extension Event {
    /// Sets the columns this event lacks from another event of the same fact.
    mutating func fill(from other: Event) {
        for (column, value) in other.columns where self[column] == nil { self[column] = value }
    }
}
