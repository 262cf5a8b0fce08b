import Foundation
import GRDB
import Testing
@testable import LocAuditModel
import LocAuditReplay
@testable import LocAuditStore

/// The store's narrow event rows (v11): `events` is a view that gives every documented column
/// as the table of v1-v10 did, and a message is kept as a shared format and its numbers.
@Suite struct EventLayoutTests {
    /// Real lines, and texts written to trip a format: `%` in every position, printf's own
    /// conversions, signs, `0x` without digits, numbers glued to words, more numbers than
    /// arguments, other scripts, an empty message.
    static func messages() throws -> [String] {
        var messages = [
            "", "%", "%%", "%s", "%d %s %%s", "100% of 5", "50%", "%1$s", "a%", "-", "-5", "x-5", "(-5)", "0x", "0xg", "0x1f",
            "0xdead", "0X1F and 0x", "1.", "1.2.", "1..2", "2026-11-20 10:42:01.123+0100", "-0", "007", "iPhone14,2",
            "pid 12 (é 34 ü) 56", "日本 12 語", "emoji 🛰️ 7", "trailing 9", "9 leading", "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 % 16",
            String(repeating: "4.2, ", count: 40), "tab\t1\ttwo", "\"latitude\":48.858783, \"longitude\":-2.288472",
            "{\"msg\":\"#CLLocationManager invoking #delegate\", \"self\":\"0x1dd178177\", \"delegate\":\"0x10c602d15\", "
                + "\"selector\":\"locationManager:didUpdateLocations:\", \"location\":{\"latitude\":48.858783, \"longitude\":2.288472, "
                + "\"altitude\":46.0, \"horizontalAccuracy\":5, \"verticalAccuracy\":10.7, \"speed\":0.86, \"course\":5.6, "
                + "\"timestamp\":816822021.17, \"floor\":0}}",
        ]
        let real = realFixtures
        for file in try FileManager.default.contentsOfDirectory(atPath: real.path).sorted() where !file.hasSuffix(".md") {
            let text = String(decoding: try Data(contentsOf: real.appendingPathComponent(file)), as: UTF8.self)
            messages += text.split(separator: "\n").map(String.init)
        }
        return messages
    }

    @Test("SQLite's printf over a message's stored format and numbers gives it back byte for byte: real lines and hard cases")
    func printfGivesTheMessageBack() throws {
        let messages = try EventLayoutTests.messages()
        #expect(messages.count > 100)
        let queue = try DatabaseQueue()
        let columns = (1...MessageTemplate.maxArguments).map { _ in "?" }.joined(separator: ", ")
        try queue.read { db in
            for message in messages {
                let template = MessageTemplate(message)
                #expect(template.arguments.count <= MessageTemplate.maxArguments)
                let arguments = template.arguments.map { $0 as DatabaseValueConvertible? }
                    + Array(repeating: nil, count: MessageTemplate.maxArguments - template.arguments.count)
                // As the view reads it: SQLite's printf of an empty format is NULL.
                let printed = try String.fetchOne(db, sql: "SELECT CASE ?1 WHEN '' THEN '' ELSE printf(?1, \(columns)) END",
                                                  arguments: StatementArguments([template.format] + arguments))
                #expect(printed == message, "format \(template.format) arguments \(template.arguments)")
                #expect(template.message == message)
            }
        }
    }

    @Test("a location line's format holds its words and its arguments its numbers; past 12, the last takes the rest")
    func formatsHoldTheWords() {
        let line = MessageTemplate("{\"self\":\"0x1dd178177\", \"latitude\":48.858783, \"longitude\":-2.288472, \"horizontalAccuracy\":5, \"floor\":0, \"at\":\"2026-11-20\"}")
        #expect(line.format == "{\"self\":\"%s\", \"latitude\":%s, \"longitude\":%s, \"horizontalAccuracy\":%s, \"floor\":%s, \"at\":\"%s\"}")
        #expect(line.arguments == ["0x1dd178177", "48.858783", "-2.288472", "5", "0", "2026-11-20"])
        #expect(MessageTemplate("Bootstrapping app<com.example.runner> with intent 100%").format
            == "Bootstrapping app<com.example.runner> with intent %s%%")
        let many = MessageTemplate((1...15).map(String.init).joined(separator: " ") + " end")
        #expect(many.arguments.count == 12)
        #expect(many.arguments.last == "12 13 14 15 end")
        #expect(many.format == Array(repeating: "%s", count: 12).joined(separator: " "))
    }

    @Test("the deliveries of a log share one stored format")
    func deliveriesShareAFormat() throws {
        let ws = try Workspace()
        let lines = LogScript().launch().told("AuthorizedWhenInUse").deliver(5).deliver(8).deliver(12).deliver(65).terminate().lines
        _ = try TimeZoneTests.ingest(ws, "dev-2026-11-20.log", lines.joined(separator: "\n") + "\n", zone: "UTC")
        #expect(try ws.count("SELECT count(*) FROM events WHERE kind = 'location'") == 4)
        #expect(try ws.count("""
            SELECT count(DISTINCT m.format) FROM event_messages m JOIN events e ON e.id = m.id WHERE e.kind = 'location'
            """) == 1)
    }

    @Test("an event's insert builds no temporary B-tree: events_by_family's condition is comparisons; migration v17 rewrites the IN list of a store before it, and the families read through the index are the same")
    func familyIndexWithoutTemporaryTree() throws {
        let ws = try Workspace()
        let lines = LogScript().launch().prompt("authorization", options: "Allow Once, Allow While Using App, Don't Allow").answer("Allow Once")
            .status("AuthorizedWhenInUse").blueBar(true).deliver(5).blueBar(false).terminate().lines
        _ = try TimeZoneTests.ingest(ws, "dev-2026-11-20.log", lines.joined(separator: "\n") + "\n", zone: "UTC")
        let queue = try DatabaseQueue(path: ws.store.path)
        let insert = """
            INSERT OR IGNORE INTO event_rows (\(EventWriter.columns.joined(separator: ", ")))
            VALUES (\(EventWriter.columns.map { _ in "?" }.joined(separator: ", ")))
            """
        // SQLite's program for the writer's insert: OpenEphemeral is the temporary B-tree. A new
        // connection each time: EXPLAIN runs nothing, so a connection's schema read before the
        // migration would still be the one it lists.
        func opcodes() throws -> [String] {
            try DatabaseQueue(path: ws.store.path).read { db in
                try Row.fetchAll(db, sql: "EXPLAIN " + insert,
                                 arguments: StatementArguments(Array(repeating: DatabaseValue.null, count: EventWriter.columns.count)))
                    .map { $0["opcode"] as String }
            }
        }
        func condition() throws -> String {
            try queue.read { try String.fetchOne($0, sql: "SELECT sql FROM sqlite_master WHERE name = 'events_by_family'") ?? "" }
        }
        func families() throws -> [String: DeviceLogs] { try queue.read { try DeviceLogs.load($0, scope: EventScope()) } }
        let found = try families()
        #expect(found["device-1"].map { $0 != DeviceLogs() } == true, "the log's families: \(found)")
        #expect(try opcodes().contains("Insert"))
        #expect(try !opcodes().contains("OpenEphemeral"))
        #expect(try !condition().contains(" IN ("))
        // The index as v11 and v13 made it, before v17.
        try queue.write { db in
            let ids = try EventNames.familyKinds.compactMap { try EventNames.existing($0.rawValue, in: db) }.sorted()
            try db.execute(sql: """
                DROP INDEX events_by_family;
                CREATE INDEX events_by_family ON event_rows(device_ref, kind_ref) WHERE kind_ref IN (\(ids.map(String.init).joined(separator: ", ")));
                DELETE FROM grdb_migrations WHERE identifier LIKE 'v17:%';
                """)
        }
        #expect(try opcodes().contains("OpenEphemeral"), "an IN list of more than two values is a temporary B-tree")
        _ = try Store(path: ws.store.path)
        #expect(try !opcodes().contains("OpenEphemeral"))
        #expect(try condition().contains("kind_ref = "))
        #expect(try families() == found)
    }

    @Test("the audit's read takes an app's events from events_by_app alone and a row's rare columns from events_rare, merged by time and id: the same events as the read by id, ties of time included; migration v19 makes both indexes of a store before it")
    func rareColumnsThroughTheirIndex() throws {
        let ws = try Workspace()
        let script = LogScript().launch().call("requestWhenInUseAuthorization")
            .prompt("authorization", options: "Allow Once, Allow While Using App, Don't Allow").answer("Allow While Using App")
            .status("AuthorizedWhenInUse").told("kCLAuthorizationStatusAuthorizedWhenInUse", limitsPrecision: 1).blueBar(true)
        for _ in 0..<6 { script.deliver(5).property("distanceFilter", 10).deliver(65).deliverPrivate() }
        script.accuracy("full", temporary: 1, purposeKey: "Navigation").deliver(3).blueBar(false).state("BackgroundRunning").deliver(8).terminate()
        _ = try TimeZoneTests.ingest(ws, "dev-2026-11-20.log", script.lines.joined(separator: "\n") + "\n", zone: "UTC")
        let queue = try DatabaseQueue(path: ws.store.path)
        // Lines four seconds apart share a time, so that rows with and without rare columns
        // tie (the line key's unique index goes: only this test's store is read).
        try queue.write { db in
            try db.execute(sql: "DROP INDEX events_by_line; UPDATE event_rows SET time_us = time_us - time_us % 4000000")
        }
        func dumped(_ event: AppEvent?) -> String {
            var text = ""
            dump(event, to: &text)
            return text
        }
        // Each app's events through the cursor, and the same ids read by id (the coalesce test of every column).
        func read() throws -> (cursor: [String], byId: [String], rare: Int, mixedTies: Int) {
            try queue.read { db in
                let kinds = try EventScope.kinds(db)
                var (viaCursor, viaIds, rare) = ([String](), [String](), 0)
                var strings = StringTable()
                for group in try EventScope().groups(db) {
                    var cursor = try EventScope.cursor(db, group: group, kinds: kinds)
                    var events: [AppEvent] = []
                    while let event = try cursor.next(strings: &strings) { events.append(event) }
                    let byId = try EventScope.load(db, ids: events.map(\.id), group: group, kinds: kinds, strings: &strings)
                    viaCursor += events.map(dumped)
                    viaIds += events.map { dumped(byId[$0.id]) }
                    rare += events.filter { $0.rare != nil }.count
                }
                let mixed = try Int.fetchOne(db, sql: """
                    SELECT count(*) FROM (SELECT time_us FROM event_rows WHERE bundle_ref IS NOT NULL GROUP BY time_us
                        HAVING count(DISTINCT \(AppEvent.rareFilled)) = 2)
                    """) ?? 0
                return (viaCursor, viaIds, rare, mixed)
            }
        }
        let before = try read()
        #expect(before.cursor.count > 30)
        #expect(before.rare > 5, "rows that fill a rare column")
        #expect(before.mixedTies > 2, "times shared by rows with and without rare columns")
        let differing = before.cursor.indices.first { $0 >= before.byId.count || before.cursor[$0] != before.byId[$0] }
        #expect(before.cursor.count == before.byId.count && differing == nil,
                "event \(differing ?? -1) through the cursor:\n\(differing.map { before.cursor[$0] } ?? "")by id:\n\(differing.map { before.byId[$0] } ?? "")")
        func index() throws -> String? {
            try queue.read { try String.fetchOne($0, sql: "SELECT sql FROM sqlite_master WHERE name = 'events_rare'") }
        }
        let made = try index()
        #expect(made?.hasSuffix("WHERE \(AppEvent.rareFilled)") == true, "the index's condition is the reader's: \(made ?? "none")")
        // Each statement reads its index alone, in the index's order: no seek into the table, no sort.
        let plans = try queue.read { db in
            try [EventScope.appEvents, EventScope.appRareColumns].map { sql in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: [1, 2, 0]).map { $0["detail"] as String }.joined(separator: "; ")
            }
        }
        #expect(plans[0].contains("COVERING INDEX events_by_app") && !plans[0].contains("TEMP B-TREE"), "\(plans[0])")
        #expect(plans[1].contains("INDEX events_rare") && !plans[1].contains("TEMP B-TREE"), "\(plans[1])")
        // A store before v19.
        try queue.write { db in
            try db.execute(sql: """
                DROP INDEX events_rare; DROP INDEX events_by_app;
                CREATE INDEX events_by_app ON event_rows(device_ref, bundle_ref, time_us);
                DELETE FROM grdb_migrations WHERE identifier LIKE 'v19:%'
                """)
        }
        #expect(throws: (any Error).self) { try read() }
        _ = try Store(path: ws.store.path)
        #expect(try index() != nil)
        let after = try read()
        #expect(after.cursor == before.cursor)
    }

    /// Turns a store back into the layout of v10 (one `events` table), as a locaudit before
    /// v11 left it: what migration v11 starts from. v19, which indexes the table v11 makes,
    /// runs again after it (the other migrations since keep what v11 makes as it is).
    static func downgradeToV10(_ path: String) throws {
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: """
                CREATE TABLE old_events AS SELECT id, source_id, line, device_id, time_us, utc_offset, process, pid, app_pid, bundle_id,
                    bundle_via, kind, pattern, status, accuracy, temporary, provisional, reason, app_state, service, call,
                    horizontal_accuracy, latitude, longitude, location_private, property, value, prompt_kind, prompt_options, choice,
                    purpose_key, visible, intent, message, fingerprint, user_kill FROM events;
                DROP VIEW events;
                DROP TABLE event_rows; DROP TABLE event_messages; DROP TABLE message_formats; DROP TABLE names;
                ALTER TABLE old_events RENAME TO events;
                CREATE UNIQUE INDEX events_by_line ON events(time_us / 1000000, fingerprint);
                CREATE INDEX events_by_app ON events(device_id, bundle_id, time_us);
                CREATE INDEX events_unlinked ON events(device_id, app_pid) WHERE bundle_id IS NULL;
                DELETE FROM grdb_migrations WHERE identifier LIKE 'v11:%' OR identifier LIKE 'v19:%';
                """)
        }
    }

}
