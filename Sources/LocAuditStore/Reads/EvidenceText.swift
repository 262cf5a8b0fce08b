import GRDB
import LocAuditModel
import LocAuditRules

extension EvidenceText {
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
