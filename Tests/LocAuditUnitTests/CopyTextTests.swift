import Foundation
import GRDB
import PostgresNIO
import Testing
@testable import LocAuditCentral
import LocAuditStore

/// Values COPY's text format must carry: each byte that means something to it, NULL and the
/// empty text, `\N` as text, NUL (which PostgreSQL's text cannot hold), non-ASCII, bytes that
/// are not UTF-8, the integers and doubles at their edges.
enum Nasty {
    static let texts: [String?] = [
        nil, "", "a\tb", "line 1\nline 2\r\nline 3", "C:\\dir\\file", "\\N", "\\.", "\\", "a\u{0}b", "Zürich 東京 🚀",
        " leading and trailing ", "\t\n\r\\",
    ]
    /// What PostgreSQL holds of each text: NUL as U+FFFD.
    static func stored(_ text: String?) -> String? {
        text?.replacingOccurrences(of: "\u{0}", with: "\u{FFFD}")
    }
    static let ints: [Int64] = [0, -1, 1, .max, .min, 1_000_000_000_000_000_000]
    static let doubles: [Double] = [0, -0.0, 0.1 + 0.2, 37.774929499999999, -122.41941550000001, .leastNonzeroMagnitude, .leastNormalMagnitude,
                                    .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 1e16, 1e-7, 123456789.125, .infinity, -.infinity]
}

@Suite struct CopyTextTests {
    static func line(_ body: (inout CopyText) -> Void) -> String {
        var encoder = CopyText()
        body(&encoder)
        return String(buffer: encoder.take())
    }

    @Test("COPY text: NULL is \\N, the empty text is empty, backslash, tab, newline and carriage return are escaped, NUL is U+FFFD")
    func texts() {
        let row = Self.line { encoder in
            for text in Nasty.texts {
                if let text { encoder.text(text) } else { encoder.null() }
            }
            encoder.endRow()
        }
        #expect(row == "\\N\t\ta\\tb\tline 1\\nline 2\\r\\nline 3\tC:\\\\dir\\\\file\t\\\\N\t\\\\.\t\\\\\ta\u{FFFD}b\tZürich 東京 🚀\t leading and trailing \t\\t\\n\\r\\\\\n")
        // One line, as many fields as values: no raw tab or newline is left inside a value.
        #expect(row.dropLast().split(separator: "\n").count == 1)
        #expect(row.dropLast().split(separator: "\t", omittingEmptySubsequences: false).count == Nasty.texts.count)
    }

    @Test("COPY text: integers at their edges; doubles print the shortest digits that read back to the same bits, -0.0 and infinities included")
    func numbers() {
        let ints = Self.line { encoder in
            for n in Nasty.ints { encoder.int(n) }
            encoder.endRow()
        }
        #expect(ints == "0\t-1\t1\t9223372036854775807\t-9223372036854775808\t1000000000000000000\n")
        let doubles = Self.line { encoder in
            for d in Nasty.doubles { encoder.double(d) }
            encoder.endRow()
        }
        let fields = doubles.dropLast().split(separator: "\t").map(String.init)
        #expect(fields.count == Nasty.doubles.count)
        for (field, value) in zip(fields, Nasty.doubles) {
            // PostgreSQL's spellings of the infinities; every other field reads back bit-exact.
            let read = field == "Infinity" ? .infinity : field == "-Infinity" ? -.infinity : Double(field)
            #expect(read?.bitPattern == value.bitPattern, "\(field) for \(value)")
        }
        #expect(fields[1] == "-0.0")
        #expect(fields[2] == "0.30000000000000004")
    }

    @Test("COPY text from SQLite's own values: text with NUL, bytes that are not UTF-8, a blob, each storage class")
    func fromSQLite() throws {
        let db = try DatabaseQueue()
        let row = try db.read { db in
            let sql = """
                SELECT NULL, 42, -0.0, 'tab\there', CAST(x'610062' AS TEXT), CAST(x'61ff62' AS TEXT), x'5c0a', '', -9223372036854775808
                """
            var encoder = CopyText()
            let rows = try RawRows.read(db, sql: sql, arguments: [], into: &encoder)
            #expect(rows == 1)
            return String(buffer: encoder.take())
        }
        #expect(row == "\\N\t42\t-0.0\ttab\\there\ta\u{FFFD}b\ta\u{FFFD}b\t\\\\\\n\t\t-9223372036854775808\n")
    }

    @Test("a buffer handed over leaves the encoder empty, at a row's start")
    func take() {
        var encoder = CopyText()
        encoder.text("a")
        encoder.int(1)
        encoder.endRow()
        #expect(String(buffer: encoder.take()) == "a\t1\n")
        encoder.text("b")
        encoder.endRow()
        #expect(String(buffer: encoder.take()) == "b\n")
    }
}
