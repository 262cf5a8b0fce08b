import ArgumentParser
import LocAuditCentral
import Foundation
import Logging
import LocAuditAudit
import LocAuditIngest
import LocAuditModel
import LocAuditNormalise
import LocAuditReport
import LocAuditStore

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "The nightly run: ingest what is new in an inbox, audit what it touches, report, archive.",
        discussion: """
            Every file of the inbox whose content is not stored yet is ingested (with \
            --jobs files at once); then only the devices and apps the new data mentions \
            are audited (a new Info.plist: its app on every device), the reports are \
            written and, with --archive, every file now in the store moves there under the \
            same relative path (a failed file stays, and so does a log that ends inside a \
            line: its last line is held back, as in ingest, unless --complete). A file that \
            fails the same way on three nights moves to INBOX/failed/ with a .why text beside \
            it (nothing there is read; INBOX/.locaudit-failures counts the nights). A file \
            that is no log at all (a README, an HTML page, a zip, a PDF, an image) is listed \
            as ignored, with the reason, and left where it is. A run with nothing new says so \
            and does nothing else. Device facts come from a sidecar \
            (NAME-DATE.ideviceinfo.txt) else from --inventory (a CSV \
            udid,name,product_type,os_version[,time_zone]; a log matches the row whose \
            name, else UDID, is its file name's part before -YYYY-MM-DD). A log whose \
            lines carry no zone is read in its device's zone (the sidecar's TimeZone, the \
            inventory's time_zone), else in --tz, else in UTC (and the report says so).

            A file modified less than --settle seconds ago (default 60) is still being \
            written: it is left for the next run with its sidecar, and the report and a \
            log line say so.

            A lock (DB.lock beside the database) keeps runs from overlapping: a second run \
            waits up to --wait seconds, then gives up with exit 4.

            Logs go to stderr (--quiet: warnings and errors only; --verbose: every file). \
            On a terminal, a progress bar on stderr shows the bytes and files read, then \
            the events and sessions audited (none with --quiet or when stderr is not a \
            terminal). Without --report, the text report goes to standard output.

            Exit codes: 0 nothing at or above --fail-on (or nothing new), 1 findings at or \
            above --fail-on, 2 usage error (also a report path that is the database or \
            cannot be written), 3 insufficient evidence, 4 another run holds the lock, \
            5 some file failed to ingest (the others were stored, audited and reported), \
            6 the store cannot be used (cannot create or open it, not a locaudit store, \
            damaged, read-only, disk full), 7 a report could not be written (the run is \
            stored and archived: `locaudit report` writes it again), 8 --push-to failed: \
            the central store cannot be used (the run is stored locally; `locaudit push` \
            copies it once fixed), whatever the run found (its own code is logged).

            EXAMPLES:
              # tonight's exports: ingest, audit, report, archive
              locaudit run --inbox inbox --archive archive --report html:audit.html
              # from cron: silent on a good night, reports kept in reports/
              locaudit run --quiet --inbox inbox --archive archive \\
                  --inventory inventory.csv --report text:reports/latest.txt \\
                  --report fleet-html:reports/fleet.html
            """
    )

    @OptionGroup var store: StoreOptions

    @Option(help: ArgumentHelp("The folder the day's exports land in.", valueName: "dir"), completion: .directory)
    var inbox: String

    @Option(help: ArgumentHelp("Device facts for logs without a sidecar: CSV udid,name,product_type,os_version[,time_zone].", valueName: "file"), completion: .file(extensions: ["csv"]))
    var inventory: String?

    @Option(help: ArgumentHelp("Move ingested and already-ingested files here, keeping their path under the inbox.", valueName: "dir"), completion: .directory)
    var archive: String?

    /// The same report flags as `audit` and `report`; the text report starts with the run's summary.
    @OptionGroup var reporting: ReportFlags

    @OptionGroup var threshold: FailOnOption

    @OptionGroup var configuration: ConfigOptions

    @Option(help: ArgumentHelp("Files read at once (default: half the cores, at least 1: one file keeps two busy).", valueName: "n"))
    var jobs: Int = IngestOptions.defaultJobs

    @Option(name: .customLong("catalog"), help: ArgumentHelp("A message catalog file over the built-in one; repeatable.", valueName: "file"))
    var catalogFiles: [String] = []

    @Option(help: ArgumentHelp("Seconds to wait for another run's lock before exiting 4 (0 to 86400).", valueName: "seconds"))
    var wait: Double = 60

    @Option(help: ArgumentHelp("Leave a file modified less than this many seconds ago (still being written) for the next run, with its sidecar; 0 reads everything at once.", valueName: "seconds"))
    var settle: Double = 60

    @Option(help: ArgumentHelp("Day of the first line of the inbox's logs with times of day only (Console copies; default: the date in each file's name, else its modification time).", valueName: "yyyy-mm-dd"))
    var date: String?

    @Option(help: ArgumentHelp("Time zone of zone-less logs whose device has none (sidecar or inventory time_zone win), e.g. Europe/Paris (default: UTC, and the report says so).", valueName: "zone"))
    var tz: String?

    @Flag(help: "The inbox's files are whole: read a last line that has no newline (by default it is held back, as in ingest).")
    var complete = false

    @Flag(help: "Log warnings and errors only, no progress bar; no report on standard output unless asked with --report.")
    var quiet = false

    @Option(help: ArgumentHelp("After the run, push the store to this central PostgreSQL store (as `locaudit push --to`).", valueName: "url"))
    var pushTo: String?

    @Flag(help: "Log every file and step.")
    var verbose = false

    func validate() throws {
        if quiet && verbose { throw ValidationError("--quiet and --verbose exclude each other.") }
        try requirePath(inbox, "--inbox", "a folder (where the day's exports land)")
        try requirePath(archive, "--archive", "a folder (where ingested files go)")
        try requirePath(inventory, "--inventory", "a file (CSV udid,name,product_type,os_version)")
        try requirePath(catalogFiles, "--catalog", "a file (a message catalog)")
        if jobs < 1 { throw ValidationError("--jobs must be at least 1.") }
        try validateWait(wait)
        if !(settle >= 0 && settle.isFinite) { throw ValidationError("--settle must be a number of seconds, 0 or more.") }
        try validateDate(date)
        if let tz, TimeZone(identifier: tz) == nil {
            throw ValidationError("Unknown time zone '\(tz)'; use a name like Europe/Paris or UTC.")
        }
        try reporting.validate(database: store.path)
        if let pushTo { do { _ = try CentralURL(pushTo) } catch let error as CentralError { throw ValidationError(error.description) } }
    }

    func run() throws {
        let logger = makeLogger(quiet: quiet, verbose: verbose)
        let config = try configuration.load()
        let configured = try withConfig { try reporting.requests(config: config) }
        try reporting.validate(database: store.path, requests: configured)
        var options = RunOptions(inbox: inbox, database: store.path)
        options.archive = archive
        options.failOn = threshold.severity(config)
        if let config { options.audit = config.auditOptions }
        options.jobs = jobs
        options.catalogFiles = CatalogLocation.files(explicit: catalogFiles)
        options.lockWait = wait
        options.complete = complete
        options.settle = settle
        options.date = date.flatMap(CivilDate.init)
        options.timeZone = tz.flatMap(TimeZone.init(identifier:))
        options.progress = !quiet
        do {
            options.inventory = try inventory.map(Inventory.read)
        } catch let error as InventoryError {
            printError(error.description)
            throw ExitCode(2)
        }
        let report = try withStore(options.database, tell: { logger.critical("\($0)") }) {
            let report = try NightlyRun(options: options, logger: logger).run()
            let requests = reporting.reports.isEmpty && config?.reports.isEmpty != false && quiet ? [] : configured
            let inputs = try Store(path: options.database, access: .read)
                .reportInputs(for: report, options: reporting.options, needs: ReportRequest.needs(requests))
            try ReportRequest.write(requests, run: report, options: reporting.options, inputs: inputs)
            return report
        }
        if let pushTo {
            do {
                let pushed = try push(database: options.database, to: pushTo, tell: { logger.critical("\($0)") })
                logger.notice("\(pushed.text.split(separator: "\n").first ?? "")")
            } catch let code as ExitCode {
                logger.notice("exit \(code.rawValue) (the run itself: \(report.exitCode))")
                throw code
            }
        }
        logger.notice("exit \(report.exitCode)")
        if report.exitCode != 0 { throw ExitCode(report.exitCode) }
    }
}

/// Logs to stderr with levels: notice by default, warnings with --quiet, everything with --verbose.
func makeLogger(quiet: Bool, verbose: Bool) -> Logger {
    var logger = Logger(label: "locaudit") { StreamLogHandler.standardError(label: $0) }
    logger.logLevel = quiet ? .warning : (verbose ? .debug : .info)
    return logger
}
