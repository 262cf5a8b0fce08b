import ArgumentParser
import Foundation
import LocAuditIngest
import LocAuditModel
import LocAuditNormalise
import LocAuditRead
import LocAuditStore

extension Container: ExpressibleByArgument {}

struct IngestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest",
        abstract: "Read device log exports into the database.",
        discussion: """
            PATH may be a file, a directory (read recursively) or - for standard input; gzip \
            (one or several members) or plain text, and the container are detected from the \
            bytes. Info.plists and ideviceinfo outputs among the paths are read as app and \
            device facts; a log's device facts are also read from a sidecar file beside it \
            (LOG-STEM.ideviceinfo.txt).

            A file is stored wholly or not at all; a file whose content is already in the \
            database is skipped. A plain file (or standard input) that ends without a \
            newline may still be being written: its last line (with the record it \
            continues) is held back, counted as incomplete, unless --complete; ingesting \
            the grown file later adds only what is missing. A gzip file whose last member \
            has its trailer, and a --style json array, are known whole.

            On a terminal, a progress bar on stderr shows the bytes and files read (none \
            with --quiet or when stderr is not a terminal).

            Exit codes: 0 every file stored or already there, 1 some file failed (the \
            others are stored), 2 usage error, 3 nothing to read, 6 the store cannot be \
            used (cannot create or open it, not a locaudit store, damaged, read-only, disk \
            full: the files stored before it stay), 7 standard output could not be written \
            (what was read is stored).

            EXAMPLES:
              # the bundled samples (Info.plists, logs and their sidecars)
              locaudit ingest samples/apps samples/logs samples/audit
              # one export into another database, with its device's facts given
              locaudit ingest --db demo.sqlite --device qa-iphone7 --os 10.3.3 \\
                  samples/logs/qa-iphone7-10-2026-11-20.log.gz
              # a whole log from a pipe
              gzip -dc samples/logs/qa-iphone6-8-2026-11-20.log.gz \\
                  | locaudit ingest --complete -
            """
    )

    @OptionGroup var store: StoreOptions

    @OptionGroup var source: LogSourceOptions

    @Option(name: .customLong("info-plist"), help: ArgumentHelp("An app's Info.plist (XML or binary); repeatable.", valueName: "file"))
    var infoPlists: [String] = []

    @Option(help: ArgumentHelp("Year of the first line, for logs without years (default: from the file's date).", valueName: "yyyy"))
    var year: Int?

    @Option(help: ArgumentHelp("Day of the first line, for logs with times of day only (Console copies; default: the date in the file's name, else its modification time).", valueName: "yyyy-mm-dd"))
    var date: String?

    @Option(help: ArgumentHelp("Files read at once (default: half the cores, at least 1: one file keeps two busy).", valueName: "n"))
    var jobs: Int?

    @Flag(help: "The files are whole: read a last line that has no newline (by default it is held back as still being written).")
    var complete = false

    @Flag(help: "No progress bar and no summary; errors still go to stderr.")
    var quiet = false

    @Flag(help: "Print the summary as JSON on stdout.")
    var json = false

    @Argument(help: ArgumentHelp("Files, directories or - (standard input).", valueName: "path"), completion: .file())
    var paths: [String] = []

    func validate() throws {
        if paths.isEmpty && infoPlists.isEmpty && source.deviceInfo == nil {
            throw ValidationError("Give at least one PATH to ingest (a file, a directory, or - for standard input).")
        }
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1.") }
        try validateDate(date)
        if let year, !(1970...2100).contains(year) { throw ValidationError("--year takes 1970 to 2100 (got \(year)).") }
        try requirePath(infoPlists, "--info-plist", "a file (an app's Info.plist)")
        if paths.contains("") { throw ValidationError("a PATH to ingest cannot be empty; give a file, a directory, or - for standard input.") }
    }

    func run() throws {
        // `--device-info FILE` alone: the device's facts, read as any ideviceinfo file is.
        var options = IngestOptions(paths: paths.isEmpty && infoPlists.isEmpty ? source.deviceInfo.map { [$0] } ?? [] : paths)
        options.device = try source.facts()
        options.infoPlists = infoPlists
        options.parse = ParseOptions(year: year, zone: source.zone, date: date.flatMap(CivilDate.init))
        options.catalogFiles = source.catalogFiles
        options.format = source.chosenContainer
        if let jobs { options.jobs = jobs }
        options.complete = complete
        options.quiet = quiet || json

        let created = !FileManager.default.fileExists(atPath: store.path)
        var report = try withStore(store.path) {
            let ingester = try Ingester(store: try Store(path: store.path), options: options)
            return try ingester.run { file in
                if file.outcome == .failed, quiet || json { printError("\(file.path): \(file.error ?? "failed")") }
            }
        }
        // An ingest that stores nothing leaves no empty database behind.
        if created, report.files.allSatisfy({ $0.outcome == .failed }), Store.removeIfUnused(store.path) {
            report.noDatabaseWritten = true
        }
        if json {
            try Output.standardOutput(try Output.json(report, what: "the ingest summary") + "\n")
        } else if !quiet {
            try Output.standardOutput(report.text())
        }
        if report.exitCode == 3 { printError("nothing to read in \(paths.joined(separator: " ")).") }
        if report.exitCode != 0 { throw ExitCode(report.exitCode) }
    }
}
