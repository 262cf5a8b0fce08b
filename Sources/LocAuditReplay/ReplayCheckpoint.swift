import LocAuditModel

/// What the replay of one app on one device knew where `prune` cut its lines: the state
/// after the last session that lost lines, and that session's last line. The replay of the
/// data after it starts from this state, so findings on later data are the same before and
/// after a prune; the lines at or before it (and their sessions and findings) are not
/// replayed again.
package struct ReplayCheckpoint {
    package var deviceId: String
    package var bundleId: String
    /// The last line replayed into the state, in the replay's order (time, source, line).
    package var asOf: EventKey
    package var state: ReplayState

    /// Events in the replay's order: time, then file, then line.
    package struct EventKey: Comparable, Sendable {
        package var timeUS: Int64
        package var source: Int64
        package var line: Int
        package init(_ e: AppEvent) { (timeUS, source, line) = (e.timeUS, e.sourceId, e.line) }
        package init(timeUS: Int64, source: Int64, line: Int) { (self.timeUS, self.source, self.line) = (timeUS, source, line) }
        package static func < (a: EventKey, b: EventKey) -> Bool { (a.timeUS, a.source, a.line) < (b.timeUS, b.source, b.line) }
    }

    package static func key(_ device: String, _ bundle: String) -> String { device + "\u{0}" + bundle }

    package init(deviceId: String, bundleId: String, asOf: EventKey, state: ReplayState) {
        self.deviceId = deviceId
        self.bundleId = bundleId
        self.asOf = asOf
        self.state = state
    }
}
