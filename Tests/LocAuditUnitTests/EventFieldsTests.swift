import Foundation
import GRDB
import LocAuditModel
import LocAuditNormalise
import Testing
@testable import LocAuditCentral
@testable import LocAuditStore

/// `EventFields`, the one definition of a stored event field, against everything that must
/// agree with it: the SQLite migrations, the PostgreSQL migrations, docs/schema.md and the
/// catalog's columns. Adding a field where one of them is forgotten fails here.
@Suite struct EventFieldsTests {
    @Test("the SQLite store's events view has every field, in order, and event_rows keeps each stored one with its type")
    func sqliteMigrationsMatch() throws {
        let ws = try Workspace()
        _ = try Store(path: ws.store.path)
        try DatabaseQueue(path: ws.store.path).read { db in
            let view = try Row.fetchAll(db, sql: "PRAGMA table_info(events)").map { $0["name"] as String }
            #expect(view == EventFields.all.map(\.name))
            let rows = try Row.fetchAll(db, sql: "PRAGMA table_info(event_rows)")
            var declared: [String: (type: String, notNull: Bool)] = [:]
            for row in rows { declared[row["name"]] = ((row["type"] as String).uppercased(), row["notnull"] as Bool) }
            for field in EventFields.all {
                guard let column = field.rowColumn else { continue }
                let found = try #require(declared[column], "\(field.name): no column \(column) in event_rows")
                let expected = switch (field.type, field.storage) {
                case (_, .named), (.integer, _): "INTEGER"
                case (.real, _): "REAL"
                case (.text, _): "TEXT"
                case (.integerOrText, _): ""
                }
                #expect(found.type == expected, "\(field.name) (\(column)): \(found.type), not \(expected)")
                // A required field is NOT NULL where SQLite can say so (ALTER TABLE ADD COLUMN cannot).
                if !field.nullable, field.storage == .plain { #expect(found.notNull || column == "id", "\(column)") }
            }
            // Nothing in event_rows that no field names.
            let kept = Set(EventFields.all.compactMap(\.rowColumn))
            #expect(Set(declared.keys).subtracting(kept).isEmpty, "\(Set(declared.keys).subtracting(kept).sorted())")
        }
    }

    @Test("docs/schema.md documents exactly the fields of events")
    func documented() throws {
        #expect(try CentralColumnsTests.documented("events") == Set(EventFields.all.map(\.name)))
    }

    @Test("every catalog column fills exactly one field; the writer, the audit's read and the copies name only fields")
    func everyListDerives() {
        for column in EventColumn.allCases {
            #expect(EventFields.all.filter { $0.catalog == column }.count == 1, "\(column)")
        }
        let rowColumns = Set(EventFields.all.compactMap(\.rowColumn))
        #expect(Set(EventWriter.columns).isSubset(of: rowColumns))
        // The writer binds every kept column but the id SQLite assigns.
        #expect(Set(EventWriter.columns) == rowColumns.subtracting(["id"]))
        #expect(EventWriter.columns.count == Set(EventWriter.columns).count)
        #expect(ReadColumn.allCases.allSatisfy { $0.field.rowColumn != nil })
        #expect(AppEvent.selection.split(separator: ",").count + AppEvent.rareSelection.split(separator: ",").count
            == ReadColumn.allCases.count)
        #expect(StoreCopy.eventColumns == EventFields.all.filter { $0.name != "time" }.map(\.name))
        #expect(Pusher.eventColumns.map(\.name) == StoreCopy.eventColumns.filter { $0 != "id" && $0 != "source_id" })
    }
}

