import Foundation
import Testing
@testable import LocAuditCentral

/// The columns `push` reads are the ones docs/schema.md documents.
@Suite struct CentralColumnsTests {
    /// The column names of a table in docs/schema.md (`| \`name\`, \`other\` | meaning |` rows of its section).
    static func documented(_ table: String) throws -> Set<String> {
        let text = try String(contentsOf: packageRoot.appendingPathComponent("docs/schema.md"), encoding: .utf8)
        let start = try #require(text.range(of: "## `\(table)`"))
        let section = text[start.upperBound...].prefix { _ in true }
        var names = Set<String>()
        for line in section.split(separator: "\n").dropFirst() {
            if line.hasPrefix("## ") || line.hasPrefix("### ") { break }
            guard line.hasPrefix("| `") else { continue }
            let cell = line.dropFirst(2).prefix { $0 != "|" }
            for match in cell.matches(of: /`([a-z_0-9]+)`/) { names.insert(String(match.output.1)) }
        }
        return names
    }

    @Test("push reads the local store through the documented columns of docs/schema.md, by name")
    func pushReadsDocumentedColumns() throws {
        let tables: [(String, Pusher.Columns)] = [("devices", Pusher.deviceColumns), ("sources", Pusher.sourceColumns),
                                                  ("events", Pusher.eventColumns), ("sessions", Pusher.sessionColumns),
                                                  ("audit_runs", Pusher.runColumns), ("findings", Pusher.findingColumns)]
        for (table, columns) in tables {
            let documented = try Self.documented(table)
            #expect(documented.count > 3, "\(table)")
            let missing = Set(columns.map(\.name)).subtracting(documented)
            #expect(missing.isEmpty, "\(table): \(missing.sorted()) not documented")
        }
        // Every documented event column but the ids and the computed time is pushed.
        #expect(try Self.documented("events").subtracting(Pusher.eventColumns.map(\.name)) == ["id", "source_id", "time"])
    }
}
