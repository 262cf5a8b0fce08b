import Foundation
import LocAuditIngest
import LocAuditModel
import LocAuditRules
import LocAuditNormalise
import LocAuditStore

/// Runs a rule's examples the way users run locaudit: the log (with its device facts and
/// Info.plist) is ingested into a temporary store by the real parser, then audited.
public enum RuleExampleRunner {
    /// What an example did.
    public struct Outcome: Sendable {
        /// Findings of the rule under test.
        public var findings: [Finding]
        /// Whether the rule was evaluated at least once (a non-evaluable rule proves nothing).
        public var evaluated: Bool
        /// Why it was not evaluable, when it was not.
        public var notEvaluable: [String]
        /// The iOS version predates the rule: it does not apply (a valid non-trigger at a version edge).
        public var beforeFirstVersion: Bool
    }

    /// A broken expectation: a triggering example that did not fire, a non-triggering one that
    /// did, a not-evaluable one that was judged or named another fact.
    public struct Drift: Sendable, CustomStringConvertible {
        public var rule: String
        public var example: RuleExample
        public var problem: String
        public var description: String { "\(example.file):\(example.line): \(rule): \(problem)" }
    }

    /// Ingests the example and audits it with `rule` only.
    public static func run(_ example: RuleExample, rule: String, settings: RuleSettings = RuleSettings()) throws -> Outcome {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("locaudit-example-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let log = dir.appendingPathComponent("example-2026-11-20.log").path
        try Data((example.log + "\n").utf8).write(to: URL(fileURLWithPath: log))
        var facts = "UniqueDeviceID: example-device\nDeviceName: iPhone\n"
        if let os = example.os { facts += "ProductVersion: \(os)\n" }
        try Data(facts.utf8).write(to: dir.appendingPathComponent("example-2026-11-20.ideviceinfo.txt"))
        var options = IngestOptions(paths: [log])
        options.quiet = true
        options.parse = ParseOptions(year: 2026, zone: TimeZone(identifier: "UTC"))
        if let plist = example.plist {
            let path = dir.appendingPathComponent("Info.plist").path
            try Data(plist.xml.utf8).write(to: URL(fileURLWithPath: path))
            options.infoPlists = [path]
        }
        let dbPath = dir.appendingPathComponent("example.sqlite").path
        let store = try Store(path: dbPath)
        let ingest = try Ingester(store: store, options: options).run()
        if let failed = ingest.files.first(where: { $0.error != nil }) {
            throw IngestError(description: "example did not ingest: \(failed.error ?? "")")
        }
        var audit = AuditOptions()
        audit.rules = [rule]
        audit.settings = settings
        let report = try Auditor(databasePath: dbPath, options: audit).run()
        return Outcome(findings: report.findings.filter { $0.rule == rule },
                       evaluated: report.coverage.evaluated > 0,
                       notEvaluable: report.coverage.notEvaluable[rule].map { Array($0.keys) } ?? [],
                       beforeFirstVersion: report.coverage.notApplicable > 0)
    }

    /// Every example of every rule (or of one): the drifts, empty when all behave.
    public static func check(only identifier: String? = nil) throws -> [Drift] {
        var drifts: [Drift] = []
        for rule in RuleRegistry.descriptions where identifier == nil || rule.identifier == identifier {
            drifts += try check(rule)
        }
        return drifts
    }

    /// One rule's examples.
    public static func check(_ rule: RuleDescription) throws -> [Drift] {
        var drifts: [Drift] = []
        for example in rule.triggeringExamples {
            let outcome = try run(example, rule: rule.identifier)
            if outcome.findings.isEmpty {
                let why = outcome.evaluated ? "" : " (not evaluable: \(outcome.notEvaluable.joined(separator: "; ")))"
                drifts.append(Drift(rule: rule.identifier, example: example, problem: "triggering example did not fire\(why)"))
            }
        }
        for example in rule.nonTriggeringExamples {
            let outcome = try run(example, rule: rule.identifier)
            if let f = outcome.findings.first {
                drifts.append(Drift(rule: rule.identifier, example: example, problem: "non-triggering example fired: \(f.message)"))
            } else if !outcome.evaluated, !outcome.beforeFirstVersion {
                drifts.append(Drift(rule: rule.identifier, example: example,
                                    problem: "non-triggering example was not evaluated (\(outcome.notEvaluable.joined(separator: "; "))), so it proves nothing"))
            }
        }
        for example in rule.notEvaluableExamples {
            let outcome = try run(example, rule: rule.identifier)
            let reason = example.unknown?.unknown ?? "(the example names no unknown fact)"
            if let f = outcome.findings.first {
                drifts.append(Drift(rule: rule.identifier, example: example, problem: "not-evaluable example fired: \(f.message)"))
            } else if outcome.evaluated || !outcome.notEvaluable.contains(reason) {
                drifts.append(Drift(rule: rule.identifier, example: example,
                                    problem: "not-evaluable example was \(outcome.evaluated ? "evaluated" : "not evaluable for: \(outcome.notEvaluable.joined(separator: "; "))"), not for: \(reason)"))
            }
        }
        return drifts
    }
}
