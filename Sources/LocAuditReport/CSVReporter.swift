import LocAuditModel
import LocAuditRules
import LocAuditRead

/// One row per finding (RFC 4180), for spreadsheets; the columns after `timeZone` were added
/// later (device name, app version, fingerprint, owner, what to do), so that old readers keep theirs.
public enum CSVReporter {
    static let header = ["rule", "severity", "device", "bundleId", "pid", "sessionStart", "time", "message", "evidence", "change", "timeZone",
                          "deviceName", "appVersion", "fingerprint", "owner", "whatToDo"]

    public static func generateReport(_ report: AuditReport, options: ReportOptions = ReportOptions()) -> String {
        var rows = [header]
        let rules = Dictionary(ReportText.rules(of: report.findings).map { ($0.identifier, $0) }, uniquingKeysWith: { a, _ in a })
        for f in report.findings {
            rows.append([f.rule, f.severity.rawValue, f.device, f.bundleId, f.pid.map(String.init) ?? "", f.sessionStart ?? "",
                         f.time, f.message, f.evidence.map(\.text).joined(separator: " "),
                         ReportText.change(f, in: report), report.coverage.timeZones?[f.device] ?? "",
                         f.deviceName ?? report.devices[f.device]?.name ?? "", f.appVersionText ?? "", f.fingerprint,
                         rules[f.rule]?.owner.rawValue ?? "", rules[f.rule]?.whatToDo ?? ""])
        }
        return rows.map { $0.map(field).joined(separator: ",") }.joined(separator: "\r\n") + "\r\n"
    }

    /// Quoted when it must be; a cell a spreadsheet would run as a formula (=, +, -, @) is
    /// prefixed with an apostrophe, since these strings come from logs.
    static func field(_ s: String) -> String {
        guard let first = s.first, "=+-@\t\r".contains(first) else { return quotedCSV(s) }
        return quotedCSV("'" + s)
    }
}
