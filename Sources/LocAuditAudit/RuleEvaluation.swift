import LocAuditModel
import LocAuditReplay
import LocAuditRules
import LocAuditNormalise
import LocAuditRead
import LocAuditStore

/// A rule broken once: in a session, or by an app on an iOS version, with every violation.
struct RawFinding {
    var rule: RuleDescription
    var deviceId: String
    var bundleId: String
    var pid: Int64?
    var sessionStartUS: Int64?
    var osVersion: IOSVersion?
    var violations: [Violation]
    /// Events that place a configuration finding: the app's first line on that iOS version.
    var context: [Int64] = []
    /// A session finding's session: its events, the first of which opened it.
    var sessionEvents: [AppEvent] = []
    /// The Info.plists a configuration finding's violations were judged by (cited as evidence).
    var plists: [String] = []

    /// Identity across runs and databases holding the same logs: the rule and the session
    /// (device, app, pid and the line that opened it: its UTC second and line fingerprint,
    /// the same in every export), or the rule, the app and the iOS major version. A session
    /// that gains lines later keeps its findings by `AuditRecorder.keepIdentities`.
    var fingerprint: String {
        if let opening = sessionEvents.first {
            return Fingerprint.of("\(rule.identifier)|\(deviceId)|\(bundleId)|\(pid.map(String.init) ?? "-")|"
                + "\(LineFingerprint.second(opening.timeUS)):\(opening.fingerprint)")
        }
        return Fingerprint.of("\(rule.identifier)|\(bundleId)|ios\(osVersion?.major ?? 0)")
    }
}

/// Runs the selected rules over replayed sessions and counts what could be judged: the
/// session rules on each app's sessions as they come (`add`), the configuration rules once
/// all have come (`finish`).
///
/// Version gating is done here, once: a rule with a first iOS version is not evaluable on
/// a session of unknown version, and not applicable (not counted) before that version.
struct RuleEvaluation {
    let options: AuditOptions
    private let sessionRules: [any SessionRule]
    private let configurationRules: [any ConfigurationRule]
    private(set) var findings: [RawFinding] = []
    private var coverage = Coverage()
    /// Per app and iOS major version, one part per Info.plist in force for its sessions there,
    /// each session as configuration rules read it (`AppOnVersion.configurationView`).
    private var byAppVersion: [String: [AppOnVersion]] = [:]
    /// The same keys: whether every session of the part has only App Privacy Report intervals.
    private var onlyPrivacyReport: [String: [Bool]] = [:]
    private var unknownVersionApps = Set<String>()
    /// Every check, compactly (a run checks about 20 rules on every session).
    private var checks = CheckLog()

    init(options: AuditOptions) {
        self.options = options
        let selected = options.selectedRules
        sessionRules = RuleRegistry.sessionRules.filter { selected.contains(type(of: $0).description.identifier) }
        configurationRules = RuleRegistry.configurationRules.filter { selected.contains(type(of: $0).description.identifier) }
    }

    /// What `add` made of one session: whether the window held it, its checks, the checks not
    /// applicable to its iOS version, and whether no rule could be evaluated.
    struct Judged {
        var counted = false
        var checks: ArraySlice<RuleCheckRecord> = []
        var notApplicable = 0
        var insufficient = false
    }

    /// Checks the sessions of one app on one device (in time order) and keeps what the
    /// configuration rules will read of them; `judged` gets what was made of each session.
    mutating func add(_ timeline: [ReplayedSession], judged: ((Int, Judged) -> Void)? = nil) {
        for (index, replayed) in timeline.enumerated() {
            let made = add(replayed)
            judged?(index, made)
        }
    }

    /// Checks one session (an app's sessions come in time order) and keeps what the
    /// configuration rules will read of it; returns what was made of it.
    @discardableResult
    mutating func add(_ replayed: ReplayedSession) -> Judged {
        guard Self.overlaps(replayed.session, options) else { return Judged() }
        let session = replayed.session
        let (checksBefore, notApplicableBefore) = (checks.count, coverage.notApplicable)
        coverage.sessions += 1
        if let version = session.osVersion {
            keep(replayed.configurationView, bundleId: session.bundleId, version: version, onlyPrivacyReport: session.onlyPrivacyReport)
        } else {
            coverage.sessionsWithUnknownVersion += 1
            unknownVersionApps.insert(session.bundleId)
        }
        var evaluatedHere = 0
        let subject = Self.subject(session.deviceId, session.bundleId, session.pid, session.startUS)
        for rule in sessionRules {
            let description = type(of: rule).description
            if session.onlyPrivacyReport {
                notEvaluable(description, "only App Privacy Report intervals", subject: subject)
                continue
            }
            guard Self.gate(description, session.osVersion, &coverage, subject: subject, &checks) else { continue }
            let evaluated = record(rule.check(replayed, options.settings), description, subject: subject) { shown in
                RawFinding(rule: description, deviceId: session.deviceId, bundleId: session.bundleId, pid: session.pid,
                           sessionStartUS: session.startUS, osVersion: session.osVersion, violations: shown, sessionEvents: session.events)
            }
            if evaluated { evaluatedHere += 1 }
        }
        if evaluatedHere == 0 {
            coverage.insufficientSessions.append(subject)
        }
        return Judged(counted: true, checks: ArraySlice(checks[checksBefore...]), notApplicable: coverage.notApplicable - notApplicableBefore,
                      insufficient: evaluatedHere == 0)
    }

    /// Counts a session an earlier run judged (`SettledSession`) as `add` counted it then,
    /// `view` being what configuration rules read of it.
    mutating func add(settled: SettledSession, deviceId: String, bundleId: String, view: ReplayedSession) {
        guard settled.counted else { return }
        coverage.sessions += 1
        if let version = view.session.osVersion {
            keep(view, bundleId: bundleId, version: version, onlyPrivacyReport: settled.onlyPrivacyReport)
        } else {
            coverage.sessionsWithUnknownVersion += 1
            unknownVersionApps.insert(bundleId)
        }
        let subject = Self.subject(deviceId, bundleId, settled.pid, settled.startUS)
        for check in settled.checks {
            if let reason = check.notEvaluable { coverage.count(check.rule, notEvaluable: reason) } else { coverage.evaluated += 1 }
            checks.append(RuleCheckRecord(subject: subject, rule: check.rule, notEvaluable: check.notEvaluable, findings: check.findings ?? []))
        }
        coverage.notApplicable += settled.notApplicable
        if settled.insufficient { coverage.insufficientSessions.append(subject) }
    }

    /// A session as checks name it.
    static func subject(_ deviceId: String, _ bundleId: String, _ pid: Int64?, _ startUS: Int64) -> String {
        "\(deviceId) \(bundleId) pid \(pid.map(String.init) ?? "-") from \(Timestamps.isoUTC(startUS))"
    }

    /// Keeps what configuration rules read of a session, in its app's part for its iOS major
    /// version and Info.plist.
    private mutating func keep(_ view: ReplayedSession, bundleId: String, version: IOSVersion, onlyPrivacyReport only: Bool) {
        let key = "\(bundleId)\u{0}\(version.major)"
        if let part = byAppVersion[key]?.firstIndex(where: { $0.plist == view.plist }) {
            byAppVersion[key]![part].sessions.append(view)
            onlyPrivacyReport[key]![part] = onlyPrivacyReport[key]![part] && only
        } else {
            byAppVersion[key, default: []].append(AppOnVersion(bundleId: bundleId, version: version, plist: view.plist, sessions: [view]))
            onlyPrivacyReport[key, default: []].append(only)
        }
    }

    /// Runs the configuration rules over what `add` kept; returns everything found and counted
    /// (the checks handed over: not kept here too).
    mutating func finish() -> (findings: [RawFinding], coverage: Coverage, checks: CheckLog) {
        defer { checks = CheckLog() }
        let keys = byAppVersion.keys.sorted {
            let (a, b) = (byAppVersion[$0]![0], byAppVersion[$1]![0])
            return (a.bundleId, a.version.major) < (b.bundleId, b.version.major)
        }
        for key in keys {
            let parts = byAppVersion[key]!
            // The app's configuration on that version is the one of its latest session there:
            // its sessions under that Info.plist are judged by it, earlier ones under another
            // Info.plist are not judged again (a later Info.plist alone changes nothing).
            let latest = parts.indices.max { parts[$0].latestStartUS < parts[$1].latestStartUS }!
            let app = parts[latest]
            // Without the Info.plist, only the app's own lines can show its configuration.
            let noEvidence = app.app == nil && onlyPrivacyReport[key]![latest]
            let subject = "\(app.bundleId) on iOS \(app.version.major)"
            for rule in configurationRules {
                let description = type(of: rule).description
                guard Self.gate(description, app.version, &coverage, subject: subject, &checks) else { continue }
                if noEvidence {
                    notEvaluable(description, "no Info.plist, only App Privacy Report intervals", subject: subject)
                    continue
                }
                record(rule.check(app, options.settings), description, subject: subject) { shown in
                    let plists = shown.contains(where: \.infoPlist) ? app.plist.map { [$0.path] } ?? [] : []
                    let (device, own) = Self.ownLines(shown, of: app)
                    return RawFinding(rule: description, deviceId: device, bundleId: app.bundleId,
                                      pid: nil, sessionStartUS: nil, osVersion: app.version, violations: own,
                                      context: (app.sessions.first { $0.session.deviceId == device } ?? app.sessions[0]).session.events.prefix(1).map(\.id),
                                      plists: plists)
                }
            }
        }
        for bundle in unknownVersionApps.sorted() {
            for rule in configurationRules {
                notEvaluable(type(of: rule).description, "unknown iOS version", subject: "\(bundle) on an unknown iOS version")
            }
        }
        return (findings, coverage, checks)
    }

    /// A configuration finding is recorded with one device and cites that device's lines only:
    /// the device of the app's first session when a violation has lines there, else the
    /// device of the first violation's lines. Violations with no line of it (an Info.plist's
    /// alone) stay; the lines of other devices go.
    static func ownLines(_ shown: [Violation], of app: AppOnVersion) -> (device: String, violations: [Violation]) {
        var deviceOf: [Int64: String] = [:]
        for replayed in app.sessions {
            for event in replayed.session.events { deviceOf[event.id] = replayed.session.deviceId }
            for step in replayed.steps { deviceOf[step.event.id] = replayed.session.deviceId }
        }
        let first = app.sessions[0].session.deviceId
        let cited = shown.flatMap(\.events).compactMap { deviceOf[$0] }
        let device = cited.contains(first) ? first : cited.first ?? first
        let own = shown.compactMap { violation -> Violation? in
            var v = violation
            v.events = v.events.filter { deviceOf[$0].map { $0 == device } ?? true }
            // A violation that cited only other devices' lines goes.
            return v.events.isEmpty && !violation.events.isEmpty && !v.infoPlist ? nil : v
        }
        return (device, own)
    }

    /// Counts a rule's check of `subject` and records it, with the finding `raw` makes of the
    /// violations in the time window, if any. Returns whether the rule could be evaluated.
    @discardableResult
    private mutating func record(_ result: RuleCheck, _ description: RuleDescription, subject: String,
                                 raw: ([Violation]) -> RawFinding) -> Bool {
        switch result {
        case .notEvaluable(let reason):
            notEvaluable(description, reason, subject: subject)
            return false
        case .evaluated(let violations):
            coverage.evaluated += 1
            var check = RuleCheckRecord(subject: subject, rule: description.identifier, notEvaluable: nil, findings: [])
            let shown = violations.filter { options.inWindow($0.timeUS) }
            if !shown.isEmpty {
                let finding = raw(shown)
                findings.append(finding)
                check.findings = [finding.fingerprint]
            }
            checks.append(check)
            return true
        }
    }

    private mutating func notEvaluable(_ description: RuleDescription, _ reason: String, subject: String) {
        coverage.count(description.identifier, notEvaluable: reason)
        checks.append(RuleCheckRecord(subject: subject, rule: description.identifier, notEvaluable: reason, findings: []))
    }

    /// Whether a rule applies to a version: counts "unknown iOS version" and "before the rule"
    /// on the way. An unknown version makes every version-dependent rule not evaluable (v2),
    /// whether or not it has a first version.
    private static func gate(_ rule: RuleDescription, _ version: IOSVersion?, _ coverage: inout Coverage,
                             subject: String, _ checks: inout CheckLog) -> Bool {
        guard version != nil || !rule.versionDependent else {
            coverage.count(rule.identifier, notEvaluable: Fact.iosVersion.unknown)
            checks.append(RuleCheckRecord(subject: subject, rule: rule.identifier, notEvaluable: Fact.iosVersion.unknown, findings: []))
            return false
        }
        guard let first = rule.firstVersion else { return true }
        guard let version else {
            coverage.count(rule.identifier, notEvaluable: "unknown iOS version")
            checks.append(RuleCheckRecord(subject: subject, rule: rule.identifier, notEvaluable: "unknown iOS version", findings: []))
            return false
        }
        if version.major < first {
            coverage.notApplicable += 1
            return false
        }
        return true
    }

    private static func overlaps(_ session: Session, _ options: AuditOptions) -> Bool {
        (options.sinceUS.map { session.endUS >= $0 } ?? true) && (options.untilUS.map { session.startUS <= $0 } ?? true)
    }
}
