import ArgumentParser
import Foundation
import LocAuditAudit
import LocAuditModel
import LocAuditRules
import LocAuditRead
import LocAuditReport
import LocAuditStore

extension ReportRequest: ExpressibleByArgument {
    public init?(argument: String) { self.init(parsing: argument) }
}

extension ReportGrouping: ExpressibleByArgument {}

/// The report flags `audit` and `report` share.
struct ReportFlags: ParsableArguments {
    @Option(name: .customLong("report"), help: ArgumentHelp(
        "A report, FORMAT[:PATH] (\(OutputFormat.allCases.map(\.rawValue).joined(separator: ", "))); repeatable. Without a path it goes to standard output. A file is replaced whole once every report is written (its folder must exist); a device, FIFO or socket is written to; a link is followed; the database's files are refused.",
        valueName: "format[:path]"), completion: Complete.reports)
    var reports: [ReportRequest] = []

    @Option(help: ArgumentHelp("Format of the report on standard output when no --report is given (default: text).", valueName: "name"))
    var format: OutputFormat?

    @Option(help: ArgumentHelp("Write that report here instead of standard output (as a --report path).", valueName: "file"), completion: .file())
    var output: String?

    @Flag(help: "Show delivered coordinates in reports (hidden by default: they are people's locations).")
    var showCoordinates = false

    @Option(help: ArgumentHelp("Decimal places of shown coordinates (3 is about 100 m).", valueName: "n"))
    var coordinateDecimals = 3

    @Option(help: ArgumentHelp("Colours in the text report on standard output: auto (on a terminal, unless $NO_COLOR is set), always, never.", valueName: "when"))
    var color: ColorChoice = .auto

    @Option(help: ArgumentHelp("Group the text and markdown reports' findings by app (then device: a ticket per app) or by device (then app). Default: device for text, app for markdown.", valueName: "app|device"))
    var groupBy: ReportGrouping?

    func validate() throws {
        if reports.filter({ $0.path == nil }).count > 1 {
            throw ValidationError("At most one --report can go to standard output; give the others a path (FORMAT:PATH).")
        }
        if !(0...8).contains(coordinateDecimals) { throw ValidationError("--coordinate-decimals takes 0 to 8.") }
    }

    var requests: [ReportRequest] { reports.isEmpty ? [ReportRequest(format: format ?? .text, path: output)] : reports }

    /// The reports asked for: those of the command line, else (when it names none: no
    /// --report, --format or --output) those of the project's config, else the text report.
    /// A config entry that is no report is exit 2 naming its line.
    func requests(config: ProjectConfig?) throws -> [ReportRequest] {
        guard reports.isEmpty, format == nil, output == nil, let config, !config.reports.isEmpty else { return requests }
        return try config.reports.map { entry in
            guard let request = ReportRequest(parsing: entry.text) else {
                throw ConfigError(path: config.path, line: entry.line, "'\(entry.text)' is not a report: FORMAT[:PATH], FORMAT one of \(OutputFormat.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            return request
        }
    }

    /// Refuses, before anything runs, a report path that is the database (or one of its
    /// files) or that cannot be written: exit 2.
    func validate(database: String, requests: [ReportRequest]? = nil) throws {
        for path in (requests ?? self.requests).compactMap(\.path) {
            if let problem = Output.problem(writing: path, database: database) { throw ValidationError(problem) }
        }
    }

    var options: ReportOptions {
        var o = ReportOptions()
        o.showCoordinates = showCoordinates
        o.coordinateDecimals = coordinateDecimals
        o.groupBy = groupBy
        o.color = color.enabled
        return o
    }

    /// Whether a report asked for reads the events (the HTML page's timelines and evidence lines).
    var readsEvents: Bool { ReportRequest.needs(requests).contains(.html) }

    func write(_ report: AuditReport, store: Store, requests: [ReportRequest]? = nil) throws {
        let requests = requests ?? self.requests
        let inputs = try store.reportInputs(for: report, options: options, needs: ReportRequest.needs(requests))
        try ReportRequest.write(requests, report: report, options: options, inputs: inputs)
    }
}
