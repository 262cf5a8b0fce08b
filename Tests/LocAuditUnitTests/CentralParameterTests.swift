import Foundation
import GRDB
import Testing
@testable import LocAuditCentral
@testable import LocAuditStore

/// `:name` parameters of the saved queries, as PostgreSQL's `$1…`: no server needed.
@Suite struct CentralParameterTests {
    typealias Statement = CentralQuery.Statement

    @Test("a :: cast, a ':x' in a string, a comment, a quoted identifier, a dollar-quoted string keep their colons")
    func onlyParametersAreTranslated() throws {
        let s = try Statement("""
            SELECT :a::text, ':x' AS "b:c", E'it\\'s :y' -- :z here
            , $$ :w $$, $t$ :v $t$ /* :u /* nested :t */ :s */ FROM events WHERE kind = :b AND id > :a
            """)
        #expect(s.names == ["a", "b"])
        #expect(s.sql == """
            SELECT $1::text, ':x' AS "b:c", E'it\\'s :y' -- :z here
            , $$ :w $$, $t$ :v $t$ /* :u /* nested :t */ :s */ FROM events WHERE kind = $2 AND id > $1
            """)
        // A word's own `$` and digits, an array slice's `:2`, SQL's doubled quotes.
        let t = try Statement("SELECT a$b, x[1:2], 'it''s :no', \"q\"\":no\" FROM t LIMIT :limit")
        #expect(t.names == ["limit"])
        #expect(t.sql == "SELECT a$b, x[1:2], 'it''s :no', \"q\"\":no\" FROM t LIMIT $1")
    }

    @Test("a trailing ; or comment is cut, a positional $1 and an empty statement are refused with a sentence")
    func edges() throws {
        #expect(try Statement("SELECT 1; -- done\n").sql == "SELECT 1")
        #expect(try Statement("SELECT 1; SELECT 2;").sql == "SELECT 1; SELECT 2")
        #expect { try Statement("SELECT * FROM events WHERE id = $1") } throws: { "\($0)".contains("name them (:device)") }
        #expect { try Statement(" ; -- nothing\n/* at all */") } throws: { "\($0)" == QueryRunner.noStatement }
    }

    @Test("a -- postgresql: line replaces its exact text for PostgreSQL only; a left side the SQL lacks names the file")
    func replacementLines() throws {
        let q = try SavedQuery.parse("""
            -- name: apps
            -- postgresql: group_concat(x) => string_agg(x, ',' ORDER BY x)
            SELECT group_concat(x) FROM (SELECT bundle_id AS x FROM apps ORDER BY 1)
            """, path: "queries/apps.sql")
        #expect(q.postgresql == [.init(sqlite: "group_concat(x)", postgresql: "string_agg(x, ',' ORDER BY x)")])
        #expect(try q.postgresqlSQL() == "-- name: apps\nSELECT string_agg(x, ',' ORDER BY x) FROM (SELECT bundle_id AS x FROM apps ORDER BY 1)")
        #expect(q.sql.contains("SELECT group_concat(x) FROM"))
        #expect {
            try SavedQuery.parse("-- postgresql: json_each(s.skipped) => json_each_text(s.skipped::json)\nSELECT 1", path: "queries/drift.sql")
        } throws: { "\($0)".contains("queries/drift.sql") && "\($0)".contains("json_each(s.skipped)") }
        #expect { try SavedQuery.parse("-- postgresql: a -> b\nSELECT a", path: "q.sql") } throws: { "\($0)".contains(" => ") }
        // Asked for by name, such a file says what is wrong with it, not that there is no such query.
        let ws = try Workspace()
        let drift = ws.dir.appendingPathComponent("drift.sql")
        try Data("-- name: drift\n-- postgresql: json_each(x) => json_each_text(x)\nSELECT 1\n".utf8).write(to: drift)
        #expect { try SavedQuery.find("drift", in: [ws.dir]) } throws: { "\($0)".contains(drift.path) && "\($0)".contains("json_each(x)") }
    }
}
