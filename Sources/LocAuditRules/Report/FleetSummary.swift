import LocAuditModel
import LocAuditReplay

/// The fleet's open findings as of an audit run, and how they moved over the runs before it:
/// what the fleet summary report shows.
public struct FleetSummary: Sendable, Equatable {
    /// One open finding, as the matrices count it. (Decodable from a finding's fields, as the
    /// store reads it: an unknown severity counts as info, an unknown iOS version as none.)
    public struct Cell: Sendable, Equatable, Decodable {
        public var rule: String
        public var severity: Severity
        public var device: String
        public var bundleId: String
        /// Major iOS version (`17`), nil when unknown.
        public var iosMajor: Int?
    }

    /// One audit run: findings open after it, first seen by it, resolved by it. (Decodable:
    /// the store reads it as a record.)
    public struct RunPoint: Sendable, Equatable, Decodable {
        public var runId: Int64
        public var startedAt: String
        public var open: Int
        public var new: Int
        public var resolved: Int
    }

    public var runId: Int64
    public var startedAt: String
    public var open: [Cell]
    /// The latest runs up to this one, oldest first (at most `trendRuns`).
    public var trend: [RunPoint]
    /// Device id -> name, for the devices the store knows by a name other than their id.
    public var deviceNames: [String: String] = [:]

    public static let trendRuns = 7

    /// From one run's findings alone (no history).
    public init(report: AuditReport) {
        runId = report.runId
        startedAt = report.startedAt
        open = report.findings.map(Cell.init)
        trend = []
    }

    public init(runId: Int64, startedAt: String, open: [Cell], trend: [RunPoint]) {
        self.runId = runId
        self.startedAt = startedAt
        self.open = open
        self.trend = trend
    }
}

extension FleetSummary.Cell {
    init(_ finding: Finding) {
        self.init(rule: finding.rule, severity: finding.severity, device: finding.device, bundleId: finding.bundleId,
                  iosMajor: IOSVersion(finding.osVersion)?.major)
    }

    private enum CodingKeys: String, CodingKey { case rule, severity, device, bundleId, osVersion }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(rule: try c.decode(String.self, forKey: .rule),
                  severity: Severity(rawValue: try c.decode(String.self, forKey: .severity)) ?? .info,
                  device: try c.decode(String.self, forKey: .device), bundleId: try c.decode(String.self, forKey: .bundleId),
                  iosMajor: IOSVersion(try c.decodeIfPresent(String.self, forKey: .osVersion))?.major)
    }
}
