import ArgumentParser
import Foundation
import LocAuditAudit
import LocAuditIngest
import LocAuditModel
import LocAuditNormalise
import LocAuditRead
import LocAuditReport
import LocAuditStore
import LocAuditRules

struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Audit a live device log while the tests run.",
        usage: "locaudit watch [<options>] [--follow] [<path>]",
        discussion: """
            Reads a live log (pymobiledevice3 syslog live, idevicesyslog, log stream --style \
            ndjson, ...) from standard input, or from PATH (with --follow: as it grows, like \
            tail -F, across rotation and truncation). Events are stored about once a second, \
            so `locaudit query` sees them while the watch runs. Each finding is printed on \
            standard output as soon as the line that decides it is stored, in the audit's \
            text format; the first lines say which rules wait for the app's next session and \
            which for the end of the watch (configuration rules). A partial last line waits \
            for its newline. A restart on the same file continues where the last one stopped.

            The watch ends at the end of the input, on SIGINT or SIGTERM, after --until-idle \
            seconds without a byte, or after --for; then it audits what it stored as \
            `locaudit audit` does (the same findings: those decided only then are printed \
            too), writes the --report files and exits with the audit's codes. On a terminal, \
            a status line on stderr shows events, sessions and findings so far.

            Exit codes: 0 nothing at or above --fail-on, 1 findings at or above it, 2 usage \
            error, 3 insufficient evidence, or nothing to read (a missing file, a log of no \
            known kind: what was stored before stays), 6 the store cannot be used, 7 a \
            report or standard output could not be written.

            EXAMPLES:
              # in CI, while the tests run (docs/live.md):
              #   pymobiledevice3 syslog live | locaudit watch --os 17.5 --for 20m
              # the same with a log on a pipe, failing only on critical findings
              gzip -dc samples/logs/qa-iphone11-13-2026-11-20.log.gz | locaudit watch \\
                  --device-info samples/logs/qa-iphone11-13-2026-11-20.ideviceinfo.txt \\
                  --fail-on critical --for 20m
              # a file as it grows, ended by 2 idle seconds, with a JUnit report
              locaudit watch --follow --until-idle 2 --fail-on critical \\
                  --report junit:junit.xml samples/logs/qa-iphone14pro-17-2026-11-20.log
            """
    )

    @OptionGroup var store: StoreOptions

    @OptionGroup var source: LogSourceOptions

    @OptionGroup var threshold: FailOnOption

    @Option(name: .customLong("report"), help: ArgumentHelp(
        "A report written at the end, FORMAT:PATH (\(OutputFormat.allCases.map(\.rawValue).joined(separator: ", "))); repeatable.",
        valueName: "format:path"))
    var reports: [ReportRequest] = []

    @Option(help: ArgumentHelp("End after this many seconds without a byte of input.", valueName: "seconds"))
    var untilIdle: Double?

    @Option(name: .customLong("for"), help: ArgumentHelp("End after this long: 90s, 20m, 1h30m, or seconds.", valueName: "duration"))
    var duration: String?

    @Option(help: ArgumentHelp("Colours: auto (on a terminal, unless $NO_COLOR is set), always, never.", valueName: "when"))
    var color: ColorChoice = .auto

    @Flag(help: "Keep reading PATH as it grows, across rotation and truncation (like tail -F).")
    var follow = false

    @Argument(help: ArgumentHelp("A log file, or - (standard input, the default).", valueName: "path"), completion: .file())
    var path = "-"

    func validate() throws {
        if path.isEmpty { throw ValidationError("PATH cannot be empty; give a file, or - for standard input.") }
        if follow, path == "-" { throw ValidationError("--follow needs a file to follow; standard input is read as it comes anyway.") }
        if let untilIdle, !(untilIdle.isFinite && untilIdle > 0 && untilIdle <= 86_400 * 365) {
            throw ValidationError("--until-idle takes a positive number of seconds (got \(untilIdle)).")
        }
        if let duration, WatchOptions.seconds(duration) == nil {
            throw ValidationError("--for '\(duration)' is not a duration; use 90s, 20m, 1h30m or a number of seconds.")
        }
        let database = Store.defaultPath(store.db)
        for report in reports {
            guard let path = report.path else {
                throw ValidationError("--report \(report.format.rawValue) needs a path (FORMAT:PATH): standard output shows the findings as they come.")
            }
            if let problem = Output.problem(writing: path, database: database) { throw ValidationError(problem) }
        }
    }

    func run() throws {
        var options = WatchOptions()
        options.input.device = try source.facts()
        options.input.path = path
        options.input.parse = ParseOptions(zone: source.zone)
        options.input.format = source.chosenContainer
        options.input.catalogFiles = source.catalogFiles
        options.follow = follow
        options.audit.failOn = threshold.severity()
        options.untilIdle = untilIdle
        options.duration = duration.flatMap(WatchOptions.seconds)
        let color = self.color.enabled
        let status = ProgressBar(quiet: false)
        let result = try withStore(store.path) {
            let result = try Watch(databasePath: store.path, options: options).run { note in
                status.clear()
                switch note {
                case .started(let input, let database, let waits):
                    var text = "locaudit watch: \(input) into \(database); each finding is printed once the line that decides it is stored.\n"
                    for wait in waits { text += "  waiting for \(wait.until): \(wait.rules.joined(separator: ", "))\n" }
                    try Output.standardOutput(text)
                case .finding(let finding):
                    let finding = Self.named(finding, database: store.path)
                    try Output.standardOutput(Self.place(finding) + TextReporter.finding(finding, tag: "live", color: color))
                case .status(let events, let sessions, let findings):
                    status.start("watching: \(events) events, \(sessions) sessions, \(findings) findings")
                case .notice(let text):
                    printError(text)
                }
            }
            status.clear()
            var text = "\nwatch ended (\(result.end.rawValue)): \(result.report.events) events, \(result.report.coverage.sessions) sessions audited.\n"
            if !result.decidedAtEnd.isEmpty {
                text += "Decided at the end:\n"
                for finding in result.decidedAtEnd.map({ Self.named($0, database: store.path) }) {
                    text += Self.place(finding) + TextReporter.finding(finding, tag: "end", color: color)
                }
            }
            try Output.standardOutput(text + TextReporter.closing(result.report, color: color))
            if !reports.isEmpty {
                let inputs = try Store(path: store.path, access: .read)
                    .reportInputs(for: result.report, options: ReportOptions(), needs: ReportRequest.needs(reports))
                try ReportRequest.write(reports, report: result.report, options: ReportOptions(), inputs: inputs)
            }
            return result
        }
        if result.report.verdict == .insufficientEvidence { printError("insufficient evidence: no rule could be evaluated.") }
        if result.report.exitCode != 0 { throw ExitCode(result.report.exitCode) }
    }

    /// The device and app a finding is of, as the audit's report groups them.
    static func place(_ f: Finding) -> String {
        (f.deviceName.map { $0 == f.device ? f.device : "\($0) (\(f.device))" } ?? f.device) + " · \(f.bundleId)\n"
    }

    /// A finding as the batch report names it: its device's name, its app's version (read
    /// from the store, as they stand when it is printed); as it is when they cannot be read.
    static func named(_ finding: Finding, database: String) -> Finding {
        guard let names = try? Store(path: database, access: .read).reportNames(for: [finding]) else { return finding }
        return names.named(finding)
    }
}
