import ArgumentParser
import Foundation
import LocAuditAudit
import LocAuditCentral
import LocAuditModel
import LocAuditRules
import LocAuditNormalise
import LocAuditRead
import LocAuditStore

/// The `locaudit` command: subcommands map flags to LocAuditKit calls, nothing more.
public struct LocAudit: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "locaudit",
        abstract: "Audit iOS location authorization and delivery in device logs.",
        discussion: """
            Ingest gzipped device log exports into SQLite, then audit every app session \
            against what iOS promises about location, version by version, and report.

            Exit codes (each command's help says more): 0 success; 1 findings at or above \
            --fail-on, or something failed; 2 usage error; 3 nothing to read, no database, or \
            insufficient evidence; 4 another run holds the lock (run, prune); 5 some input file \
            failed in a run (the others were stored and audited); 6 the store cannot be used \
            (cannot open or create it, not a locaudit store, damaged, read-only, disk full); \
            7 a report or standard output could not be written (what was stored stays); \
            8 the central store cannot be used (push).

            Shell completion: locaudit --generate-completion-script bash, zsh or fish prints \
            a script for that shell (README.md, Help and shell completion, says where to put it).

            EXAMPLES:
              # the bundled samples into ./locaudit.sqlite, then their audit as a page
              locaudit ingest samples/apps samples/logs samples/audit
              locaudit audit --report html:audit.html
              # bash completion for this user (bash-completion loads it in new shells)
              mkdir -p ~/.local/share/bash-completion/completions
              locaudit --generate-completion-script bash \\
                  > ~/.local/share/bash-completion/completions/locaudit
            """,
        version: LocAuditVersion.current,
        subcommands: [IngestCommand.self, AuditCommand.self, ReportCommand.self, RulesCommand.self, QueryCommand.self, CatalogCommand.self,
                      RunCommand.self, CaptureCommand.self, PruneCommand.self, StatsCommand.self, DevicesCommand.self, WatchCommand.self, PushCommand.self]
    )

    public init() {}

    /// Runs the command line; usage errors exit with 2 (documented), not ArgumentParser's 64,
    /// output that cannot be written with 7. A reader that closes standard output early
    /// (`| head`) gets no SIGPIPE: the output ends quietly (see `Output.standardOutput`).
    public static func runMain(_ arguments: [String]? = nil) -> Never {
        signal(SIGPIPE, SIG_IGN)
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
            Foundation.exit(0)
        } catch let code as ExitCode {
            Foundation.exit(code.rawValue)
        } catch let error as OutputError {
            printError(error.description)
            Foundation.exit(OutputError.exitCode)
        } catch {
            let code = exitCode(for: error)
            if code == .success {   // --help, --version: what they print is output like any other
                do {
                    try Output.standardOutput(fullMessage(for: error) + "\n")
                } catch {
                    printError("\(error)")
                    Foundation.exit(OutputError.exitCode)
                }
                Foundation.exit(0)
            }
            if code == .validationFailure {
                Output.standardError(didYouMean(fullMessage(for: error), arguments ?? Array(CommandLine.arguments.dropFirst())) + "\n")
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}

extension LocAudit {
    /// ArgumentParser's "Unexpected argument 'audt'" followed by the nearest subcommands of the
    /// command the arguments reached (it suggests options itself, not subcommands).
    static func didYouMean(_ message: String, _ arguments: [String]) -> String {
        var command: ParsableCommand.Type = LocAudit.self
        for argument in arguments where !argument.hasPrefix("-") {
            let subcommands = command.configuration.subcommands
            if let next = subcommands.first(where: { $0._commandName == argument }) {
                command = next
                continue
            }
            let nearest = Nearest.names(to: argument, among: subcommands.map { $0._commandName })
            var lines = message.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            guard !nearest.isEmpty, let first = lines.first, first.contains("'\(argument)'") else { return message }
            lines[0] = first + Nearest.suggestion(nearest)
            return lines.joined(separator: "\n")
        }
        return message
    }
}

/// Options every command that opens the store shares.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The database (default: $LOCAUDIT_DB, else ./locaudit.sqlite).", valueName: "path"), completion: Complete.database)
    var db: String?

    func validate() throws {
        if db?.isEmpty == true { throw ValidationError("--db needs the path of the database file, not an empty string.") }
        if CentralURL.isURL(path) {
            throw ValidationError("\(db == nil ? "$LOCAUDIT_DB" : "--db") \(CentralURL.redacted(path)) is a central store, which audit, report, query and stats read; "
                                  + "this command works on a local SQLite file: give its path (locaudit push copies it to the central store).")
        }
    }

    var path: String { Store.defaultPath(db) }
}

/// The store of `audit`, `report`, `query` and `stats`: a SQLite file, or the central
/// PostgreSQL store (`--db postgresql://…`).
struct StoreOrCentralOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The database: a SQLite file, or postgresql://USER@HOST[:PORT]/DB for the central store (default: $LOCAUDIT_DB, else ./locaudit.sqlite).",
        valueName: "path|url"), completion: Complete.database)
    var db: String?

    func validate() throws {
        if db?.isEmpty == true { throw ValidationError("--db needs the path of the database file, not an empty string.") }
        if CentralURL.isURL(path) {
            do { _ = try CentralURL(path, flag: "--db") } catch let error as CentralError { throw ValidationError(error.description) }
        }
    }

    var path: String { Store.defaultPath(db) }
    /// The central store, when `--db` (or `$LOCAUDIT_DB`) is a postgresql:// URL.
    var central: CentralURL? { CentralURL.isURL(path) ? try? CentralURL(path, flag: "--db") : nil }
}

/// A failure the library tells in one sentence that says what to do, with its exit code.
protocol ToldFailure: Error, CustomStringConvertible {
    var exitCode: Int32 { get }
}

extension StoreError: ToldFailure {}
extension AuditError: ToldFailure {}
extension RunError: ToldFailure {}
extension WatchError: ToldFailure {}
extension CentralError: ToldFailure {}
/// A catalog that cannot be used is a usage error, for `ingest` and `run` alike.
extension CatalogError: ToldFailure { var exitCode: Int32 { 2 } }
/// A query that cannot run exits 1.
extension QueryError: ToldFailure { var exitCode: Int32 { 1 } }

/// Runs a command's work on the store at `path`. A store that cannot be used, an audit, a run,
/// a catalog or a query that cannot go on, is told in one sentence that names it and says what
/// to do, and exits with its code: 3 no database, 6 the store cannot be used, and the others'.
func withStore<T>(_ path: String, tell: (String) -> Void = printError, _ body: () throws -> T) throws -> T {
    do {
        return try StoreError.mapping(path: path, body)
    } catch let error as any ToldFailure {
        tell(error.description)
        throw ExitCode(error.exitCode)
    }
}

/// Runs a command's work on the central store: a failure is told in one sentence, with its
/// exit code (8 the central store cannot be used, 4 another central audit runs, and the others').
func withCentral<T>(tell: (String) -> Void = printError, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as any ToldFailure {
        tell(error.description)
        throw ExitCode(error.exitCode)
    }
}

/// An option that names something (a device, an app) takes a non-blank value.
func requireText(_ value: String?, _ option: String, _ what: String) throws {
    if let value, value.trimmingCharacters(in: .whitespaces).isEmpty {
        throw ValidationError("\(option) needs \(what), not an empty string.")
    }
}

/// An option that names a file or folder takes a path: an empty one is not "the current folder".
func requirePath(_ values: [String], _ option: String, _ what: String) throws {
    if values.contains("") { throw ValidationError("\(option) needs \(what), not an empty string.") }
}

func requirePath(_ value: String?, _ option: String, _ what: String) throws {
    try requirePath(value.map { [$0] } ?? [], option, what)
}

/// `--wait` of `run` and `prune`: at most a day (a finite number of seconds that fits every clock).
func validateWait(_ wait: Double) throws {
    if !(0...86_400).contains(wait) { throw ValidationError("--wait takes 0 to 86400 seconds (a day); got \(wait).") }
}

func printError(_ message: String) {
    Output.standardError("locaudit: " + message + "\n")
}

/// `--date` of `ingest` and `run`: a real day, `YYYY-MM-DD`.
func validateDate(_ date: String?) throws {
    if let date, CivilDate(date) == nil {
        throw ValidationError("--date takes a day as YYYY-MM-DD (1970 to 9999), e.g. 2026-11-20; got '\(date)'.")
    }
}
