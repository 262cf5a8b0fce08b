import Foundation

/// One RFC 4180 field: quoted when it holds a comma, a quote or a line break.
package func quotedCSV(_ s: String) -> String {
    guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return s }
    return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
