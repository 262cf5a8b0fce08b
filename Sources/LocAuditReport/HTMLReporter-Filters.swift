import LocAuditModel
import LocAuditRules

/// The findings' filters: one choice of severity, of app and of rule, each `all` by default,
/// narrowing the list without a script. Each choice is a radio button; the page's style sheet
/// hides every finding that does not match a checked one (`main:has(#f-app-2:checked)
/// .finding:not(.app-2)`), so the Content-Security-Policy needs no `script-src` and nothing
/// is loaded. The choices combine: a severity and an app show that app's findings of that
/// severity. A counter drawn above the list says how many show.
struct FindingFilters {
    /// The severities of the page's findings, the most severe first, with their counts.
    let severities: [(Severity, Int)]
    /// The apps, in name order, with their counts.
    let apps: [(String, Int)]
    /// The rules, the most severe first, then by name, with their counts.
    let rules: [(String, Int)]
    let total: Int

    init(_ findings: [Finding]) {
        total = findings.count
        severities = Severity.allCases.reversed().map { s in (s, findings.filter { $0.severity == s }.count) }.filter { $0.1 > 0 }
        apps = Dictionary(grouping: findings, by: \.bundleId).map { ($0.key, $0.value.count) }.sorted { $0.0 < $1.0 }
        let severity = Dictionary(findings.map { ($0.rule, $0.severity) }, uniquingKeysWith: max)
        rules = Dictionary(grouping: findings, by: \.rule).map { ($0.key, $0.value.count) }
            .sorted { (severity[$0.0]!, $1.0) > (severity[$1.0]!, $0.0) }
        appIndex = Dictionary(uniqueKeysWithValues: apps.enumerated().map { ($0.element.0, $0.offset + 1) })
        ruleIndex = Dictionary(uniqueKeysWithValues: rules.enumerated().map { ($0.element.0, $0.offset + 1) })
    }

    private let appIndex: [String: Int]
    private let ruleIndex: [String: Int]

    /// A finding's classes besides its severity's: `app-N rule-M` (names from logs are not
    /// class names: they are numbered).
    func classes(_ f: Finding) -> String {
        "app-\(appIndex[f.bundleId] ?? 0) rule-\(ruleIndex[f.rule] ?? 0)"
    }

    /// The page's own rules, one for each choice: hide the findings that do not match it.
    var css: String {
        guard total > 0 else { return "" }
        var rules = severities.map { s, _ in
            "main:has(#f-sev-\(s.rawValue):checked) .finding:not(.sev-\(s.rawValue)) { display: none; }"
        }
        rules += apps.indices.map { "main:has(#f-app-\($0 + 1):checked) .finding:not(.app-\($0 + 1)) { display: none; }" }
        rules += self.rules.indices.map { "main:has(#f-rule-\($0 + 1):checked) .finding:not(.rule-\($0 + 1)) { display: none; }" }
        return "<style>\n/* The findings' filters: a checked choice hides the findings that do not match it. */\n"
            + rules.joined(separator: "\n") + "\n</style>\n"
    }

    /// The three groups of choices.
    func controls() -> String {
        var html = "<div class=\"filters\" role=\"group\" aria-label=\"Narrow the findings\">\n"
        html += group("Severity", "sev", severities.map { s, n in (s.rawValue, "<span class=\"badge sev-\(s.rawValue)\">\(s.rawValue)</span> \(n)") })
        html += group("App", "app", apps.enumerated().map { i, app in ("\(i + 1)", "<code>\(HTMLFormat.escape(app.0))</code> \(app.1)") })
        html += group("Rule", "rule", rules.enumerated().map { i, rule in ("\(i + 1)", "<code>\(HTMLFormat.escape(rule.0))</code> \(rule.1)") })
        return html + "</div>\n"
    }

    /// One group: `all`, checked, then a choice a value.
    private func group(_ legend: String, _ key: String, _ choices: [(id: String, label: String)]) -> String {
        var html = "<fieldset class=\"filter\"><legend>\(legend)</legend><div class=\"choices\">\n"
        html += "<input type=\"radio\" name=\"f-\(key)\" id=\"f-\(key)-all\" checked><label for=\"f-\(key)-all\">all \(total)</label>\n"
        for choice in choices {
            html += "<input type=\"radio\" name=\"f-\(key)\" id=\"f-\(key)-\(choice.id)\"><label for=\"f-\(key)-\(choice.id)\">\(choice.label)</label>\n"
        }
        return html + "</div></fieldset>\n"
    }
}
