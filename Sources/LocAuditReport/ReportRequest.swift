import Foundation
import LocAuditModel
import LocAuditRules
import LocAuditRead
import LocAuditAudit

/// One `--report FORMAT[:PATH]`: a format and where it goes (standard output without a path).
public struct ReportRequest: Sendable, Equatable {
    public var format: OutputFormat
    public var path: String?

    public init(format: OutputFormat, path: String? = nil) {
        self.format = format
        self.path = path
    }

    /// `html:out/audit.html`, `junit:out/junit.xml`, `text`.
    public init?(parsing text: String) {
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        guard let first = parts.first, let format = OutputFormat(rawValue: first.lowercased()) else { return nil }
        self.format = format
        self.path = parts.count > 1 && !parts[1].isEmpty ? parts[1] : nil
    }

    /// What these requests show besides the audit's report (`Store.reportInputs` reads it).
    public static func needs(_ requests: [ReportRequest]) -> ReportInputs.Needs {
        requests.reduce(into: []) { $0.formUnion($1.format.needs) }
    }

    /// Renders every request, then writes them (see `deliver`). The HTML and fleet reports
    /// show `inputs` too (what `needs` asks of the store).
    public static func write(_ requests: [ReportRequest], report: AuditReport, options: ReportOptions, inputs: ReportInputs) throws {
        var reports: [(request: ReportRequest, text: String)] = []
        for request in requests {
            var opts = options
            if request.path != nil { opts.color = false }
            reports.append((request, try render(request.format, report, options: opts, inputs: inputs)))
        }
        try deliver(reports, run: report.runId == 0 ? nil : report.runId) // 0: not recorded (`--no-record`)
    }

    /// Writes rendered reports through `Output`: every file first (regular files replaced
    /// only once all are complete), then standard output (at most one request goes there).
    /// An error says the audit `run` is recorded and how to render it again.
    static func deliver(_ reports: [(request: ReportRequest, text: String)], run: Int64?) throws {
        do {
            try Output.write(reports.compactMap { r in r.request.path.map { (path: $0, text: r.text) } })
            let stdout = reports.filter { $0.request.path == nil }.map(\.text).joined()
            if !stdout.isEmpty { try Output.standardOutput(stdout) }
        } catch let error as OutputError {
            guard let run else { throw error }
            throw OutputError(error.description + " The audit is recorded as run \(run): `locaudit report --run \(run)` writes its reports again.")
        }
    }

    /// A report in a format: the HTML page draws its timelines, evidence lines and devices
    /// from `inputs`, the fleet summaries the run's history (and the HTML one the devices' names).
    static func render(_ format: OutputFormat, _ report: AuditReport, options: ReportOptions, inputs: ReportInputs) throws -> String {
        let report = inputs.names.apply(to: report)
        switch format {
        case .html: return try format.render(report, options: options, html: inputs.html)
        case .fleet: return try format.render(report, options: options, fleet: inputs.fleet)
        case .fleetHTML: return try format.render(report, options: options, html: HTMLReportInputs(devices: inputs.fleetDevices), fleet: inputs.fleet)
        default: return try format.render(report, options: options)
        }
    }
}
