import LocAuditModel
import LocAuditReplay

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
