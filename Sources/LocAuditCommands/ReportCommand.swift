import ArgumentParser
import Foundation
import LocAuditKit

struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Render the findings of a recorded audit run (default: the latest) without auditing again.",
        discussion: """
            Writes the same reports `locaudit audit` would have written for that run, from the
            database alone. Exit codes: 0 rendered, 2 usage error (also a report path
            that is the database or cannot be written), 3 no database or no such run,
            7 a report could not be written.
            """
    )

    @OptionGroup var store: StoreOptions

    @Option(name: .customLong("run"), help: ArgumentHelp("The audit run (an id from audit_runs; default: the latest).", valueName: "id"))
    var runId: Int64?

    @OptionGroup var reporting: ReportFlags

    func validate() throws {
        try reporting.validate(database: Store.defaultPath(store.db))
    }

    func run() throws {
        let path = Store.defaultPath(store.db)
        do {
            guard FileManager.default.fileExists(atPath: path) else { throw AuditError.databaseMissing(path) }
            let store = try Store(path: path)
            try reporting.write(try AuditReport.stored(in: store, run: runId), store: store)
        } catch let error as AuditError {
            printError(error.description)
            throw ExitCode(error.exitCode)
        }
    }
}
