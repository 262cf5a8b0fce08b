import ArgumentParser
import Foundation
import LocAuditCentral
import LocAuditRead

struct PushCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push",
        abstract: "Copy what the central PostgreSQL store lacks from this host's store.",
        discussion: """
            Devices, app versions, sources with their events, sessions, audit runs and \
            findings the central store does not hold yet are copied, in batches; what it \
            holds (by content: a source's hash, an event's device, second and fingerprint, \
            a finding's fingerprint) is skipped, never doubled. A push cut at any point and \
            run again ends with each row once; several hosts may push at the same time. The \
            first push creates the central schema (locaudit.*), or run --migrate-only once \
            as the database's owner and give hosts a role that may only select and insert \
            (docs/many-hosts.md).

            The URL: postgresql://USER@HOST[:PORT]/DB, with ?sslmode=disable, prefer, \
            require (the default) or verify-full (with sslrootcert=PATH, the CA's \
            certificate), and ?host=/run/postgresql for a Unix socket. Never a password: \
            it comes from PGPASSWORD or ~/.pgpass (host:port:database:user:password, mode \
            0600), and is never printed.

            Exit codes: 0 pushed (or nothing to push), 2 usage error (a bad URL, a password \
            in it, a ~/.pgpass others may read), 3 no database, 6 the local store cannot \
            be used, 7 standard output could not be written, 8 the central store cannot \
            be used (unreachable, login or TLS refused, no schema or privilege): the \
            sentence names the server and what to do; push again once fixed.

            EXAMPLES:
              # LOCAUDIT_CENTRAL=postgresql://USER@HOST/DB, the password in ~/.pgpass:
              # once as the database's owner, then as each host every night
              locaudit push --migrate-only
              locaudit push
            """
    )

    @OptionGroup var store: StoreOptions

    @Option(help: ArgumentHelp("The central store, postgresql://USER@HOST[:PORT]/DB (default: $LOCAUDIT_CENTRAL).", valueName: "url"))
    var to: String?

    @Flag(help: "Create or upgrade the central schema, then stop (no local store needed).")
    var migrateOnly = false

    @Flag(help: "Print what was pushed as JSON.")
    var json = false

    func validate() throws {
        if let to { do { _ = try CentralURL(to) } catch let error as CentralError { throw ValidationError(error.description) } }
        if migrateOnly && json { throw ValidationError("--migrate-only prints no summary: leave out --json.") }
    }

    func run() throws {
        let report = try push(database: migrateOnly ? nil : store.path, to: to)
        try Output.standardOutput(json ? try Output.json(report, what: "the push summary") + "\n" : report.text)
    }
}

/// `push` and `run --push-to`: a failure is told in one sentence with its exit code.
func push(database: String?, to: String?, tell: (String) -> Void = printError) throws -> PushReport {
    do {
        let url = try CentralURL.resolve(to)
        if let database {
            return try withStore(database, tell: tell) { try CentralPush.push(database: database, to: url) }
        }
        return try CentralPush.push(database: nil, to: url)
    } catch let error as CentralError {
        tell(error.description)
        throw ExitCode(error.exitCode)
    }
}
