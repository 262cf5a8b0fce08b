import LocAuditModel
import LocAuditReplay

/// The result of one audit run: what to print and how to exit.
public struct AuditReport: Sendable {
    public var runId: Int64
    public var startedAt: String
    public var database: String
    public var events: Int
    /// Findings reported (a baseline's are hidden), most severe first.
    public var findings: [Finding]
    /// Fingerprints of reported findings not seen by the previous run.
    public var new: Set<String>
    /// Fingerprints of reported findings also seen by the previous run.
    public var persisting: Set<String>
    /// Findings of earlier runs, in this run's scope, no longer seen.
    public var resolved: [Finding]
    public var hiddenByBaseline: Int
    public var coverage: Coverage
    /// Every rule checked on every session and app configuration (JUnit's test cases), as
    /// the audit held them (16 bytes a check).
    public var checks = CheckLog()
    /// A stored run whose `checks` a prune dropped, and when: only its counts and findings are left.
    public var checksPrunedAt: String?
    public var failOn: Severity
    /// The store's devices by id (`ReportNames.apply`): their names for the checks' subjects,
    /// which no finding names; empty when not read.
    public var devices: [String: DeviceLabel] = [:]
    /// The replayed sessions the findings name, handed to the reporters so that the HTML
    /// timelines are drawn from the audit's own replay; nil for a run read back from the store.
    package var sessions: [ReplayedSession]? = nil

    /// `--require-evidence`: rules that must have been evaluated everywhere they apply
    /// (nil: none; `all` is every rule), else exit 3.
    public var requireEvidence: [String]?

    /// rules-model.md "The verdict" (v2).
    public var verdict: Verdict {
        if findings.contains(where: { $0.severity >= failOn && $0.suppressed == nil }) { return .findings }
        if coverage.evaluated == 0 { return .insufficientEvidence }
        return coverage.notEvaluableCount > 0 ? .partial : .pass
    }

    /// The rules `--require-evidence` names that were left unevaluated somewhere.
    public var unevaluatedRequired: [String] {
        guard let required = requireEvidence else { return [] }
        let left = coverage.notEvaluable.filter { !$0.value.isEmpty }.keys
        return (required.contains("all") ? left.sorted() : required.filter { left.contains($0) }.sorted())
    }

    /// 0 nothing at or above `--fail-on`, 1 findings at or above it, 3 insufficient evidence
    /// or a rule `--require-evidence` names left unevaluated.
    public var exitCode: Int32 {
        switch verdict {
        case .findings: return 1
        case .insufficientEvidence: return 3
        case .partial, .pass: return unevaluatedRequired.isEmpty ? 0 : 3
        }
    }

    package init(runId: Int64, startedAt: String, database: String, events: Int, findings: [Finding], new: Set<String>, persisting: Set<String>, resolved: [Finding], hiddenByBaseline: Int, coverage: Coverage, checks: [RuleCheckRecord] = [], checksPrunedAt: String? = nil, failOn: Severity, sessions: [ReplayedSession]? = nil) {
        self.runId = runId
        self.startedAt = startedAt
        self.database = database
        self.events = events
        self.findings = findings
        self.new = new
        self.persisting = persisting
        self.resolved = resolved
        self.hiddenByBaseline = hiddenByBaseline
        self.coverage = coverage
        self.checks = CheckLog(checks)
        self.checksPrunedAt = checksPrunedAt
        self.failOn = failOn
        self.sessions = sessions
    }
}

extension AuditReport {
    /// A device as reports name it: `qa-iphone12 (00008101-…)` when the store knows its
    /// name, else its id.
    public func deviceText(_ id: String) -> String {
        guard let name = devices[id]?.name, !name.isEmpty, name != id else { return id }
        return "\(name) (\(id))"
    }

    /// The same for a finding, which may carry its device's name itself.
    public func deviceText(_ f: Finding) -> String {
        guard let name = f.deviceName ?? devices[f.device]?.name, !name.isEmpty, name != f.device else { return f.device }
        return "\(name) (\(f.device))"
    }
}

extension Finding {
    /// `5.0.1 (501)`, `5.0.1`, `(501)`; nil when no Info.plist said it.
    public var appVersionText: String? {
        switch (appVersion, appBuild) {
        case let (version?, build?) where version != build: return "\(version) (\(build))"
        case let (version?, _): return version
        case let (nil, build?): return "(\(build))"
        case (nil, nil): return nil
        }
    }
}

extension Finding {
    /// Most severe first, then by time, rule and app.
    package static func reportOrder(_ a: Finding, _ b: Finding) -> Bool {
        if a.severity != b.severity { return a.severity > b.severity }
        return (a.timeUS, a.rule, a.bundleId, a.device) < (b.timeUS, b.rule, b.bundleId, b.device)
    }
}
