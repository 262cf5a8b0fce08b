import GRDB
import LocAuditModel

/// A log line a finding cites, as reports quote it: where it is and what it says.
public struct EvidenceText: Sendable, Equatable {
    public var event: Int64
    public var file: String
    public var line: Int
    /// ISO 8601 UTC.
    public var time: String
    /// The message as logged (coordinates included: reporters mask them).
    public var message: String

    public init(event: Int64, file: String, line: Int, time: String, message: String) {
        self.event = event
        self.file = file
        self.line = line
        self.time = time
        self.message = message
    }

    /// The lines every finding cites, by event id.
    public static func load(_ db: Database, for findings: [Finding]) throws -> [Int64: EvidenceText] {
        let statement = try db.makeStatement(sql: """
            SELECT sources.path, events.line, events.time_us, events.message
            FROM events JOIN sources ON sources.id = events.source_id WHERE events.id = ?
            """)
        var texts: [Int64: EvidenceText] = [:]
        for id in Set(findings.flatMap { $0.evidence.compactMap(\.event) }) {
            guard let row = try Row.fetchOne(statement, arguments: [id]) else { continue }
            texts[id] = EvidenceText(event: id, file: row[0], line: row[1], time: Timestamps.isoUTC(row[2]), message: row[3])
        }
        return texts
    }
}
