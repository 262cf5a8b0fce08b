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

    /// The lines every finding cites, by event id: one statement for them all.
    public static func load(_ db: Database, for findings: [Finding]) throws -> [Int64: EvidenceText] {
        let ids = Set(findings.flatMap { $0.evidence.compactMap(\.event) })
        guard !ids.isEmpty else { return [:] }
        var texts: [Int64: EvidenceText] = [:]
        for row in try Row.fetchAll(db, sql: """
            SELECT events.id, sources.path, events.line, events.time_us, events.message
            FROM events JOIN sources ON sources.id = events.source_id WHERE events.id IN (SELECT value FROM json_each(?))
            """, arguments: [jsonText(ids.sorted())]) {
            let id: Int64 = row["id"]
            texts[id] = EvidenceText(event: id, file: row["path"], line: row["line"], time: Timestamps.isoUTC(row["time_us"]), message: row["message"])
        }
        return texts
    }
}
