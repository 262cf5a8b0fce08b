import Foundation
import GRDB

extension Store {
    /// Files moved (`run --archive`): their sources and the evidence of stored findings cite
    /// them where they are now, so that reports point at files that exist.
    package func relocate(_ moves: [(from: String, to: String)]) throws {
        guard !moves.isEmpty else { return }
        let to = Dictionary(moves.map { ($0.from, $0.to) }, uniquingKeysWith: { _, last in last })
        try connect().write { db in
            for (from, target) in to {
                try db.execute(sql: "UPDATE sources SET path = ? WHERE path = ?", arguments: [target, from])
            }
            for row in try Row.fetchAll(db, sql: "SELECT id, evidence FROM findings WHERE evidence_pruned_at IS NULL") {
                guard var evidence = (row["evidence"] as AuditRecorder.StoredEvidence?)?.value,
                      evidence.contains(where: { to[$0.file] != nil }) else { continue }
                for i in evidence.indices { evidence[i].file = to[evidence[i].file] ?? evidence[i].file }
                try db.execute(sql: "UPDATE findings SET evidence = ? WHERE id = ?", arguments: [jsonText(evidence), row["id"] as Int64])
            }
        }
    }
}
