import Foundation
import GRDB
import Testing
@testable import LocAuditStore

/// `locaudit query` prints rows as SQLite steps to them (issue 24, point 8): its memory does
/// not grow with the result, `| head` gets the first rows at once and ends the query, and
/// `--timeout` stops a statement that runs too long. The output is what it was.
@Suite struct QueryStreamTests {
    /// Every row of an endless statement: `x` from 1 on.
    static let endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c"

    /// The JSON the whole result was before rows were streamed: one JSONSerialization array.
    static func wholeJSON(_ r: QueryResult) throws -> String {
        let objects: [[String: Any]] = r.rows.map { row in
            var object: [String: Any] = [:]
            for (column, value) in zip(r.columns, row) {
                switch value.storage {
                case .null: object[column] = NSNull()
                case .int64(let i): object[column] = i
                case .double(let d): object[column] = d.isFinite ? d : NSNull()
                case .string(let s): object[column] = s
                case .blob(let b): object[column] = Data(b).base64EncodedString()
                }
            }
            return object
        }
        let data = try JSONSerialization.data(withJSONObject: objects, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    @Test("json written row by row is byte for byte the array JSONSerialization wrote whole, for no row, one and many")
    func jsonAsBefore() throws {
        let ws = try Workspace()
        let values = "SELECT 1 AS n, 'a/b \"q\" \\ é 📍' AS s, 2.5 AS r, NULL AS z, x'00ff' AS b, 1e999 AS inf, char(10, 9, 27) AS c, 3.0 AS whole"
        for sql in [values + " WHERE 0", values, values + " UNION ALL SELECT 2, 'x', -0.1, 1, x'', 0, '', 1e20",
                    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 50) SELECT x AS z, x * 1.5 AS a FROM c"] {
            let result = try QueryRunner.run(sql, store: ws.store)
            #expect(try QueryFormat.json.render(result) == (try Self.wholeJSON(result)), "\(sql)")
        }
    }

    @Test("jsonl is one object a line with json's keys and values; tsv escapes tabs, newlines and backslashes")
    func jsonLinesAndTSV() throws {
        let ws = try Workspace()
        let result = try QueryRunner.run("SELECT 1 AS n, 'a' || char(9) || 'b' || char(10) || 'c\\d' AS s, NULL AS z "
                                         + "UNION ALL SELECT 2, 'x/y', 2.5", store: ws.store)
        #expect(try QueryFormat.jsonl.render(result) == #"{"n":1,"s":"a\tb\nc\\d","z":null}"# + "\n" + #"{"n":2,"s":"x/y","z":2.5}"# + "\n")
        // The same objects as the json array's.
        let array = try #require(try JSONSerialization.jsonObject(with: Data(try QueryFormat.json.render(result).utf8)) as? [NSDictionary])
        let lines = try QueryFormat.jsonl.render(result).split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? NSDictionary)
        }
        #expect(lines == array)
        #expect(try QueryFormat.tsv.render(result) == "n\ts\tz\n1\ta\\tb\\nc\\\\d\t\n2\tx/y\t2.5\n")
        #expect(try QueryFormat.jsonl.render(QueryResult(columns: ["n"], rows: [])) == "")
    }

    @Test("a table sizes its columns from its first rows; a wider cell after them is printed whole, the count at the end")
    func tableBeyondItsPrefix() throws {
        let ws = try Workspace()
        let n = QueryPrinter.tableRows + 2
        let result = try QueryRunner.run("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < \(n)) "
                                         + "SELECT CASE WHEN x = \(n) THEN 'wider than the column' ELSE 'a' END AS v, x FROM c", store: ws.store)
        let lines = try QueryFormat.table.render(result).split(separator: "\n")
        #expect(lines[0] == "v  x")
        #expect(lines[2] == "a  1")
        #expect(lines[lines.count - 2] == "wider than the column  \(n)")
        #expect(lines.last == "(\(n) rows)")
    }

}
