import Foundation
import LocAuditModel

/// The names of an inbox's files, as `run` reads them and `capture` writes them:
/// `NAME-YYYY-MM-DD.log.gz` with its sidecar `NAME-YYYY-MM-DD.ideviceinfo.txt` beside it
/// (`Ingester.sidecar(of:)` finds it), NAME the device's name (or UDID) as `Inventory`
/// matches it; a second file of the same device and day `NAME-YYYY-MM-DD-2.log.gz` (and its
/// own sidecar). Hidden names (a leading dot) are never read (`Ingester.expand`).
package enum InboxName {
    /// The part of a file name before its `-YYYY-MM-DD`: the device it names (nil: no date in the name,
    /// or nothing before it).
    package static func deviceKey(ofFileName name: String) -> Substring? {
        guard let date = name.range(of: #"-\d{4}-\d{2}-\d{2}"#, options: .regularExpression), date.lowerBound > name.startIndex else { return nil }
        return name[..<date.lowerBound]
    }

    /// The day of the first `-YYYY-MM-DD` in a file name.
    package static func day(ofFileName name: String) -> CivilDate? {
        guard let date = name.range(of: #"-\d{4}-\d{2}-\d{2}"#, options: .regularExpression) else { return nil }
        return CivilDate(String(name[date].dropFirst()))
    }

    /// A device's name as a file name's NAME: letters, digits, `.`, `_` and `-` kept (other
    /// characters, spaces included, become `-`; no leading dot, at most 64 characters); nil when
    /// nothing is left (then the UDID names the files).
    package static func sanitised(_ name: String) -> String? {
        var out = ""
        for scalar in name.unicodeScalars {
            let keep = (scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar))) || scalar == "_" || scalar == "-" || scalar == "."
            out.unicodeScalars.append(keep ? scalar : "-")
        }
        while out.hasPrefix(".") || out.hasPrefix("-") { out.removeFirst() }
        while out.hasSuffix(".") || out.hasSuffix("-") { out.removeLast() }
        // Extensions in the middle of a NAME would cut the sidecar's stem (`Ingester.sidecar`).
        for ext in [".log", ".ndjson", ".json", ".txt", ".gz", ".syslog"] { out = out.replacingOccurrences(of: ext, with: "_" + ext.dropFirst()) }
        out = String(out.prefix(64))
        return out.isEmpty || out.allSatisfy({ $0 == "-" || $0 == "." || $0 == "_" }) ? nil : out
    }

    /// `NAME-YYYY-MM-DD`, or `NAME-YYYY-MM-DD-N` for the N-th file (N > 1) of that device and day.
    package static func stem(device: String, day: CivilDate, serial: Int = 1) -> String {
        "\(device)-\(day)" + (serial > 1 ? "-\(serial)" : "")
    }

    package static func log(_ stem: String) -> String { stem + ".log.gz" }
    package static func sidecar(_ stem: String) -> String { stem + ".ideviceinfo.txt" }
}
