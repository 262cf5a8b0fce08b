import LocAuditModel
import LocAuditNormalise
import LocAuditRead

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

/// Runs the selected rules over replayed sessions and counts what could be judged.
///
/// Version gating is done here, once: a rule with a first iOS version is not evaluable on
/// a session of unknown version, and not applicable (not counted) before that version.
enum RuleEvaluation {
    static func evaluate(_ timelines: [[ReplayedSession]], options: AuditOptions, progress: ProgressBar? = nil)
        -> (findings: [RawFinding], coverage: Coverage, checks: [RuleCheckRecord]) {
        let selected = options.selectedRules
        let sessionRules = RuleRegistry.sessionRules.filter { selected.contains(type(of: $0).description.identifier) }
        let configurationRules = RuleRegistry.configurationRules.filter { selected.contains(type(of: $0).description.identifier) }
        var findings: [RawFinding] = []
        var coverage = Coverage()
        // Per app and iOS major version, one part per Info.plist in force for its sessions there.
        var byAppVersion: [String: [AppOnVersion]] = [:]
        var unknownVersionApps = Set<String>()
        var checks: [RuleCheckRecord] = []

        var sessionsSeen = 0
        for timeline in timelines {
            progress?.advance(to: sessionsSeen)
            sessionsSeen += timeline.count
            for replayed in timeline where overlaps(replayed.session, options) {
                let session = replayed.session
                coverage.sessions += 1
                if let version = session.osVersion {
                    let key = "\(session.bundleId)\u{0}\(version.major)"
                    if let part = byAppVersion[key]?.firstIndex(where: { $0.plist == replayed.plist }) {
                        byAppVersion[key]![part].sessions.append(replayed)
                    } else {
                        byAppVersion[key, default: []].append(AppOnVersion(bundleId: session.bundleId, version: version,
                                                                           plist: replayed.plist, sessions: [replayed]))
                    }
                } else {
                    coverage.sessionsWithUnknownVersion += 1
                    unknownVersionApps.insert(session.bundleId)
                }
                var evaluatedHere = 0
                let subject = "\(session.deviceId) \(session.bundleId) pid \(session.pid.map(String.init) ?? "-") from \(Timestamps.isoUTC(session.startUS))"
                for rule in sessionRules {
                    let description = type(of: rule).description
                    if session.onlyPrivacyReport {
                        coverage.count(description.identifier, notEvaluable: "only App Privacy Report intervals")
                        checks.append(RuleCheckRecord(subject: subject, rule: description.identifier, notEvaluable: "only App Privacy Report intervals", findings: []))
                        continue
                    }
                    guard gate(description, session.osVersion, &coverage, subject: subject, &checks) else { continue }
                    switch rule.check(replayed, options.settings) {
                    case .notEvaluable(let reason):
                        coverage.count(description.identifier, notEvaluable: reason)
                        checks.append(RuleCheckRecord(subject: subject, rule: description.identifier, notEvaluable: reason, findings: []))
                    case .evaluated(let violations):
                        coverage.evaluated += 1
                        evaluatedHere += 1
                        var check = RuleCheckRecord(subject: subject, rule: description.identifier, notEvaluable: nil, findings: [])
                        let shown = violations.filter { options.inWindow($0.timeUS) }
                        if !shown.isEmpty {
                            let raw = RawFinding(rule: description, deviceId: session.deviceId, bundleId: session.bundleId,
                                                 pid: session.pid, sessionStartUS: session.startUS,
                                                 osVersion: session.osVersion, violations: shown, sessionEvents: session.events)
                            findings.append(raw)
                            check.findings = [raw.fingerprint]
                        }
                        checks.append(check)
                    }
                }
                if evaluatedHere == 0 {
                    coverage.insufficientSessions.append(subject)
                }
            }
        }

        for parts in byAppVersion.values.sorted(by: { ($0[0].bundleId, $0[0].version.major) < ($1[0].bundleId, $1[0].version.major) }) {
            // The app's configuration on that version is the one of its latest session there:
            // its sessions under that Info.plist are judged by it, earlier ones under another
            // Info.plist are not judged again (a later Info.plist alone changes nothing).
            let app = parts.max { $0.latestStartUS < $1.latestStartUS }!
            // Without the Info.plist, only the app's own lines can show its configuration.
            let noEvidence = app.app == nil && app.sessions.allSatisfy(\.session.onlyPrivacyReport)
            let subject = "\(app.bundleId) on iOS \(app.version.major)"
            for rule in configurationRules {
                let description = type(of: rule).description
                guard gate(description, app.version, &coverage, subject: subject, &checks) else { continue }
                if noEvidence {
                    coverage.count(description.identifier, notEvaluable: "no Info.plist, only App Privacy Report intervals")
                    checks.append(RuleCheckRecord(subject: subject, rule: description.identifier, notEvaluable: "no Info.plist, only App Privacy Report intervals", findings: []))
                    continue
                }
                switch rule.check(app, options.settings) {
                case .notEvaluable(let reason):
                    coverage.count(description.identifier, notEvaluable: reason)
                    checks.append(RuleCheckRecord(subject: subject, rule: description.identifier, notEvaluable: reason, findings: []))
                case .evaluated(let violations):
                    coverage.evaluated += 1
                    var check = RuleCheckRecord(subject: subject, rule: description.identifier, notEvaluable: nil, findings: [])
                    let shown = violations.filter { options.inWindow($0.timeUS) }
                    if !shown.isEmpty {
                        let plists = shown.contains(where: \.infoPlist) ? app.plist.map { [$0.path] } ?? [] : []
                        let raw = RawFinding(rule: description, deviceId: app.sessions[0].session.deviceId, bundleId: app.bundleId,
                                             pid: nil, sessionStartUS: nil, osVersion: app.version, violations: shown,
                                             context: app.sessions[0].session.events.prefix(1).map(\.id), plists: plists)
                        findings.append(raw)
                        check.findings = [raw.fingerprint]
                    }
                    checks.append(check)
                }
            }
        }
        for bundle in unknownVersionApps.sorted() {
            for rule in configurationRules {
                coverage.count(type(of: rule).description.identifier, notEvaluable: "unknown iOS version")
                checks.append(RuleCheckRecord(subject: "\(bundle) on an unknown iOS version", rule: type(of: rule).description.identifier,
                                              notEvaluable: "unknown iOS version", findings: []))
            }
        }
        return (findings, coverage, checks)
    }

    /// Whether a rule applies to a version: counts "unknown iOS version" and "before the rule" on the way.
    private static func gate(_ rule: RuleDescription, _ version: IOSVersion?, _ coverage: inout Coverage,
                             subject: String, _ checks: inout [RuleCheckRecord]) -> Bool {
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
