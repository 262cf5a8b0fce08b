/// The fleet's open findings as of an audit run, and how they moved over the runs before it:
/// what the fleet summary report shows.
public struct FleetSummary: Sendable, Equatable {
    /// One open finding, as the matrices count it.
    public struct Cell: Sendable, Equatable {
        public var rule: String
        public var severity: Severity
        public var device: String
        public var bundleId: String
        /// Major iOS version (`17`), nil when unknown.
        public var iosMajor: Int?

        public init(rule: String, severity: Severity, device: String, bundleId: String, iosMajor: Int?) {
            self.rule = rule
            self.severity = severity
            self.device = device
            self.bundleId = bundleId
            self.iosMajor = iosMajor
        }
    }

    /// One audit run: findings open after it, first seen by it, resolved by it.
    public struct RunPoint: Sendable, Equatable {
        public var runId: Int64
        public var startedAt: String
        public var open: Int
        public var new: Int
        public var resolved: Int

        public init(runId: Int64, startedAt: String, open: Int, new: Int, resolved: Int) {
            self.runId = runId
            self.startedAt = startedAt
            self.open = open
            self.new = new
            self.resolved = resolved
        }
    }

    public var runId: Int64
    public var startedAt: String
    public var open: [Cell]
    /// The latest runs up to this one, oldest first (at most `trendRuns`).
    public var trend: [RunPoint]

    public static let trendRuns = 7

    /// From one run's findings alone (no history).
    public init(report: AuditReport) {
        runId = report.runId
        startedAt = report.startedAt
        open = report.findings.map {
            Cell(rule: $0.rule, severity: $0.severity, device: $0.device, bundleId: $0.bundleId, iosMajor: IOSVersion($0.osVersion)?.major)
        }
        trend = []
    }

    public init(runId: Int64, startedAt: String, open: [Cell], trend: [RunPoint]) {
        self.runId = runId
        self.startedAt = startedAt
        self.open = open
        self.trend = trend
    }
}
