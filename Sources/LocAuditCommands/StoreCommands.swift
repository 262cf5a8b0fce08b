import ArgumentParser
import Foundation
import LocAuditAudit
import LocAuditCentral
import LocAuditModel
import LocAuditRead
import LocAuditStore

struct PruneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune",
        abstract: "Remove the raw events and sources of old logs; keep findings, sessions and audit runs.",
        // ArgumentParser does not wrap the synopsis: the long one is wider than a terminal.
        usage: "locaudit prune [<options>] --older-than <age>",
        discussion: """
            A log is old when its last line is older than --older-than (30d, 12h, 2w). Its \
            events and its row in sources go; findings keep their evidence as file and \
            line, sessions and audit runs stay. Pruning removes lines, not knowledge: what \
            the replay knew of each app on each device where its lines were cut is kept \
            (replay_checkpoints), and later audits start from it, so findings on later data \
            do not change; the sessions and findings of the pruned lines stay as they were, \
            marked evidence_pruned_at, and are never resolved. Audit runs started before the \
            cutoff, except the latest --keep-checks, lose their per-check detail (their \
            counts, coverage and findings stay; their JUnit report lists only their \
            findings). The database is then vacuumed and the bytes freed measured. Takes the \
            nightly run's lock (waits up to --wait seconds). The largest age is 100 years \
            (36500d).

            With --db postgresql://USER@HOST[:PORT]/DB (or $LOCAUDIT_DB), the central store's \
            (the owner's role): a log goes when the fleet's audit has settled every line of it \
            (each app's lines before its checkpoint, replay_checkpoints), so that later audits \
            count its sessions, checks and findings as before; logs with lines not yet settled \
            (an app's latest session, lines pushed since the last audit) stay, counted. Takes \
            turns with the fleet's audit (exit 4 while one runs; --wait is for the local lock).

            Exit codes: 0 pruned (or nothing to prune), 2 usage error, 3 no database (or a \
            checkpoint another version wrote), 4 a run holds the lock, 6 the store cannot be \
            used (cannot open it, not a locaudit store, damaged, read-only, disk full), 7 \
            standard output could not be written (the pruning is done), 8 the central store \
            cannot be used (unreachable, login or TLS refused, a privilege missing).

            EXAMPLES:
              # what cron runs weekly
              locaudit prune --older-than 30d
              # the rows and bytes removed, for a script
              locaudit prune --older-than 2w --json
              # the central store's history, after the fleet's audit (LOCAUDIT_CENTRAL=postgresql://USER@HOST/DB)
              locaudit prune --db "$LOCAUDIT_CENTRAL" --older-than 30d
            """
    )

    @OptionGroup var store: StoreOrCentralOptions

    @Option(help: ArgumentHelp("Age of the logs to remove: 30d, 12h, 2w.", valueName: "age"))
    var olderThan: String

    @Option(help: ArgumentHelp("Audit runs that keep their per-check detail whatever their age (the latest N).", valueName: "n"))
    var keepChecks: Int = Maintenance.defaultKeepChecks

    @Option(help: ArgumentHelp("Seconds to wait for a running `locaudit run` (0 to 86400).", valueName: "seconds"))
    var wait: Double = 60

    @Flag(help: "Print the result as JSON.")
    var json = false

    func validate() throws {
        do { _ = try Maintenance.parseAge(olderThan) } catch let error as AgeError {
            throw ValidationError("--older-than \(error.description)")
        }
        try validateWait(wait)
        if keepChecks < 0 { throw ValidationError("--keep-checks must be 0 or more.") }
    }

    func run() throws {
        if let central = store.central {
            let report = try withCentral {
                try CentralPrune.prune(central, olderThan: try Maintenance.parseAge(olderThan), keepChecks: keepChecks)
            }
            try Output.standardOutput(json ? try Output.json(report, what: "the prune summary") + "\n" : report.text)
            return
        }
        let report = try withStore(store.path) {
            // The store first: one that cannot be used is a store error (exit 6), not a lock error.
            _ = try Store(path: store.path, access: .write)
            let lock = try RunLock(database: store.path, wait: wait)
            defer { withExtendedLifetime(lock) {} }
            return try Maintenance.prune(database: store.path, olderThan: try Maintenance.parseAge(olderThan), keepChecks: keepChecks)
        }
        try Output.standardOutput(json ? try Output.json(report, what: "the prune summary") + "\n" : report.text)
    }
}

struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "The store's size, rows per table, devices, apps, iOS versions and time span.",
        discussion: """
            A read-only store is fine. With --db postgresql://USER@HOST[:PORT]/DB (or \
            $LOCAUDIT_DB), the central store's: its database size, the rows of the \
            locaudit schema's tables and views, and also the server's version and the \
            migrations applied (JSON keys server and migrations).

            Exit codes: 0 printed, 2 usage error, 3 no database, 6 the store cannot be used \
            (cannot open it, not a locaudit store, damaged), 7 standard output could not be \
            written, 8 the central store cannot be used (unreachable, login or TLS refused, \
            no locaudit schema).

            EXAMPLES:
              locaudit stats
              # for a script or a dashboard
              locaudit stats --json
            """
    )

    @OptionGroup var store: StoreOrCentralOptions

    @Flag(help: "Print the statistics as JSON.")
    var json = false

    func run() throws {
        if let central = store.central {
            let stats = try withCentral { try CentralStats.read(central) }
            try Output.standardOutput(json ? try Output.json(stats, what: "the statistics") + "\n" : stats.text)
            return
        }
        let stats = try withStore(store.path) { try Maintenance.stats(database: store.path) }
        try Output.standardOutput(json ? try Output.json(stats, what: "the statistics") + "\n" : stats.text)
    }
}
