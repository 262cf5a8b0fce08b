import LocAuditModel
import LocAuditReplay
import LocAuditRules
import LocAuditStore

/// What an audit's reports show besides its report, read from the store before any is
/// rendered, so that the reporters are functions of values: the HTML page's timelines,
/// evidence lines and devices; the fleet summaries' history and (as a page) device names.
public struct ReportInputs: Sendable {
    /// Which of them the requested formats show.
    public struct Needs: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// The HTML page: the findings' timelines, evidence lines and devices.
        public static let html = Needs(rawValue: 1 << 0)
        /// The fleet summaries: the open findings and their trend over the runs.
        public static let fleet = Needs(rawValue: 1 << 1)
        /// The fleet page: the names of the devices with open findings.
        public static let fleetDevices = Needs(rawValue: 1 << 2)
    }

    public var html = HTMLReportInputs()
    /// Nil when not read: the fleet summaries then count this run's findings alone.
    public var fleet: FleetSummary?
    public var fleetDevices: [String: DeviceLabel] = [:]
    /// Device names and app versions: every format shows them (`ReportNames.apply`).
    public var names = ReportNames()

    public init(html: HTMLReportInputs = HTMLReportInputs(), fleet: FleetSummary? = nil, fleetDevices: [String: DeviceLabel] = [:],
                names: ReportNames = ReportNames()) {
        self.html = html
        self.fleet = fleet
        self.fleetDevices = fleetDevices
        self.names = names
    }
}

extension Store {
    /// What `needs` of the reports of `report` read from the store. Reads only.
    public func reportInputs(for report: AuditReport, options: ReportOptions, needs: ReportInputs.Needs) throws -> ReportInputs {
        var inputs = ReportInputs()
        inputs.names = try reportNames(for: report)
        if needs.contains(.html) {
            inputs.html = try htmlReportInputs(for: report.findings, options: options, sessions: report.sessions)
        }
        if !needs.isDisjoint(with: [.fleet, .fleetDevices]) {
            let fleet = try FleetSummary.load(database: path, upToRun: report.runId)
            inputs.fleet = fleet
            if needs.contains(.fleetDevices) { inputs.fleetDevices = try deviceLabels(Set(fleet.open.map(\.device))) }
        }
        return inputs
    }

    /// The same for a nightly run: nothing when it audited nothing (its reports are then its summary alone).
    public func reportInputs(for run: RunReport, options: ReportOptions, needs: ReportInputs.Needs) throws -> ReportInputs {
        guard let audit = run.audit else { return ReportInputs() }
        return try reportInputs(for: audit, options: options, needs: needs)
    }

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
