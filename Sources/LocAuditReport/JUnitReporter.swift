import LocAuditModel
import LocAuditRules

/// JUnit XML for CI dashboards (Jenkins, GitLab): a test suite per session or app
/// configuration, a test case per rule checked on it, a failure per finding, and the
/// checks that could not be evaluated as skipped.
public enum JUnitReporter {
    public static func generateReport(_ report: AuditReport, options: ReportOptions = ReportOptions()) -> String {
        let findings = Dictionary(report.findings.map { ($0.fingerprint, $0) }, uniquingKeysWith: { a, _ in a })
        // A run a prune thinned: its findings are its only test cases left.
        let testCases = report.checksPrunedAt == nil ? report.checks : report.findings.map {
            RuleCheckRecord(subject: subject(of: $0), rule: $0.rule, notEvaluable: nil, findings: [$0.fingerprint])
        }
        let bySubject = Dictionary(grouping: testCases, by: \.subject)
        let subjects = bySubject.keys.sorted()
        let failures = testCases.filter { $0.findings.contains(where: { findings[$0] != nil }) }.count
        let skipped = testCases.filter { $0.notEvaluable != nil }.count
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<testsuites name=\"locaudit\" tests=\"\(testCases.count)\" failures=\"\(failures)\" errors=\"0\" skipped=\"\(skipped)\" timestamp=\"\(attribute(report.startedAt))\">\n"
        for subject in subjects {
            let checks = bySubject[subject]!.sorted { $0.rule < $1.rule }
            let suiteFailures = checks.filter { $0.findings.contains(where: { findings[$0] != nil }) }.count
            let suiteSkipped = checks.filter { $0.notEvaluable != nil }.count
            out += "  <testsuite name=\"\(attribute(subject))\" tests=\"\(checks.count)\" failures=\"\(suiteFailures)\" errors=\"0\" skipped=\"\(suiteSkipped)\">\n"
            // A session's subject starts with its device: say how its times were read.
            var properties: [(String, String)] = []
            if let note = report.coverage.timeZones?.first(where: { subject.hasPrefix($0.key + " ") })?.value {
                properties.append(("timeZone", note))
            }
            if let pruned = report.checksPrunedAt {
                properties.append(("checks", "per-check detail pruned at \(pruned): only the findings are left; "
                    + "the run's coverage still counts \(report.coverage.evaluated) checks evaluated, \(report.coverage.notEvaluableCount) not evaluable"))
            }
            if !properties.isEmpty {
                out += "    <properties>\n"
                for (name, value) in properties { out += "      <property name=\"\(name)\" value=\"\(attribute(value))\"/>\n" }
                out += "    </properties>\n"
            }
            for check in checks {
                out += "    <testcase classname=\"\(attribute(subject))\" name=\"\(attribute(check.rule))\""
                let shown = check.findings.compactMap { findings[$0] }
                if let reason = check.notEvaluable {
                    out += ">\n      <skipped message=\"\(attribute("not evaluable: " + reason))\"/>\n    </testcase>\n"
                } else if shown.isEmpty {
                    out += "/>\n"
                } else {
                    out += ">\n"
                    for f in shown {
                        out += "      <failure type=\"\(f.severity.rawValue)\" message=\"\(attribute(f.message))\">"
                        out += text("\(f.time) \(f.message)\nevidence:\n" + f.evidence.map { "  " + $0.text }.joined(separator: "\n"))
                        out += "</failure>\n"
                    }
                    out += "    </testcase>\n"
                }
            }
            out += "  </testsuite>\n"
        }
        out += "</testsuites>\n"
        return out
    }

    /// A finding's subject as its check names it: the session, or the app on its iOS version.
    static func subject(of f: Finding) -> String {
        guard let start = f.sessionStart else { return "\(f.bundleId) on iOS \(IOSVersion(f.osVersion)?.major ?? 0)" }
        return "\(f.device) \(f.bundleId) pid \(f.pid.map(String.init) ?? "-") from \(start)"
    }

    /// XML attribute text: markup and quotes escaped, and characters XML 1.0 forbids dropped.
    static func attribute(_ s: String) -> String {
        text(s).replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "'", with: "&apos;")
            .replacingOccurrences(of: "\n", with: "&#10;").replacingOccurrences(of: "\r", with: "&#13;").replacingOccurrences(of: "\t", with: "&#9;")
    }

    /// XML element text (no CDATA: `]]>` in a log line cannot end what it is not in).
    static func text(_ s: String) -> String {
        var out = ""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default:
                let v = scalar.value
                if v < 0x20 || (0xFFFE...0xFFFF).contains(v) { out += "\u{FFFD}" } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }
}
