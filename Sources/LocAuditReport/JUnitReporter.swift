import LocAuditModel
import LocAuditRules

/// JUnit XML for CI dashboards (Jenkins, GitLab), with identities that stay from night to
/// night: a test suite per app and device (and per app's configuration on an iOS major
/// version), a test case per rule checked there, whatever the sessions, pids and times.
/// A case fails with its findings (one `failure` listing them all, with who owns them and
/// what to do), is skipped when no check of it could be evaluated, and passes otherwise.
///
/// Names: the case's `name` is the rule; its `classname` is `locaudit.APP.DEVICE` (a
/// configuration: `locaudit.APP.iOS_MAJOR`) with every dot of the bundle id and device id
/// made `_`, since Jenkins splits a class name at its last dot (package `locaudit.APP`,
/// class `DEVICE`). The device part is the store's device id (the UDID), which a rename
/// does not change; the suite's name and its `deviceName` property carry the device's name.
public enum JUnitReporter {
    /// Where a case's checks ran: on a device (sessions), or an app's configuration on an iOS version.
    enum Place: Hashable, Comparable {
        case device(String)
        /// `iOS 12`, `an unknown iOS version`.
        case configuration(String)
    }

    /// One test case: an app, a place, a rule.
    struct CaseKey: Hashable, Comparable {
        var bundleId: String
        var place: Place
        var rule: String

        static func < (a: CaseKey, b: CaseKey) -> Bool { (a.bundleId, a.place, a.rule) < (b.bundleId, b.place, b.rule) }
    }

    public static func generateReport(_ report: AuditReport, options: ReportOptions = ReportOptions()) -> String {
        let findings = Dictionary(report.findings.map { ($0.fingerprint, $0) }, uniquingKeysWith: { a, _ in a })
        // A run a prune thinned: its findings are its only test cases left.
        let checks = report.checksPrunedAt == nil ? Array(report.checks) : report.findings.map {
            RuleCheckRecord(subject: subject(of: $0), rule: $0.rule, notEvaluable: nil, findings: [$0.fingerprint])
        }
        let knownDevices = Set(report.devices.keys).union(report.findings.map(\.device))
        let byCase = Dictionary(grouping: checks) { check -> CaseKey in
            let (bundle, place) = parse(check.subject, devices: knownDevices)
            return CaseKey(bundleId: bundle, place: place, rule: check.rule)
        }
        let bySuite = Dictionary(grouping: byCase.keys) { SuiteKey(bundleId: $0.bundleId, place: $0.place) }
        // A finding the project's config suppresses does not fail its case (the case is skipped, with the reason).
        func failed(_ key: CaseKey) -> Bool { byCase[key]!.contains { $0.findings.contains { findings[$0].map { $0.suppressed == nil } ?? false } } }
        func skipped(_ key: CaseKey) -> Bool {
            !failed(key) && (byCase[key]!.allSatisfy { $0.notEvaluable != nil } || byCase[key]!.contains { $0.findings.contains { findings[$0] != nil } })
        }
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<testsuites name=\"locaudit\" tests=\"\(byCase.count)\" failures=\"\(byCase.keys.filter(failed).count)\" errors=\"0\" "
            + "skipped=\"\(byCase.keys.filter(skipped).count)\" timestamp=\"\(attribute(report.startedAt))\">\n"
        for suite in bySuite.keys.sorted() {
            let cases = bySuite[suite]!.sorted()
            out += "  <testsuite name=\"\(attribute(suite.name(report)))\" tests=\"\(cases.count)\" failures=\"\(cases.filter(failed).count)\" "
                + "errors=\"0\" skipped=\"\(cases.filter(skipped).count)\">\n"
            var properties: [(String, String)] = []
            if case .device(let device) = suite.place {
                properties.append(("device", device))
                if let name = report.devices[device]?.name ?? report.findings.first(where: { $0.device == device })?.deviceName {
                    properties.append(("deviceName", name))
                }
                if let note = report.coverage.timeZones?[device] { properties.append(("timeZone", note)) }
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
            for key in cases {
                out += testCase(key, byCase[key]!, findings: findings, report: report)
            }
            out += "  </testsuite>\n"
        }
        out += "</testsuites>\n"
        return out
    }

    /// A suite: an app on a device, or an app's configuration on an iOS version.
    struct SuiteKey: Hashable, Comparable {
        var bundleId: String
        var place: Place

        static func < (a: SuiteKey, b: SuiteKey) -> Bool { (a.bundleId, a.place) < (b.bundleId, b.place) }

        /// `com.example.runner on qa-iphone12 (00008101-…)`, `com.example.legacy Info.plist on iOS 12`.
        func name(_ report: AuditReport) -> String {
            switch place {
            case .device(let device):
                let name = report.devices[device]?.name ?? report.findings.first(where: { $0.device == device })?.deviceName
                return "\(bundleId) on " + (name.map { $0 == device ? device : "\($0) (\(device))" } ?? device)
            case .configuration(let version): return "\(bundleId) Info.plist on \(version)"
            }
        }
    }

    /// `locaudit.com_example_runner.00008101-00085E0284779021`, `locaudit.com_example_legacy.iOS_12`.
    static func className(_ key: CaseKey) -> String {
        func part(_ s: String) -> String { s.replacingOccurrences(of: ".", with: "_") }
        switch key.place {
        case .device(let device): return "locaudit.\(part(key.bundleId)).\(part(device))"
        case .configuration(let version): return "locaudit.\(part(key.bundleId)).\(part(version).replacingOccurrences(of: " ", with: "_"))"
        }
    }

    static func testCase(_ key: CaseKey, _ checks: [RuleCheckRecord], findings: [String: Finding], report: AuditReport) -> String {
        var out = "    <testcase classname=\"\(attribute(className(key)))\" name=\"\(attribute(key.rule))\""
        var seen = Set<String>()
        let all = checks.flatMap(\.findings).filter { seen.insert($0).inserted }.compactMap { findings[$0] }.sorted(by: Finding.reportOrder)
        let shown = all.filter { $0.suppressed == nil }
        let reasons = Dictionary(grouping: checks.compactMap(\.notEvaluable), by: { $0 }).mapValues(\.count)
            .sorted { $0.key < $1.key }.map { "\($0.key) [\(Coverage.code(ofReason: $0.key))]" + ($0.value > 1 ? " (\($0.value) checks)" : "") }
        if !shown.isEmpty {
            let first = shown[0]
            let message = shown.count == 1 ? first.message : "\(shown.count) findings; first: \(first.message)"
            out += ">\n      <failure type=\"\(shown.map(\.severity).max()!.rawValue)\" message=\"\(attribute(message))\">"
            var body = shown.map { f in
                let place = f.sessionStart.map { "session pid \(f.pid.map(String.init) ?? "-") from \($0)" } ?? "configuration"
                let os = f.osVersion.map { ", iOS \($0)" } ?? ""
                let app = f.appVersionText.map { ", app \($0)" } ?? ""
                return "\(f.time) \(f.severity.rawValue) \(f.message)\n\(place)\(os)\(app), on \(report.deviceText(f))\nevidence:\n"
                    + f.evidence.map { "  " + $0.text }.joined(separator: "\n")
            }.joined(separator: "\n\n")
            if let rule = RuleRegistry.description(of: key.rule) {
                body += "\n\nowner: \(rule.owner.label)\nwhat to do: \(rule.whatToDo)"
            }
            out += text(body) + "</failure>\n    </testcase>\n"
        } else if let suppressed = all.first?.suppressed {
            out += ">\n      <skipped message=\"\(attribute(suppressed.text))\"/>\n    </testcase>\n"
        } else if !checks.isEmpty, checks.allSatisfy({ $0.notEvaluable != nil }) {
            out += ">\n      <skipped message=\"\(attribute("not evaluable: " + reasons.joined(separator: "; ")))\"/>\n    </testcase>\n"
        } else if !reasons.isEmpty {
            let unevaluated = checks.filter { $0.notEvaluable != nil }.count
            out += ">\n      <system-out>\(text("passed in \(checks.count - unevaluated) of \(checks.count) checks; not evaluable: " + reasons.joined(separator: "; ")))</system-out>\n    </testcase>\n"
        } else {
            out += "/>\n"
        }
        return out
    }

    /// The app and place of a check's subject: `DEVICE BUNDLE pid PID from START` (a session;
    /// the device is the longest known id it starts with, else all before the bundle id's
    /// space), `BUNDLE on iOS MAJOR` or `BUNDLE on an unknown iOS version` (a configuration).
    static func parse(_ subject: String, devices: Set<String>) -> (bundleId: String, place: Place) {
        for marker in [" on iOS ", " on an unknown iOS version"] {
            if let r = subject.range(of: marker, options: .backwards), !subject.contains(" pid "),
               marker == " on iOS " ? !subject[r.upperBound...].isEmpty && subject[r.upperBound...].allSatisfy(\.isNumber) : r.upperBound == subject.endIndex {
                return (String(subject[..<r.lowerBound]), .configuration(String(subject[r.lowerBound...].dropFirst(4))))
            }
        }
        let head = subject.range(of: " pid ", options: .backwards).map { String(subject[..<$0.lowerBound]) } ?? subject
        if let device = devices.filter({ head.hasPrefix($0 + " ") }).max(by: { $0.count < $1.count }) {
            return (String(head.dropFirst(device.count + 1)), .device(device))
        }
        guard let space = head.lastIndex(of: " ") else { return (head, .device("")) }
        return (String(head[head.index(after: space)...]), .device(String(head[..<space])))
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
