import Foundation
import LocAuditModel
import LocAuditReplay

/// What `locaudit audit` is asked to do.
public struct AuditOptions: Sendable {
    /// Only these devices (their ids in the store); nil: every device.
    public var devices: Set<String>?
    /// Only these apps; nil: every app.
    public var bundleIds: Set<String>?
    /// Only findings at or after / before these times (UTC microseconds).
    public var sinceUS: Int64?
    public var untilUS: Int64?
    /// Only these rules (empty: all), minus the skipped ones.
    public var rules: [String] = []
    public var skipRules: [String] = []
    /// Findings at or above this severity fail the audit (exit 1).
    public var failOn: Severity = .high
    /// Findings of this baseline file are hidden.
    public var baseline: String?
    /// Save the current findings as a baseline here.
    public var writeBaseline: String?
    public var settings = RuleSettings()
    /// `--require-evidence all|RULE,…`: exit 3 when one of these rules (every rule for `all`)
    /// was left unevaluated somewhere; nil: not asked.
    public var requireEvidence: [String]?
    /// `--no-record`: the audit is reported, and nothing of it is written to the store.
    public var record = true
    /// The audit of a nightly `locaudit run` (scoped to what its new files touch).
    public var nightly = false
    /// The project's suppressions (`.locaudit.yml`); the audit marks the findings they cover.
    public var suppressions: [Suppression] = []

    public init() {}

    /// What the run covers, as `audit_runs.scope` records it: `nightly` (a `locaudit run`),
    /// `full` (every device, app, time and rule; `--skip-rule` is policy, not a narrowing),
    /// else `exploratory`. The fleet's trend counts nightly and full runs only.
    public var runScope: String {
        if nightly { return "nightly" }
        return devices == nil && bundleIds == nil && sinceUS == nil && untilUS == nil && rules.isEmpty ? "full" : "exploratory"
    }

    /// Only this device (`--device`): a scope of one.
    public var device: String? {
        get { devices?.count == 1 ? devices?.first : nil }
        set { devices = newValue.map { [$0] } }
    }

    /// Only this app (`--app`): a scope of one.
    public var bundleId: String? {
        get { bundleIds?.count == 1 ? bundleIds?.first : nil }
        set { bundleIds = newValue.map { [$0] } }
    }

    /// The devices and apps in scope, for the store's queries.
    package var scope: EventScope { EventScope(devices: devices, bundleIds: bundleIds) }

    /// The selected rule identifiers, in registry order.
    public var selectedRules: Set<String> {
        let all = RuleRegistry.descriptions.map(\.identifier)
        let chosen = rules.isEmpty ? all : all.filter(rules.contains)
        return Set(chosen.filter { !skipRules.contains($0) })
    }

    /// Identifiers given that are not rules.
    public var unknownRules: [String] {
        let known = Set(RuleRegistry.descriptions.map(\.identifier))
        return (rules + skipRules + (requireEvidence ?? []).filter { $0 != "all" }).filter { !known.contains($0) }
    }

    /// Whether a time falls in `--since` / `--until`.
    package func inWindow(_ timeUS: Int64) -> Bool {
        (sinceUS.map { timeUS >= $0 } ?? true) && (untilUS.map { timeUS <= $0 } ?? true)
    }

    /// `2026-11-20`, `2026-11-20T10:00:00Z`, `2026-11-20 10:00:00+01:00` (no zone: UTC), read by
    /// the parser of the logs' own stamps (`Timestamps.parseISOLike`) once a day alone, a time
    /// without seconds, `z`, `UTC`, `+01` and no zone are made whole. A day that does not exist is no time.
    public static func parseTime(_ text: String) -> Int64? {
        var t = text.trimmingCharacters(in: .whitespaces)
        if t.count == 10 { t += "T00:00:00" }
        if t.count == 16 { t += ":00" }
        if t.hasSuffix("z") { t = String(t.dropLast()) + "Z" }
        if t.hasSuffix("UTC") { t = String(t.dropLast(3)) + "Z" }
        if t.range(of: #"[+-]\d\d$"#, options: .regularExpression) != nil { t += "00" }
        return Self.wholeStamp(t) ?? Self.wholeStamp(t + "Z")
    }

    /// The instant of a stamp that is the whole of `text`.
    private static func wholeStamp(_ text: String) -> Int64? {
        Array(text.utf8).withUnsafeBufferPointer { b in
            Timestamps.parseISOLike(b).flatMap { $0.length == b.count ? $0.us : nil }
        }
    }
}

/// Why an audit could not run; each maps to a documented exit code.
public enum AuditError: Error, CustomStringConvertible, Sendable {
    /// `--rule` / `--skip-rule` name no rule (exit 2).
    case unknownRules([String])
    /// The baseline file cannot be read (exit 2).
    case unreadableBaseline(String, String)
    /// `locaudit report`: no audit run (nil: none at all) to render (exit 3).
    case noRun(Int64?)
    /// What a prune kept of an app's replay cannot be read (exit 3).
    case unreadableCheckpoint(device: String, bundle: String)
    /// `--device` names no device of the store (exit 2): the nearest names.
    case unknownDevice(String, nearest: [String])
    /// `--device` names several devices: their ids (exit 2).
    case ambiguousDevice(String, [String])
    /// `--app` names no app of the store (exit 2): the nearest bundle ids.
    case unknownApp(String, nearest: [String])

    public var description: String {
        switch self {
        case .unknownRules(let ids):
            return "unknown rule \(ids.map { "'\($0)'" }.joined(separator: ", ")); `locaudit rules` lists them."
        case .unreadableBaseline(let path, let why):
            return "cannot read the baseline \(path): \(why). Write one with --write-baseline."
        case .noRun(let id?):
            return "no audit run \(id) in this database; `locaudit query --sql 'SELECT id, started_at FROM audit_runs'` lists them."
        case .noRun(nil):
            return "no audit run in this database yet: run `locaudit audit` first."
        case .unknownDevice(let name, let nearest):
            return "no device '\(name)' in this database\(Nearest.suggestion(nearest)); `locaudit devices` lists them."
        case .ambiguousDevice(let name, let ids):
            return "\(ids.count) devices are named '\(name)' (\(ids.joined(separator: ", "))): give its UDID; `locaudit devices` lists them."
        case .unknownApp(let bundle, let nearest):
            return "no app '\(bundle)' in this database\(Nearest.suggestion(nearest)); `locaudit stats` lists the apps."
        case .unreadableCheckpoint(let device, let bundle):
            return "what prune kept of the replay of \(bundle) on \(device) (replay_checkpoints) cannot be read: it was written by "
                + "another version of locaudit. Audit with that version, or delete that row to replay only the lines left."
        }
    }

    public var exitCode: Int32 {
        switch self {
        case .noRun, .unreadableCheckpoint: return 3
        case .unknownRules, .unreadableBaseline, .unknownDevice, .ambiguousDevice, .unknownApp: return 2
        }
    }
}
