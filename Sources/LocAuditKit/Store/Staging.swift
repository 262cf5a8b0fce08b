import Foundation
import GRDB

/// Collects one file's events in connection-private temporary tables while it is parsed,
/// so that parsing takes no lock on the store; `SourceCommit` then moves them in one
/// short transaction. A file is thereby stored wholly or not at all.
final class Staging: ParseSink {
    private let db: Database
    private let insertEvent: Statement
    private let insertLink: Statement
    private var arguments: [DatabaseValueConvertible?]

    static let eventColumns = ["line", "time_us", "time", "utc_offset", "process", "pid", "kind", "pattern"]
        + EventColumn.allCases.map(\.rawValue) + ["message", "fingerprint"]

    init(db: Database) throws {
        self.db = db
        try db.execute(sql: """
            DROP TABLE IF EXISTS temp.staged_events;
            DROP TABLE IF EXISTS temp.staged_links;
            CREATE TEMP TABLE staged_events (\(Staging.eventColumns.joined(separator: ", ")));
            CREATE TEMP TABLE staged_links (pid INTEGER NOT NULL, bundle_id TEXT NOT NULL, time_us INTEGER NOT NULL);
            """)
        insertEvent = try db.makeStatement(sql: """
            INSERT INTO temp.staged_events VALUES (\(Array(repeating: "?", count: Staging.eventColumns.count).joined(separator: ", ")))
            """)
        insertLink = try db.makeStatement(sql: "INSERT INTO temp.staged_links VALUES (?, ?, ?)")
        arguments = Array(repeating: nil, count: Staging.eventColumns.count)
    }

    func event(_ e: ParsedEvent) throws {
        arguments[0] = e.line
        arguments[1] = e.timeUS
        arguments[2] = Timestamps.isoUTC(e.timeUS)
        arguments[3] = e.offset.map { Int64($0) }
        arguments[4] = e.process
        arguments[5] = e.pid
        arguments[6] = e.event.kind.rawValue
        arguments[7] = e.event.pattern
        var i = 8
        for column in EventColumn.allCases {
            switch e.event[column] {
            case .text(let s)?: arguments[i] = s
            case .integer(let n)?: arguments[i] = n
            case .real(let d)?: arguments[i] = d
            case nil: arguments[i] = nil
            }
            i += 1
        }
        arguments[i] = e.message
        arguments[i + 1] = e.fingerprint
        try insertEvent.execute(arguments: StatementArguments(arguments))
    }

    func link(bundleId: String, pid: Int64, timeUS: Int64) throws {
        try insertLink.execute(arguments: [pid, bundleId, timeUS])
    }

    static func drop(_ db: Database) throws {
        try db.execute(sql: "DROP TABLE IF EXISTS temp.staged_events; DROP TABLE IF EXISTS temp.staged_links")
    }
}
