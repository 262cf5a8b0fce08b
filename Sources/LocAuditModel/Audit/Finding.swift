/// One problem found: a rule broken in a session, or by an app's configuration on an iOS version.
public struct Finding: Encodable, Sendable, Equatable {
    public var rule: String
    public var severity: Severity
    public var device: String
    public var bundleId: String
    /// The session's process; nil for configuration findings.
    public var pid: Int64?
    /// When the session started (UTC microseconds); nil for configuration findings.
    public var sessionStartUS: Int64?
    /// `sessionStartUS` as ISO 8601 UTC (the JSON key `sessionStart`).
    public var sessionStart: String? { sessionStartUS.map(Timestamps.isoUTC) }
    /// When it first shows (ISO 8601 UTC).
    public var time: String
    public var message: String
    public var evidence: [EvidenceLine]

    /// Stable identity across runs and databases holding the same logs.
    public var fingerprint: String
    public var timeUS: Int64
    /// iOS version the finding was seen on.
    public var osVersion: String?
    /// Set when a suppression of the project's `.locaudit.yml` covers it: reported as
    /// suppressed, with its reason, and it does not fail the run.
    public var suppressed: SuppressionNote?
    /// The device's name (`DeviceName` of its ideviceinfo), when the store knows it; filled
    /// before reports are rendered (`ReportNames`), not stored with the finding.
    public var deviceName: String?
    /// The app's `CFBundleShortVersionString` and `CFBundleVersion` in the Info.plist in force
    /// (a session's when it started; a configuration finding's plist); filled as `deviceName` is.
    public var appVersion: String?
    public var appBuild: String?

    enum CodingKeys: String, CodingKey {
        case rule, severity, device, bundleId, pid, sessionStart, time, message, evidence
        case fingerprint, deviceName, appVersion, appBuild, suppressed
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(rule, forKey: .rule)
        try c.encode(severity, forKey: .severity)
        try c.encode(device, forKey: .device)
        try c.encode(bundleId, forKey: .bundleId)
        try c.encode(pid, forKey: .pid)
        try c.encode(sessionStart, forKey: .sessionStart)
        try c.encode(time, forKey: .time)
        try c.encode(message, forKey: .message)
        try c.encode(evidence, forKey: .evidence)
        try c.encode(fingerprint, forKey: .fingerprint)
        try c.encode(deviceName, forKey: .deviceName)
        try c.encode(appVersion, forKey: .appVersion)
        try c.encode(appBuild, forKey: .appBuild)
        try c.encode(suppressed, forKey: .suppressed)
    }

    package init(rule: String, severity: Severity, device: String, bundleId: String, pid: Int64? = nil, sessionStartUS: Int64? = nil, time: String, message: String, evidence: [EvidenceLine], fingerprint: String, timeUS: Int64, osVersion: String? = nil) {
        self.rule = rule
        self.severity = severity
        self.device = device
        self.bundleId = bundleId
        self.pid = pid
        self.sessionStartUS = sessionStartUS
        self.time = time
        self.message = message
        self.evidence = evidence
        self.fingerprint = fingerprint
        self.timeUS = timeUS
        self.osVersion = osVersion
    }
}

/// Why a finding is suppressed: the suppression's reason, its last day, where it is written.
public struct SuppressionNote: Codable, Sendable, Equatable {
    public var reason: String
    /// `YYYY-MM-DD`; nil: no end.
    public var expires: String?
    /// `.locaudit.yml:12`.
    public var source: String

    public init(reason: String, expires: String?, source: String) {
        (self.reason, self.expires, self.source) = (reason, expires, source)
    }

    /// `suppressed until 2027-06-30 (.locaudit.yml:5): FB13579: …`
    public var text: String {
        "suppressed\(expires.map { " until \($0)" } ?? "") (\(source)): \(reason)"
    }
}

/// Where to look: a log file and line, or the Info.plist (no line).
public struct EvidenceLine: Codable, Sendable, Equatable {
    public var file: String
    public var line: Int?
    /// The event's id in `events` (not in the JSON report).
    public var event: Int64?

    enum CodingKeys: String, CodingKey { case file, line }

    public init(file: String, line: Int?, event: Int64? = nil) {
        self.file = file
        self.line = line
        self.event = event
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(file, forKey: .file)
        try c.encode(line, forKey: .line)
    }

    public var text: String { line.map { "\(file):\($0)" } ?? file }
}

/// What the audit could and could not judge: a clean audit is only as good as this.
public struct Coverage: Codable, Sendable, Equatable {
    public var sessions = 0
    /// Sessions whose device's iOS version is unknown: only rules valid on every version ran.
    public var sessionsWithUnknownVersion = 0
    /// Sessions where no rule could be evaluated.
    public var insufficientSessions: [String] = []
    /// Rule checks evaluated (session x rule, app x iOS version x rule).
    public var evaluated = 0
    /// Rule checks not evaluable, by rule, then reason.
    public var notEvaluable: [String: [String: Int]] = [:]
    /// Rule checks skipped because the iOS version predates the rule.
    public var notApplicable = 0
    /// Devices whose log times were not read in a zone the logs or the ingest gave: device ->
    /// what was done (UTC assumed, or another export's offset taken). Nil when there are none.
    public var timeZones: [String: String]?
    /// The share of the applicable checks that were evaluated (0 to 1); nil in a run stored
    /// before version 2.
    public var evaluatedShare: Double?
    /// What the not-evaluable checks lacked, most needed first (v2); nil in an older run.
    public var missing: [Missing]?

    /// A fact (or evidence family) checks lacked, and how many.
    public struct Missing: Codable, Sendable, Equatable {
        public var fact: String
        public var checks: Int
    }

    public var notEvaluableCount: Int { notEvaluable.values.flatMap(\.values).reduce(0, +) }

    /// The stable code of a not-evaluable reason (`no-app-lines`): the missing fact's `code`,
    /// or one of the audit's own reasons; `other` for a sentence no version of locaudit knows.
    public static func code(ofReason reason: String) -> String {
        if let fact = Fact.allCases.first(where: { $0.unknown == reason }) { return fact.code }
        return auditReasons[reason] ?? "other"
    }

    /// The reasons the audit gives itself (not a fact a rule reads), by sentence.
    public static let auditReasons = [
        "only App Privacy Report intervals": "only-privacy-report",
        "no Info.plist, only App Privacy Report intervals": "no-info-plist-only-privacy-report",
    ]

    /// Fills `evaluatedShare` and `missing` from the counts.
    package mutating func summarise() {
        let applicable = evaluated + notEvaluableCount
        evaluatedShare = applicable == 0 ? 0 : Double(evaluated) / Double(applicable)
        var byFact: [String: Int] = [:]
        for reasons in notEvaluable.values {
            for (reason, n) in reasons {
                byFact[Fact.allCases.first { $0.unknown == reason }?.name ?? reason, default: 0] += n
            }
        }
        missing = byFact.map { Missing(fact: $0.key, checks: $0.value) }.sorted { ($1.checks, $0.fact) < ($0.checks, $1.fact) }
    }

    package mutating func count(_ rule: String, notEvaluable reason: String) {
        notEvaluable[rule, default: [:]][reason, default: 0] += 1
    }

    package init(insufficientSessions: [String] = [], notEvaluable: [String: [String: Int]] = [:], timeZones: [String: String]? = nil) {
        self.insufficientSessions = insufficientSessions
        self.notEvaluable = notEvaluable
        self.timeZones = timeZones
    }
}

/// How an audit came out.
public enum Verdict: String, Codable, Sendable {
    /// A finding at or above `--fail-on` was reported (v2: findings below it alone are no FAIL).
    case findings
    /// No finding at or above `--fail-on`, and every applicable check was evaluated.
    case pass
    /// No finding at or above `--fail-on`, and some applicable checks were not evaluable (v2).
    case partial
    /// Nothing could be evaluated: not a pass.
    case insufficientEvidence = "insufficient evidence"
}

/// One rule checked on one subject (a session, or an app on an iOS version): what JUnit
/// reports as a test case. Stored per run as `StoredChecks`.
public struct RuleCheckRecord: Codable, Sendable, Equatable {
    /// `DEVICE BUNDLE pid PID from START` for a session, `BUNDLE on iOS MAJOR` for a configuration.
    public var subject: String
    public var rule: String
    /// Nil when evaluated; the reason otherwise.
    public var notEvaluable: String?
    /// Fingerprints of the findings this check produced (shown or hidden by a baseline).
    public var findings: [String]

    package init(subject: String, rule: String, notEvaluable: String? = nil, findings: [String]) {
        self.subject = subject
        self.rule = rule
        self.notEvaluable = notEvaluable
        self.findings = findings
    }
}

/// How bad a finding is: `critical` > `high` > `medium` > `low` > `info`.
public enum Severity: String, Codable, CaseIterable, Comparable, Sendable {
    /// Informational.
    case info
    /// Cosmetic or transparency issue.
    case low
    /// The app gets more than it was promised, or asks more than it may.
    case medium
    /// The user's choice is not respected.
    case high
    /// Location reaches the app with no right to it, or the app crashes.
    case critical

    private var rank: Int { Severity.allCases.firstIndex(of: self)! }
    public static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
}
