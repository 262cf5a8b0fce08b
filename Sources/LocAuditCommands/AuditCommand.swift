import ArgumentParser
import Foundation
import LocAuditAudit
import LocAuditCentral
import LocAuditModel
import LocAuditRules
import LocAuditRead
import LocAuditReport
import LocAuditStore

extension Severity: ExpressibleByArgument {}
extension OutputFormat: ExpressibleByArgument {}

struct AuditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Replay every app session against the rules model and report findings.",
        discussion: """
            Sessions are rebuilt from the stored events (one per app process) and replayed \
            in time order per app and device; every rule of `locaudit rules` is checked. \
            Findings go to the `findings` table and the report; each run is recorded in \
            `audit_runs`, and the report says which findings are new, persisting and \
            resolved since the previous run. Re-auditing an unchanged database gives the \
            same findings.

            A rule that cannot be evaluated (unknown iOS version, <private> locations, no \
            Info.plist) is counted as not evaluable; an audit with nothing evaluable is \
            "insufficient evidence", never a pass.

            On a terminal, a progress bar on stderr shows the events read and the sessions \
            checked (none with --quiet or when stderr is not a terminal).

            With --db postgresql://USER@HOST[:PORT]/DB, the fleet's audit: every host's \
            pushed events audited together (copied into a temporary file in $TMPDIR, then \
            the run, its findings and sessions written back; the owner's role). The \
            password as for `push` (docs/many-hosts.md).

            Exit codes: 0 nothing at or above --fail-on, 1 findings at or above --fail-on, \
            2 usage error (also a report path that is the database or cannot be written), \
            3 database missing or insufficient evidence, 6 the store cannot be used (cannot \
            open it, not a locaudit store, damaged, read-only, disk full), 7 a report could \
            not be written (the audit is recorded: `locaudit report` writes it again); \
            with --db postgresql://: 4 another central audit is running, 8 the central \
            store cannot be used (unreachable, login or TLS refused, a privilege missing).

            EXAMPLES:
              # every session, the text report on the terminal
              locaudit audit
              # one app, failing on medium findings too, as a page and for CI
              locaudit audit --app com.example.weather --fail-on medium \\
                  --report html:audit.html --report junit:junit.xml
              # accept today's findings, then report only new ones
              locaudit audit --write-baseline baseline.json
              locaudit audit --baseline baseline.json
            """
    )

    @OptionGroup var store: StoreOrCentralOptions

    @Option(help: ArgumentHelp("Only this device: its UDID, or its name when no other device has it.", valueName: "device"))
    var device: String?

    @Option(help: ArgumentHelp("Only this app.", valueName: "bundle-id"))
    var app: String?

    @Option(help: ArgumentHelp("Only findings at or after this time (ISO 8601; no zone = UTC).", valueName: "time"))
    var since: String?

    @Option(help: ArgumentHelp("Only findings at or before this time.", valueName: "time"))
    var until: String?

    @Option(name: .customLong("rule"), help: ArgumentHelp("Only this rule; repeatable.", valueName: "id"), completion: Complete.rules)
    var rules: [String] = []

    @Option(name: .customLong("skip-rule"), help: ArgumentHelp("Not this rule; repeatable.", valueName: "id"), completion: Complete.rules)
    var skipRules: [String] = []

    @OptionGroup var threshold: FailOnOption

    @Option(help: ArgumentHelp("Hide the findings of this baseline file.", valueName: "file"), completion: .file(extensions: ["json"]))
    var baseline: String?

    @Option(help: ArgumentHelp("Save the findings of this run as a baseline.", valueName: "file"), completion: .file(extensions: ["json"]))
    var writeBaseline: String?

    @OptionGroup var reporting: ReportFlags

    @Option(help: ArgumentHelp("Horizontal accuracy (m) under which a delivery is precise (default: 1000).", valueName: "metres"))
    var reducedAccuracyFloor: Double?

    @Option(help: ArgumentHelp("Seconds an app stays in use after it leaves the foreground (default: 10; Apple documents a short grace, not its length).", valueName: "seconds"))
    var backgroundGrace: Double?

    @OptionGroup var configuration: ConfigOptions

    @Option(help: ArgumentHelp("Exit 3 unless these rules (comma-separated, or all) were evaluated everywhere they apply.", valueName: "all|rule,..."))
    var requireEvidence: String?

    /// `--require-evidence`, split.
    var requiredRules: [String]? {
        requireEvidence.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
    }

    @Flag(help: "No report and no progress bar; the findings are still recorded and the exit code still says how it went.")
    var quiet = false

    @Flag(help: "Explore: report the audit and write nothing to the store (no run, no findings, no sessions).")
    var noRecord = false

    func validate() throws {
        if let since, AuditOptions.parseTime(since) == nil {
            throw ValidationError("--since '\(since)' is not a time; use 2026-11-20 or 2026-11-20T10:00:00Z.")
        }
        if let until, AuditOptions.parseTime(until) == nil {
            throw ValidationError("--until '\(until)' is not a time; use 2026-11-20 or 2026-11-20T10:00:00Z.")
        }
        let known = Set(RuleRegistry.descriptions.map(\.identifier))
        let unknown = (rules + skipRules + (requiredRules ?? []).filter { $0 != "all" }).filter { !known.contains($0) }
        if !unknown.isEmpty {
            throw ValidationError("Unknown rule \(unknown.map { "'\($0)'" }.joined(separator: ", ")); `locaudit rules` lists them.")
        }
        if let backgroundGrace, !(backgroundGrace.isFinite && backgroundGrace >= 0 && backgroundGrace <= 86_400) {
            throw ValidationError("--background-grace takes seconds from 0 to 86400 (got \(backgroundGrace)).")
        }
        if let required = requiredRules, required.isEmpty {
            throw ValidationError("--require-evidence takes all or rule ids separated by commas.")
        }
        if let reducedAccuracyFloor, !(reducedAccuracyFloor.isFinite && reducedAccuracyFloor > 0) {
            throw ValidationError("--reduced-accuracy-floor takes a positive number of metres (got \(reducedAccuracyFloor)).")
        }
        try requirePath(baseline, "--baseline", "a file (one --write-baseline wrote)")
        try requireText(device, "--device", "a device id (its UDID or name)")
        try requireText(app, "--app", "a bundle id")
        let database = Store.defaultPath(store.db)
        try reporting.validate(database: database)

        if let writeBaseline, let problem = Output.problem(writing: writeBaseline, database: database) {
            throw ValidationError("--write-baseline: " + problem)
        }
    }

    func run() throws {
        let config = try configuration.load()
        let requests = try withConfig { try reporting.requests(config: config) }
        try reporting.validate(database: Store.defaultPath(store.db), requests: requests)
        if noRecord, let fleet = requests.first(where: { $0.format == .fleet || $0.format == .fleetHTML }) {
            throw ValidationError("--no-record: the \(fleet.format.rawValue) report shows recorded runs; record this audit, or drop that report.")
        }
        var options = AuditOptions()
        options.device = device
        options.bundleId = app
        options.sinceUS = since.flatMap(AuditOptions.parseTime)
        options.untilUS = until.flatMap(AuditOptions.parseTime)
        options.rules = rules
        options.skipRules = skipRules + (config?.skipRules ?? [])
        options.failOn = threshold.severity(config)
        options.baseline = baseline
        options.writeBaseline = writeBaseline
        options.settings = RuleSettings(reducedAccuracyFloor: reducedAccuracyFloor ?? config?.reducedAccuracyFloor ?? 1000,
                                        backgroundGrace: backgroundGrace ?? config?.backgroundGrace ?? 10)
        options.suppressions = config?.suppressions ?? []
        options.requireEvidence = requiredRules
        options.record = !noRecord
        let report: AuditReport
        if let central = store.central {
            report = try withCentral {
                try CentralAudit.audit(central, options: options, progress: ProgressBar(quiet: quiet)) { report, replica in
                    if !quiet { try reporting.write(report, store: replica, requests: requests) }
                }
            }
        } else {
            report = try withStore(store.path) {
                let report = try Auditor(databasePath: store.path, options: options).run(progress: ProgressBar(quiet: quiet))
                if !quiet { try reporting.write(report, store: try Store(path: store.path, access: .read), requests: requests) }
                return report
            }
        }
        if report.verdict == .insufficientEvidence { printError("insufficient evidence: no rule could be evaluated.") }
        let left = report.unevaluatedRequired
        if !left.isEmpty {
            printError("--require-evidence: \(left.map { "'\($0)'" }.joined(separator: ", ")) left unevaluated somewhere (the coverage says why).")
        }
        if report.exitCode != 0 { throw ExitCode(report.exitCode) }
    }
}
