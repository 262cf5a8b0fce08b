import Foundation
import GRDB
import LocAuditRead

/// How `locaudit query` prints rows.
public enum QueryFormat: String, CaseIterable, Sendable {
    /// Aligned columns for a terminal.
    case table
    /// RFC 4180 CSV with a header row.
    case csv
    /// An array of objects, one per row.
    case json
    /// JSON Lines: one object per row, each on a line of its own (the keys and values of `json`).
    case jsonl
    /// Tab-separated values with a header row: a tab, a newline, a carriage return or a
    /// backslash in a value is written `\t`, `\n`, `\r`, `\\` (as PostgreSQL's text format).
    case tsv

    /// Every row in this format (`QueryPrinter` over the whole result). A non-finite number
    /// (SQLite's `1e999`, stores written before non-finite values became NULL) is `Infinity`,
    /// `-Infinity` or `NaN` in table and csv, and `null` in JSON. Two columns of one name are a
    /// `QueryError` in JSON (an object would keep one); a result JSON cannot hold is an
    /// `OutputError`: never a lost row or value.
    public func render(_ result: QueryResult) throws -> String {
        var out = ""
        let printer = try QueryPrinter(self, columns: result.columns) { out += $0; return true }
        for row in result.rows { _ = try printer.row(row) }
        try printer.finish()
        return out
    }

    static func text(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: return ""
        case .int64(let i): return String(i)
        case .double(let d) where d.isNaN: return "NaN"
        case .double(let d) where d.isInfinite: return d < 0 ? "-Infinity" : "Infinity"
        case .double(let d): return d == d.rounded() && abs(d) < 1e15 ? String(format: "%.1f", d) : String(d)
        case .string(let s): return s
        case .blob(let b): return "x'" + b.map { String(format: "%02x", $0) }.joined() + "'"
        }
    }

    /// A table line: cells padded to their column's width (a cell wider than it, past the
    /// rows that sized the table, as it is), two spaces apart, no blanks at its end.
    static func tableLine(_ values: [String], _ widths: [Int]) -> String {
        var line = zip(values, widths).map { $0 + String(repeating: " ", count: max(0, $1 - $0.count)) }.joined(separator: "  ")
        // As the regular expression `\s+$` did: tabs, line ends, form feeds and Unicode spaces.
        while let last = line.unicodeScalars.last, last == "\t" || last == "\n" || last == "\u{0C}" || last == "\r"
                || [.spaceSeparator, .lineSeparator, .paragraphSeparator].contains(last.properties.generalCategory) {
            line.unicodeScalars.removeLast()
        }
        return line
    }

    static func tableCell(_ value: DatabaseValue) -> String { text(value).replacingOccurrences(of: "\n", with: "⏎") }

    static func csvLine(_ values: [String]) -> String { values.map(quotedCSV).joined(separator: ",") + "\r\n" }

    static func tsvLine(_ values: [String]) -> String { values.map(escapedTSV).joined(separator: "\t") + "\n" }

    static func escapedTSV(_ value: String) -> String {
        guard value.unicodeScalars.contains(where: { "\t\n\r\\".unicodeScalars.contains($0) }) else { return value }
        var out = ""
        for c in value.unicodeScalars {
            switch c {
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\\": out += "\\\\"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// One row as a single-line object (sorted keys), for JSON Lines.
    static func jsonLine(_ columns: [String], _ row: [DatabaseValue]) throws -> String {
        try jsonObject(columns, row, options: [.sortedKeys, .withoutEscapingSlashes]) + "\n"
    }

    /// One row as the pretty-printed object of an array (sorted keys, two spaces a level).
    static func jsonObject(_ columns: [String], _ row: [DatabaseValue],
                           options: JSONSerialization.WritingOptions = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]) throws -> String {
        var object: [String: Any] = [:]
        for (column, value) in zip(columns, row) {
            switch value.storage {
            case .null: object[column] = NSNull()
            case .int64(let i): object[column] = i
            case .double(let d): object[column] = d.isFinite ? d : NSNull()
            case .string(let s): object[column] = s
            case .blob(let b): object[column] = Data(b).base64EncodedString()
            }
        }
        let data: Data
        do {
            data = try JSONSerialization.data(withJSONObject: object, options: options)
        } catch {
            throw OutputError("cannot write the query's rows as JSON; use --format csv or table, and please report the query.")
        }
        guard options.contains(.prettyPrinted) else { return String(decoding: data, as: UTF8.self) }
        // Its lines one level in, as in the array (a value holds no newline: JSON escapes it).
        return String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.isEmpty ? "" : "  " + $0 }.joined(separator: "\n")
    }
}

/// Prints a query's rows as they come, in one format: csv and json a row at a time (json as
/// the array's text grows), table once the first `tableRows` rows have sized its columns.
/// `write` takes each piece of text and returns false when the reader has gone (`| head`):
/// `row` then returns false, and the caller stops reading rows.
public final class QueryPrinter {
    /// The rows a table holds to size its columns; later rows keep those widths.
    public static let tableRows = 1000

    let format: QueryFormat
    let columns: [String]
    let write: (String) throws -> Bool
    var count = 0
    /// Table: the rows held until the widths are known.
    var held: [[String]] = []
    var widths: [Int]?
    var open = true

    public init(_ format: QueryFormat, columns: [String], write: @escaping (String) throws -> Bool) throws {
        (self.format, self.columns, self.write) = (format, columns, write)
        switch format {
        case .csv:
            open = try write(QueryFormat.csvLine(columns))
        case .tsv:
            open = try write(QueryFormat.tsvLine(columns))
        case .json, .jsonl:
            // An object holds one value per name: a second column of a name (a join's two `id`) would be lost.
            var seen = Set<String>()
            if let twice = columns.first(where: { !seen.insert($0).inserted }) {
                throw QueryError("the result has two columns named \(twice), and a JSON object holds only one: "
                                 + "name them apart (SELECT a.\(twice) AS a_\(twice), ...) or use --format csv or table.")
            }
            if format == .json { open = try write("[\n") }
        case .table:
            break
        }
    }

    /// Prints one row; false once the reader has gone.
    public func row(_ values: [DatabaseValue]) throws -> Bool {
        guard open else { return false }
        count += 1
        switch format {
        case .csv:
            open = try write(QueryFormat.csvLine(values.map(QueryFormat.text)))
        case .tsv:
            open = try write(QueryFormat.tsvLine(values.map(QueryFormat.text)))
        case .json:
            open = try write((count > 1 ? ",\n" : "") + QueryFormat.jsonObject(columns, values))
        case .jsonl:
            open = try write(QueryFormat.jsonLine(columns, values))
        case .table:
            let cells = values.map(QueryFormat.tableCell)
            if let widths {
                open = try write(QueryFormat.tableLine(cells, widths) + "\n")
            } else {
                held.append(cells)
                if held.count == QueryPrinter.tableRows { try printHeld() }
            }
        }
        return open
    }

    /// Ends the output: a table's held rows and its count, the json array's end.
    public func finish() throws {
        guard open else { return }
        switch format {
        case .csv, .tsv, .jsonl: break
        case .json: _ = try write("\n]\n")   // [ and ] alone on their lines, as JSONSerialization writes an empty array
        case .table:
            if widths == nil { try printHeld() }
            guard open else { return }
            _ = try write("(\(count) row\(count == 1 ? "" : "s"))\n")
        }
    }

    /// After a failure (a timeout): prints what it holds (a table's first rows, sized by
    /// them), with no count, since the result did not end.
    public func abandon() throws {
        guard open, format == .table, widths == nil, !held.isEmpty else { return }
        try printHeld()
    }

    private func printHeld() throws {
        let widths = columns.indices.map { i in ([columns[i]] + held.map { $0[i] }).map(\.count).max() ?? 0 }
        self.widths = widths
        var out = QueryFormat.tableLine(columns, widths) + "\n" + QueryFormat.tableLine(widths.map { String(repeating: "-", count: $0) }, widths) + "\n"
        for row in held { out += QueryFormat.tableLine(row, widths) + "\n" }
        held = []
        open = try write(out)
    }
}

/// A query's rows printed as they come, in one format, on standard output: the runner hands
/// them to `columns` and `row` inside `run`. On a failure what was printed stays (a table's
/// held rows too), then the error is thrown.
public final class QueryOutput {
    private let format: QueryFormat
    private let out = Output.Streaming()
    private var printer: QueryPrinter?

    public init(_ format: QueryFormat) { self.format = format }

    public func columns(_ names: [String]) throws { printer = try QueryPrinter(format, columns: names, write: out.write) }

    /// Prints one row; false once the reader has gone.
    public func row(_ values: [DatabaseValue]) throws -> Bool { try printer?.row(values) ?? false }

    public func run(_ query: () throws -> Void) throws {
        do {
            try query()
            try printer?.finish()
        } catch {
            try? printer?.abandon()
            try? out.flush()
            throw error
        }
        try out.flush()
    }
}
