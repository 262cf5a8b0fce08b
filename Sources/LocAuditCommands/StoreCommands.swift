import ArgumentParser
import Foundation
import LocAuditKit

struct PruneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune",
        abstract: "Remove the raw events and sources of old logs; keep findings, sessions and audit runs.",
        discussion: """
            A log is old when its last line is older than --older-than (30d, 12h, 2w). Its events
            and its row in sources go; findings keep their evidence as file and line, sessions
            and audit runs stay. Pruning removes lines, not knowledge: what the replay knew of
            each app on each device where its lines were cut is kept (replay_checkpoints), and
            later audits start from it, so findings on later data do not change; the sessions
            and findings of the pruned lines stay as they were, marked evidence_pruned_at, and
            are never resolved. Audit runs started before the cutoff, except the latest
            --keep-checks, lose their per-check detail (their counts, coverage and findings
            stay; their JUnit report lists only their findings). The database is then vacuumed
            and the bytes freed measured.
            Takes the nightly run's lock (waits up to --wait seconds).

            Exit codes: 0 pruned (or nothing to prune), 2 usage error, 3 no database (or a
            checkpoint another version wrote), 4 a run holds the lock.
            """
    )

    @OptionGroup var store: StoreOptions

    @Option(help: ArgumentHelp("Age of the logs to remove: 30d, 12h, 2w.", valueName: "age"))
    var olderThan: String

    @Option(help: ArgumentHelp("Audit runs that keep their per-check detail whatever their age (the latest N).", valueName: "n"))
    var keepChecks: Int = Maintenance.defaultKeepChecks

    @Option(help: ArgumentHelp("Seconds to wait for a running `locaudit run`.", valueName: "seconds"))
    var wait: Double = 60

    @Flag(help: "Print the result as JSON.")
    var json = false

    func validate() throws {
        if Maintenance.parseAge(olderThan) == nil { throw ValidationError("--older-than '\(olderThan)' is not an age; use 30d, 12h or 2w.") }
        if keepChecks < 0 { throw ValidationError("--keep-checks must be 0 or more.") }
    }

    func run() throws {
        let path = Store.defaultPath(store.db)
        guard FileManager.default.fileExists(atPath: path) else {
            printError(AuditError.databaseMissing(path).description)
            throw ExitCode(3)
        }
        let cutoff = Date().addingTimeInterval(-Maintenance.parseAge(olderThan)!)
        let report: PruneReport
        do {
            let lock = try RunLock(database: path, wait: wait)
            report = try Maintenance.prune(database: path, cutoffUS: Int64(cutoff.timeIntervalSince1970 * 1_000_000), keepChecks: keepChecks)
            withExtendedLifetime(lock) {}
        } catch let error as RunError {
            printError(error.description)
            throw ExitCode(error.exitCode)
        } catch let error as AuditError {
            printError(error.description)
            throw ExitCode(error.exitCode)
        }
        print(json ? jsonString(report) : report.text, terminator: json ? "\n" : "")
    }
}

struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "The store's size, rows per table, devices, apps, iOS versions and time span.",
        discussion: "Exit codes: 0 printed, 2 usage error, 3 no database."
    )

    @OptionGroup var store: StoreOptions

    @Flag(help: "Print the statistics as JSON.")
    var json = false

    func run() throws {
        let path = Store.defaultPath(store.db)
        guard FileManager.default.fileExists(atPath: path) else {
            printError(AuditError.databaseMissing(path).description)
            throw ExitCode(3)
        }
        let stats = try Maintenance.stats(database: path)
        print(json ? jsonString(stats) : stats.text, terminator: json ? "\n" : "")
    }
}

func jsonString<T: Encodable>(_ value: T) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
    return String(decoding: (try? encoder.encode(value)) ?? Data(), as: UTF8.self)
}
