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

    /// Every row in this format. A non-finite number (SQLite's `1e999`, stores written before
    /// non-finite values became NULL) is `Infinity`, `-Infinity` or `NaN` in table and csv, and
    /// `null` in JSON. Two columns of one name are a `QueryError` in JSON (an object would keep
    /// one); a result JSON cannot hold is an `OutputError`: never a lost row or value.
    public func render(_ result: QueryResult) throws -> String {
        switch self {
        case .table: return QueryFormat.table(result)
        case .csv: return QueryFormat.csv(result)
        case .json: return try QueryFormat.json(result)
        }
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

    static func table(_ r: QueryResult) -> String {
        let cells = r.rows.map { $0.map { text($0).replacingOccurrences(of: "\n", with: "⏎") } }
        let widths = r.columns.indices.map { i in ([r.columns[i]] + cells.map { $0[i] }).map(\.count).max() ?? 0 }
        func line(_ values: [String]) -> String {
            zip(values, widths).map { $0 + String(repeating: " ", count: $1 - $0.count) }.joined(separator: "  ")
                .replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }
        var out = line(r.columns) + "\n" + line(widths.map { String(repeating: "-", count: $0) }) + "\n"
        for row in cells { out += line(row) + "\n" }
        out += "(\(r.rows.count) row\(r.rows.count == 1 ? "" : "s"))\n"
        return out
    }

    static func csv(_ r: QueryResult) -> String {
        // Values as stored (a query's numbers stay numbers: no spreadsheet-formula guard here).
        return ([r.columns] + r.rows.map { $0.map(text) }).map { $0.map(quotedCSV).joined(separator: ",") }.joined(separator: "\r\n") + "\r\n"
    }

    static func json(_ r: QueryResult) throws -> String {
        // An object holds one value per name: a second column of a name (a join's two `id`) would be lost.
        var seen = Set<String>()
        if let twice = r.columns.first(where: { !seen.insert($0).inserted }) {
            throw QueryError("the result has two columns named \(twice), and a JSON object holds only one: "
                             + "name them apart (SELECT a.\(twice) AS a_\(twice), ...) or use --format csv or table.")
        }
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
        do {
            let data = try JSONSerialization.data(withJSONObject: objects, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
            return String(decoding: data, as: UTF8.self) + "\n"
        } catch {
            throw OutputError("cannot write the query's rows as JSON; use --format csv or table, and please report the query.")
        }
    }
}
