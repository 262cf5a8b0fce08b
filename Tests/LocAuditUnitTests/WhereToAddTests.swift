import Foundation
import Testing
@testable import LocAuditCommands
@testable import LocAuditNormalise
@testable import LocAuditReport
@testable import LocAuditRules

/// docs/architecture.md's "Where to add": each walk names a short list of files, and what
/// the lists promise is checked here, so that a change that forgets one of them fails.
@Suite struct WhereToAddTests {
    static func text(_ path: String) throws -> String {
        try String(contentsOf: packageRoot.appendingPathComponent(path), encoding: .utf8)
    }

    /// The rows of a Markdown table in `text` whose first cell is a code span: their names.
    static func tableNames(_ text: String) -> Set<String> {
        Set(text.split(separator: "\n").compactMap { line in
            let row = line.trimmingCharacters(in: .whitespaces)
            guard row.hasPrefix("| `"), let end = row.dropFirst(3).firstIndex(of: "`") else { return nil }
            return String(row[row.index(row.startIndex, offsetBy: 3)..<end])
        })
    }

    /// Every file the section names (`Name.swift`, `Sources/…`, `docs/….md`, `scripts/…`) exists.
    @Test("every file docs/architecture.md's \"Where to add\" names exists")
    func namedFilesExist() throws {
        let doc = try Self.text("docs/architecture.md")
        let start = try #require(doc.range(of: "## Where to add"))
        let section = doc[start.upperBound...].prefix { _ in true }
        let end = section.range(of: "\n## ")?.lowerBound ?? section.endIndex
        let names = section[..<end].matches(of: #/[A-Za-z0-9_./+-]+\.(swift|md|json|sh|py)\b/#).map { String($0.output.0) }
        #expect(names.count >= 15, "the section names \(names.count) files")
        let files = try FileManager.default.subpathsOfDirectory(atPath: packageRoot.path).filter { !$0.hasPrefix(".") }
        for name in Set(names) {
            let found = name.contains("/")
                ? files.contains { $0 == name || $0.hasSuffix("/" + name) }
                : files.contains { ($0 as NSString).lastPathComponent == name }
            #expect(found, "docs/architecture.md names \(name), which is not in the repository")
        }
    }

    /// A rule: its row in docs/audit.md is `locaudit rules list --markdown`'s, and docs/rules-model.md names it.
    @Test("every rule has its row in docs/audit.md's rule table (as rules list --markdown prints it) and in docs/rules-model.md")
    func ruleRows() throws {
        let audit = try Self.text("docs/audit.md")
        #expect(audit.contains(RulesText.markdown(RuleRegistry.descriptions)),
                "docs/audit.md's rule table is not `locaudit rules list --markdown`: paste its output there")
        let model = try Self.text("docs/rules-model.md")
        for rule in RuleRegistry.descriptions {
            #expect(model.contains("`\(rule.identifier)`"), "docs/rules-model.md does not name \(rule.identifier)")
        }
    }

    /// A report format: its expected file and its row in docs/reports.md.
    @Test("every report format has its expected file and its row in docs/reports.md", arguments: OutputFormat.allCases)
    func reportFormat(format: OutputFormat) throws {
        #expect(Self.tableNames(try Self.text("docs/reports.md")).contains(format.rawValue), "docs/reports.md has no row for \(format.rawValue)")
        let expected = packageRoot.appendingPathComponent("Tests/LocAuditKitTests/Expected/report.\(format.rawValue)").path
        #expect(FileManager.default.fileExists(atPath: expected), "no expected output \(expected)")
    }

    /// A container: its row in docs/ingest.md's table and its fuzz target.
    @Test("every container has its row in docs/ingest.md and a fuzz target", arguments: Container.allCases)
    func container(container: Container) throws {
        #expect(Self.tableNames(try Self.text("docs/ingest.md")).contains(container.rawValue), "docs/ingest.md has no row for \(container.rawValue)")
        let fuzz = try Self.text("scripts/fuzz.sh")
        let line = try #require(fuzz.split(separator: "\n").first { $0.hasPrefix("ALL_TARGETS=") })
        let targets = Set(line.dropFirst("ALL_TARGETS=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\"")).split(separator: " ").map(String.init))
        #expect(targets.contains(container.rawValue), "scripts/fuzz.sh has no fuzz target \(container.rawValue)")
    }

    /// A log wording: a pattern of the catalog resource, with samples (its tests) and where the wording comes from.
    @Test("every built-in pattern has samples and a provenance")
    func patternProvenance() {
        for pattern in Catalog.builtin.patterns {
            #expect(!pattern.samples.isEmpty, "\(pattern.id) has no sample")
            #expect(pattern.provenance != nil, "\(pattern.id) does not say where its wording comes from")
        }
    }
}
