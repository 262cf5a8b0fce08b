import Foundation
import GRDB
import LocAuditModel
import LocAuditNormalise

/// A family of messages: what a log can show about an app, and so what the audit can judge.
/// The evidence families of docs/rules-model.md (v2) are families of their own, named as the
/// not-evaluable reasons name them: indicator, prompts, answers, status changes, accuracy
/// changes, relaunches.
public enum MessageFamily: String, CaseIterable, Codable, Sendable {
    /// The app's own CoreLocation lines.
    case app
    /// App states and launches.
    case appState = "app-state"
    /// locationd's relaunches of an app for a location event.
    case relaunches
    /// locationd's status changes (also a location-button grant, a temporary grant's lapse).
    case statusChanges = "status-changes"
    /// locationd's accuracy changes.
    case accuracyChanges = "accuracy-changes"
    /// locationd's other lines about the app: location subscriptions.
    case daemon
    /// The background location indicator (blue bar).
    case indicator
    /// Authorization prompts.
    case prompts
    /// The user's answers to them.
    case answers
    /// Installs and uninstalls.
    case installs
    /// App Privacy Report intervals.
    case privacyReport = "privacy-report"
    /// iOS's own CLLocationManager lines (`systemProcesses`): stored, never an app's.
    case system

    /// What the family's lines are.
    public var meaning: String {
        switch self {
        case .app: return "the app's own CoreLocation lines: authorization callbacks, deliveries, calls, manager flags, crashes"
        case .appState: return "app states and launches (locationd, RunningBoard, FrontBoard, SpringBoard), the location arrow"
        case .relaunches: return "locationd relaunching the app for a location event, with the service"
        case .statusChanges: return "locationd changing the app's authorization (a prompt, Settings, a location button, a lapse)"
        case .accuracyChanges: return "locationd changing the app's accuracy (Precise Location, a temporary full-accuracy grant)"
        case .daemon: return "locationd's other lines about the app: location subscriptions"
        case .indicator: return "the blue bar (background location indicator) naming the app"
        case .prompts: return "authorization prompts"
        case .answers: return "the user's answers to authorization prompts"
        case .installs: return "installs and uninstalls (MobileInstallation, installd)"
        case .privacyReport: return "App Privacy Report location intervals"
        case .system: return "iOS's own CLLocationManager lines (routined, contextstored, ...), never an app's"
        }
    }

    /// What the audit cannot judge on a device whose logs have none of the family's lines.
    public var withoutIt: String? {
        switch self {
        case .app: return "no delivery, status callback or manager flag of any app can be judged (an export filtered to system processes?)"
        case .appState: return "foreground and background cannot be told apart: the background rules are not evaluable"
        case .relaunches: return "relaunch-without-always cannot be judged"
        case .statusChanges: return "statuses are known only from the apps' own callbacks and prompt answers; a location-button grant or a lapse is not seen"
        case .accuracyChanges: return "temporary full-accuracy grants cannot be judged (temporary-precise-without-authorization, temporary-precise-persisting)"
        case .daemon: return nil
        case .indicator: return "missing-blue-bar and unexpected-blue-bar cannot be judged"
        case .prompts: return "prompts cannot be judged (repeated-always-prompt, direct-always-grant, grant-without-usage-description)"
        case .answers: return "a grant's kind (Allow Once, permanent) is known only from status changes"
        case .installs: return "an uninstall, which resets an app's authorization, cannot be seen"
        case .privacyReport, .system: return nil
        }
    }

    /// The family of an event recognised by `pattern` (nil: not in the catalog) of `kind`,
    /// logged by `process`.
    static func of(kind: EventKind, pattern: CatalogPattern?, process: String?, catalog: Catalog) -> MessageFamily {
        switch kind {
        case .accessBegin, .accessEnd: return .privacyReport
        case .install, .uninstall: return .installs
        case .prompt: return .prompts
        case .promptResponse: return .answers
        case .blueBar: return .indicator
        case .appState, .launch, .locationArrow: return .appState
        case .relaunch: return .relaunches
        case .statusChange: return .statusChanges
        case .accuracyChange: return .accuracyChanges
        case .authorization, .location, .property, .call, .crash, .usageKeyMissing, .mainThreadWarning:
            // A pattern no longer in the catalog: these kinds are the app's own lines.
            let scope = pattern?.scope ?? .app
            // SpringBoard's or launchd's word that the app's process crashed: how its run ends.
            if kind == .crash, scope == .system { return .appState }
            if scope == .system { return .daemon }
            return catalog.isSystemProcess(process) ? .system : .app
        }
    }
}

/// Which message families a store's logs contain, per device: `locaudit catalog coverage`.
public struct MessageCoverage: Sendable, Codable {
    public struct Device: Sendable, Codable {
        public var device: String
        /// Family -> events (every family, 0 when none).
        public var families: [String: Int]
        /// Family -> how sure the wording of the patterns that recognised its events is:
        /// `real`, `binary`, `reference` (`Provenance.Evidence`), and `unlabelled` for events
        /// whose pattern carries no provenance (a user pattern without one, a pattern no longer
        /// in the catalog, an App Privacy Report record). Every family, every key, 0 when none.
        public var provenance: [String: [String: Int]]
    }

    /// The keys of `Device.provenance`'s counts, in the order the text prints them.
    public static let evidenceKeys = ["real", "binary", "reference", "unlabelled"]
    public var database: String
    public var devices: [Device]

    /// Counts the events of every device by family.
    public static func read(database: String, catalog: Catalog) throws -> MessageCoverage {
        let patterns = Dictionary(catalog.patterns.map { ($0.id, $0) }) { first, _ in first }
        return try Store(path: database, access: .read).connect(readOnly: true).read { db in
            var counts: [String: [MessageFamily: Int]] = [:]
            var byEvidence: [String: [MessageFamily: [String: Int]]] = [:]
            for device in try String.fetchAll(db, sql: "SELECT id FROM devices ORDER BY id") { counts[device] = [:] }
            let rows = try Row.fetchAll(db, sql: """
                SELECT device_id, kind, pattern, process, count(*) AS events FROM events GROUP BY device_id, kind, pattern, process
                """)
            for row in rows {
                guard let kind = EventKind(rawValue: row["kind"]) else { continue }
                let pattern = patterns[row["pattern"] as String]
                let family = MessageFamily.of(kind: kind, pattern: pattern, process: row["process"], catalog: catalog)
                counts[row["device_id"], default: [:]][family, default: 0] += row["events"] as Int
                let evidence = pattern?.provenance?.evidence.rawValue ?? "unlabelled"
                byEvidence[row["device_id"], default: [:]][family, default: [:]][evidence, default: 0] += row["events"] as Int
            }
            return MessageCoverage(database: database, devices: counts.keys.sorted().map { device in
                Device(device: device, families: Dictionary(uniqueKeysWithValues: MessageFamily.allCases.map {
                    ($0.rawValue, counts[device]?[$0] ?? 0)
                }), provenance: Dictionary(uniqueKeysWithValues: MessageFamily.allCases.map { family in
                    (family.rawValue, Dictionary(uniqueKeysWithValues: evidenceKeys.map { ($0, byEvidence[device]?[family]?[$0] ?? 0) }))
                }))
            })
        }
    }

    /// One block per device: each family's events, and what a missing family leaves unjudged.
    public var text: String {
        guard !devices.isEmpty else { return "\(database): no device has a log yet; ingest some first.\n" }
        var out = ""
        for device in devices {
            out += "Device \(device.device)\n"
            for family in MessageFamily.allCases {
                let n = device.families[family.rawValue] ?? 0
                let name = family.rawValue.padding(toLength: 16, withPad: " ", startingAt: 0)
                let count = String(n).leftPadded(to: 6)
                if n == 0, let without = family.withoutIt {
                    out += "  \(name)\(count)  none: \(without)\n"
                } else {
                    // Which wording the events were read in: Apple's (real, binary) or ours (reference).
                    let evidence = MessageCoverage.evidenceKeys.compactMap { key in
                        (device.provenance[family.rawValue]?[key]).flatMap { $0 > 0 ? "\(key) \($0)" : nil }
                    }
                    out += "  \(name)\(count)  \(family.meaning)" + (evidence.isEmpty ? "" : " (\(evidence.joined(separator: ", ")))") + "\n"
                }
            }
        }
        return out
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
}
