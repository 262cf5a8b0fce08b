import Foundation
import Testing
@testable import LocAuditNormalise

/// The words a source row and the ingest summary count lines by are enums, so a misspelt
/// reason does not compile; the schema, which users' saved queries read, names every one.
@Suite struct VocabularyTests {
    static func schemaRow(_ column: String) throws -> String {
        let schema = try String(contentsOf: packageRoot.appendingPathComponent("docs/schema.md"), encoding: .utf8)
        return schema.split(separator: "\n").first { $0.hasPrefix("| `\(column)` |") }.map(String.init) ?? ""
    }

    @Test("docs/schema.md's sources.skipped names every skip reason the reader can count")
    func everySkipReasonDocumented() throws {
        let row = try Self.schemaRow("skipped")
        #expect(!row.isEmpty)
        for reason in SkipReason.allCases { #expect(row.contains("`\(reason.rawValue)`"), "\(reason.rawValue) is not in docs/schema.md") }
    }

    @Test("docs/schema.md's sources.notes names every note the reader can count")
    func everyNoteDocumented() throws {
        let row = try Self.schemaRow("notes")
        #expect(!row.isEmpty)
        for kind in NoteKind.allCases { #expect(row.contains("`\(kind.rawValue)`"), "\(kind.rawValue) is not in docs/schema.md") }
    }

    @Test("a skip and a note are counted under their stored spelling, with the first line of the skip")
    func countsUnderStoredSpelling() {
        var counts = ParseCounts()
        counts.skip(.badTimestamp, line: 7)
        counts.skip(.badTimestamp, line: 9)
        counts.note(.invalidUTF8)
        #expect(counts.skipped == ["bad-timestamp": 2] && counts.firstLine == ["bad-timestamp": 7])
        #expect(counts.notes == ["invalid-utf8": 1])
    }
}
