import ArgumentParser
import Foundation
import LocAuditCentral
import LocAuditAudit
import LocAuditModel
import LocAuditReport
import LocAuditRules
import LocAuditStore

struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Render the findings of a recorded audit run (default: the latest) without auditing again.",
        // ArgumentParser does not wrap the synopsis: the long one is wider than a terminal.
        usage: "locaudit report [<options>]",
        discussion: """
            Writes the same reports `locaudit audit` would have written for that run, from \
            the database alone; a read-only store is fine. --db postgresql://… renders a \
            run of the central store (its ids; a role that may only select is enough).

            Exit codes: 0 rendered, 2 usage error (also a report path that is the database \
            or cannot be written), 3 no database or no such run, 6 the store cannot be used \
            (cannot open it, not a locaudit store, damaged), 7 a report could not be written, \
            8 the central store cannot be used.

            EXAMPLES:
              # the latest run again, as a page and for a ticket
              locaudit report --report html:audit.html --report markdown:ticket.md
              # run 1, as JSON on standard output
              locaudit report --run 1 --format json
            """
    )

    @OptionGroup var store: StoreOrCentralOptions

    @Option(name: .customLong("run"), help: ArgumentHelp("The audit run (an id from audit_runs; default: the latest).", valueName: "id"))
    var runId: Int64?

    @OptionGroup var reporting: ReportFlags

    @OptionGroup var configuration: ConfigOptions

    func validate() throws {
        if let runId, runId < 1 { throw ValidationError("--run takes an audit run's id, 1 or more (got \(runId)).") }
        try reporting.validate(database: store.path)
    }

    /// The stored run's report; the project's suppressions (in force on the day of the run) marked again.
    func run() throws {
        let config = try configuration.load()
        let requests = try withConfig { try reporting.requests(config: config) }
        try reporting.validate(database: store.path, requests: requests)
        if let central = store.central {
            try withCentral {
                try CentralAudit.withReplica(central, events: ReportRequest.needs(requests).contains(.html)) { replica in
                    var report = try AuditReport.stored(in: replica, run: runId)
                    report.database = central.display
                    try replica.markSuppressed(&report, config?.suppressions ?? [])
                    try reporting.write(report, store: replica, requests: requests)
                }
            }
        } else {
            try withStore(store.path) {
                let store = try Store(path: store.path, access: .read)
                var report = try AuditReport.stored(in: store, run: runId)
                try store.markSuppressed(&report, config?.suppressions ?? [])
                try reporting.write(report, store: store, requests: requests)
            }
        }
    }
}
