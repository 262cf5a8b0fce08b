import Foundation

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

    /// Renders and writes every request; parent folders are created. Returns what goes to
    /// standard output (at most one request may go there; the caller prints it).
    /// The HTML report reads its timelines and evidence lines from `store`.
    public static func write(_ requests: [ReportRequest], report: AuditReport, options: ReportOptions, store: Store) throws -> String {
        var stdout = ""
        for request in requests {
            var opts = options
            if request.path != nil { opts.color = false }
            let text = try render(request.format, report, options: opts, store: store)
            guard let path = request.path else { stdout += text; continue }
            try writeFile(text, to: path)
        }
        return stdout
    }

    /// A report in a format: the HTML page reads its timelines and evidence lines from the
    /// store, the fleet summaries the run's history.
    static func render(_ format: OutputFormat, _ report: AuditReport, options: ReportOptions, store: Store) throws -> String {
        switch format {
        case .html:
            return format.render(report, options: options, html: try store.htmlReportInputs(for: report.findings, options: options))
        case .fleet, .fleetHTML:
            return format.render(report, options: options, fleet: try FleetSummary.load(database: store.path, upToRun: report.runId))
        default:
            return format.render(report, options: options)
        }
    }

    static func writeFile(_ text: String, to path: String) throws {
        let url = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url, options: .atomic)
    }
}
