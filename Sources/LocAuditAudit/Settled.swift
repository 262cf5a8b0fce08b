import Foundation
import LocAuditModel
import LocAuditReplay
import LocAuditRules
import LocAuditStore

/// What an audit keeps of a session it has judged, once the session is over for good (the
/// app's next session has begun after its last line): its `sessions` row, what the session
/// rules made of it, and what the configuration rules read of it. The fleet's audit stores
/// these for every app's sessions before its checkpoint (`CentralAudit`), and the next audit
/// adds them to its counts instead of reading and replaying their lines again.
package struct SettledSession: Codable, Sendable, Equatable {
    // The `sessions` row.
    var pid: Int64?
    package var startUS: Int64
    var endUS: Int64
    var endReason: Session.EndReason
    var launchIntent: String?
    var relaunchService: String?
    var osVersion: String?
    var events: Int
    var firstEvent: Int64?
    var lastEvent: Int64?
    var statusAtStart: String?
    var statusAtEnd: String?
    // What the configuration rules read: the Info.plist in force (its SHA-256), whether the
    // app's own lines are there or only App Privacy Report intervals, and the configuration steps' lines.
    package var plist: String?
    var hasAppLines: Bool
    var onlyPrivacyReport: Bool
    var configurationEvents: [Int64]
    // What the session rules made of it.
    /// Whether the audit's window held it (counted and checked).
    var counted: Bool
    var checks: [Check]
    var notApplicable: Int
    /// No rule could be evaluated.
    var insufficient: Bool

    /// A rule's check of the session: evaluated (with the fingerprints of its findings) or not, and why.
    struct Check: Codable, Sendable, Equatable {
        var rule: String
        var notEvaluable: String?
        var findings: [String]?
    }

    /// The fingerprints of its findings.
    var findings: [String] { checks.flatMap { $0.findings ?? [] } }
}

/// One app on one device, up to its checkpoint: the lines before the checkpoint's second (counted
/// as read, as a full audit reads them) and the sessions settled, in time order.
package struct SettledApp: Codable, Sendable, Equatable {
    package var eventsBefore: Int
    package var sessions: [SettledSession]
    /// The lines the checkpoint's state names (`ReplayState.citedEvents`): a later session's
    /// finding may cite them.
    package var cited: [Int64]

    package init(eventsBefore: Int = 0, sessions: [SettledSession] = [], cited: [Int64] = []) {
        self.eventsBefore = eventsBefore
        self.sessions = sessions
        self.cited = cited
    }

    /// Every line an audit from the checkpoint reads of what is settled: the settled sessions'
    /// first and configuration lines, and those the state names.
    package var lines: [Int64] { sessions.flatMap(\.lines) + cited }
}

/// The settling of an audit: in, what earlier runs settled of each app on each device whose
/// checkpoint the store holds (and is still good); out, each app's new checkpoint and what it
/// settles, for the store to keep.
package final class Settling {
    /// Device and app (`ReplayCheckpoint.key`) -> what earlier runs settled.
    package let carried: [String: SettledApp]
    /// Device and app -> its new checkpoint and what is settled.
    package private(set) var made: [String: Made] = [:]

    package struct Made {
        package var deviceId: String
        package var bundleId: String
        /// The state after its last settled session; nil when none is settled yet.
        package var checkpoint: ReplayCheckpoint?
        package var settled: SettledApp
    }

    /// Device -> the line families its logs carry, as the checkpoints knew them (their lines are not read).
    package let deviceLogs: [String: DeviceLogs]

    package init(carried: [String: SettledApp] = [:], deviceLogs: [String: DeviceLogs] = [:]) {
        self.carried = carried
        self.deviceLogs = deviceLogs
    }

    /// Keeps an app's new checkpoint.
    func make(_ made: Made) { self.made[ReplayCheckpoint.key(made.deviceId, made.bundleId)] = made }

    /// The findings of the settled sessions renamed as the run recorded them (found -> stored).
    func rename(_ renamed: [String: String]) {
        guard !renamed.isEmpty else { return }
        for key in made.keys { made[key]!.settled.rename(renamed) }
    }
}

extension SettledApp {
    mutating func rename(_ renamed: [String: String]) {
        for s in sessions.indices {
            for c in sessions[s].checks.indices { sessions[s].checks[c].findings = sessions[s].checks[c].findings?.map { renamed[$0] ?? $0 } }
        }
    }
}

extension SettledSession {
    /// What `evaluation` made of `replayed`: `judged`'s checks, counted as `add` counted them.
    init(_ replayed: ReplayedSession, _ judged: RuleEvaluation.Judged) {
        let row = AuditRecorder.SessionRow(replayed)
        let s = row.session
        (pid, startUS, endUS, endReason) = (s.pid, s.startUS, s.endUS, s.endReason)
        (launchIntent, relaunchService, osVersion) = (s.launchIntent, s.relaunchService?.rawValue, s.osVersion?.text)
        (events, firstEvent, lastEvent) = (row.events, row.firstEvent, row.lastEvent)
        (statusAtStart, statusAtEnd) = (row.statusAtStart?.rawValue, row.statusAtEnd?.rawValue)
        plist = replayed.plist?.sha256
        hasAppLines = replayed.hasAppLines
        onlyPrivacyReport = replayed.session.onlyPrivacyReport
        configurationEvents = replayed.steps.filter(AppOnVersion.configurationStep).map(\.event.id)
        counted = judged.counted
        checks = judged.checks.map { Check(rule: $0.rule, notEvaluable: $0.notEvaluable, findings: $0.findings.isEmpty ? nil : $0.findings) }
        notApplicable = judged.notApplicable
        insufficient = judged.insufficient
    }

    /// The lines `configurationView` needs: the first and the configuration steps'.
    package var lines: [Int64] { (firstEvent.map { [$0] } ?? []) + configurationEvents }

    /// The session as configuration rules read it, its lines from `events`.
    func configurationView(deviceId: String, bundleId: String, plists: AppVersions, events: [Int64: AppEvent]) -> ReplayedSession {
        ReplayedSession(settled: deviceId, bundleId: bundleId, pid: pid, startUS: startUS, endUS: endUS, endReason: endReason,
                        osVersion: IOSVersion(osVersion), first: firstEvent.flatMap { events[$0] },
                        steps: configurationEvents.compactMap { events[$0] },
                        plist: plist.flatMap { sha in plists.versions.first { $0.sha256 == sha } }, hasAppLines: hasAppLines)
    }

    /// Its `sessions` row.
    func row(deviceId: String, bundleId: String) -> AuditRecorder.SessionRow {
        let session = Session(row: deviceId, bundleId: bundleId, pid: pid, startUS: startUS, endUS: endUS, endReason: endReason,
                              launchIntent: launchIntent, relaunchService: relaunchService.flatMap(LocationService.init(rawValue:)),
                              osVersion: IOSVersion(osVersion))
        return AuditRecorder.SessionRow(session: session, statusAtStart: statusAtStart.flatMap(AuthorizationStatus.init(rawValue:)),
                                        statusAtEnd: statusAtEnd.flatMap(AuthorizationStatus.init(rawValue:)), events: events,
                                        firstEvent: firstEvent, lastEvent: lastEvent)
    }
}
