import Foundation
import GRDB
import Testing
@testable import LocAuditUnitTests

/// ATTACH, DETACH and `fts3_tokenizer` are refused by `locaudit query` as a write is: the
/// store is never blamed for them.
@Suite(.tags(.endToEnd), .ownThreads) struct QueryAttachTests {
    @Test("query refuses ATTACH, DETACH and fts3_tokenizer with the sentence a write gets, exit 1", arguments: [
        "ATTACH 'notdb.txt' AS x", "ATTACH ':memory:' AS x", "DETACH x", "SELECT fts3_tokenizer('simple')",
        "SELECT hex(fts3_tokenizer('simple')) AS p", "SELECT 1 WHERE fts3_tokenizer('x', x'00') IS NULL",
    ])
    func refused(sql: String) throws {
        let ws = try Workspace()
        try ws.write("notdb.txt", "not a database\n")
        // A store the binary made (one Info.plist in it).
        let db = ws.dir.appendingPathComponent("bin.sqlite").path
        let plist = packageRoot.appendingPathComponent("samples/apps/com.example.runner.plist").path
        #expect(try run(locauditExecutable, ["ingest", "--quiet", "--db", db, plist]).status == 0)
        let result = try run(locauditExecutable, ["query", "--db", db, "--sql", sql], directory: ws.dir)
        #expect(result.status == 1, "\(sql): \(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("only reads"), "\(sql): \(result.stderr)")
        #expect(!result.stderr.contains("backup") && !result.stderr.contains("not a SQLite database"), "\(sql): \(result.stderr)")
    }
}
