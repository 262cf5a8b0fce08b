import LocAuditModel
import LocAuditStore

/// What the HTML report draws and quotes besides the findings.
public struct HTMLReportInputs: Sendable {
    /// The timelines of the findings' sessions.
    public var timelines: [SessionTimeline] = []
    /// The text of their evidence lines, by event id.
    public var evidence: [Int64: EvidenceText] = [:]
    /// Their devices' names and models, by device id.
    public var devices: [String: DeviceLabel] = [:]

    public init(timelines: [SessionTimeline] = [], evidence: [Int64: EvidenceText] = [:], devices: [String: DeviceLabel] = [:]) {
        self.timelines = timelines
        self.evidence = evidence
        self.devices = devices
    }
}

extension Store {
    /// What the HTML report of `findings` draws and quotes besides the findings: the timelines
    /// of their sessions, the text of their evidence lines, their devices. Reads only. The
    /// timelines are drawn from the audit's replayed `sessions` when it hands them on (a
    /// fresh audit); without them (a stored run) the findings' apps are replayed again.
    public func htmlReportInputs(for findings: [Finding], options: ReportOptions,
                                 sessions: [ReplayedSession]? = nil) throws -> HTMLReportInputs {
        let reads = try reportReads(for: findings, options: options, sessions: sessions)
        return HTMLReportInputs(timelines: reads.timelines, evidence: reads.evidence, devices: reads.devices)
    }
}
