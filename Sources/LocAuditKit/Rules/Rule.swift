import Foundation

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

/// What a rule looks at.
public enum RuleScope: String, Sendable {
    /// What happened at run time, per session.
    case session
    /// The app's Info.plist and manager flags, once per app and iOS version.
    case configuration
}

/// A rule's identity and documentation: feeds `locaudit rules`, the README and the tests.
public struct RuleDescription: Sendable {
    /// Stable identifier (rules-model.md).
    public var identifier: String
    public var severity: Severity
    public var scope: RuleScope
    /// First major iOS version the rule applies to; nil for every version.
    public var firstVersion: Int?
    /// One sentence: what the rule flags.
    public var description: String
    /// The source note it comes from (`../seeds/`), e.g. `001 §2`.
    public var seed: String
    /// Why, for `rules explain`.
    public var rationale: String
    public var triggeringExamples: [RuleExample]
    public var nonTriggeringExamples: [RuleExample]

    /// `iOS 13+` or `all`.
    public var versionRange: String { firstVersion.map { "iOS \($0)+" } ?? "all" }
}

/// A short log in a real container (idevicesyslog), with the device's iOS version and,
/// where the rule needs it, the app's Info.plist. Records where it is written, so a
/// broken example fails at its own line.
public struct RuleExample: Sendable {
    /// `ProductVersion` of the device; nil for an unknown version.
    public var os: String?
    public var plist: ExamplePlist?
    /// idevicesyslog lines.
    public var log: String
    public var file: String
    public var line: Int

    public init(os: String?, plist: ExamplePlist? = nil, _ log: String, file: String = #filePath, line: Int = #line) {
        self.os = os
        self.plist = plist
        self.log = log
        self.file = file
        self.line = line
    }
}

/// The Info.plist facts of an example's app.
public struct ExamplePlist: Sendable {
    public var bundleId = "com.example.app"
    public var executable = "App"
    public var usageKeys: [String]
    public var backgroundModes: [String] = []
    public var temporaryPurposeKeys: [String]?
    /// `NSLocationDefaultAccuracyReduced` as XML (`<true/>`, `<string>YES</string>`).
    public var defaultAccuracyReducedXML: String?

    public init(usageKeys: [String], backgroundModes: [String] = [], temporaryPurposeKeys: [String]? = nil,
                defaultAccuracyReducedXML: String? = nil) {
        self.usageKeys = usageKeys
        self.backgroundModes = backgroundModes
        self.temporaryPurposeKeys = temporaryPurposeKeys
        self.defaultAccuracyReducedXML = defaultAccuracyReducedXML
    }

    /// Every iOS 11+ key, the location background mode, one purpose key `Delivery`.
    public static let complete = ExamplePlist(
        usageKeys: [UsageKey.whenInUse, UsageKey.alwaysAndWhenInUse, UsageKey.always],
        backgroundModes: ["location"], temporaryPurposeKeys: ["Delivery"])

    /// The property list, as XML.
    public var xml: String {
        var body = """
            <key>CFBundleIdentifier</key><string>\(bundleId)</string>
            <key>CFBundleExecutable</key><string>\(executable)</string>

            """
        for key in usageKeys { body += "<key>\(key)</key><string>Shows where you are.</string>\n" }
        body += "<key>UIBackgroundModes</key><array>\(backgroundModes.map { "<string>\($0)</string>" }.joined())</array>\n"
        if let purposes = temporaryPurposeKeys {
            body += "<key>NSLocationTemporaryUsageDescriptionDictionary</key><dict>"
                + purposes.map { "<key>\($0)</key><string>Needs a precise location.</string>" }.joined() + "</dict>\n"
        }
        if let reduced = defaultAccuracyReducedXML { body += "<key>NSLocationDefaultAccuracyReduced</key>\(reduced)\n" }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict>
            \(body)</dict></plist>

            """
    }
}

/// One thing a rule saw go wrong, with the events that show it.
public struct Violation: Sendable {
    public var timeUS: Int64
    /// Lower-case, in the user's terms, offending values in quotes.
    public var message: String
    public var events: [Int64]
    /// The Info.plist is part of the evidence (configuration rules).
    public var infoPlist = false

    public init(timeUS: Int64, message: String, events: [Int64], infoPlist: Bool = false) {
        self.timeUS = timeUS
        self.message = message
        self.events = events
        self.infoPlist = infoPlist
    }

    init(_ step: ReplayStep, _ message: String, also: [Int64?] = []) {
        self.init(timeUS: step.event.timeUS, message: message, events: [step.event.id] + also.compactMap { $0 })
    }
}

/// The outcome of one rule on one session (or app and iOS version).
public enum RuleCheck: Sendable {
    /// The evidence needed is not there: counted, never a pass.
    case notEvaluable(String)
    /// Evaluated: no violation is a pass.
    case evaluated([Violation])
}

/// Tunables of the rules.
public struct RuleSettings: Sendable {
    /// A delivery more precise than this (horizontal accuracy, metres) is precise.
    public var reducedAccuracyFloor: Double = 1000
    public init(reducedAccuracyFloor: Double = 1000) { self.reducedAccuracyFloor = reducedAccuracyFloor }
}

/// A rule: its description, and a check of a session or of an app on an iOS version.
public protocol Rule: Sendable {
    static var description: RuleDescription { get }
}

/// A rule about what happened in one session.
public protocol SessionRule: Rule {
    func check(_ session: ReplayedSession, _ settings: RuleSettings) -> RuleCheck
}

/// A rule about an app's configuration, once per app and iOS version seen.
public protocol ConfigurationRule: Rule {
    func check(_ app: AppOnVersion, _ settings: RuleSettings) -> RuleCheck
}

/// An app as seen on one major iOS version: its Info.plist and its sessions there.
public struct AppOnVersion: Sendable {
    public var bundleId: String
    public var version: IOSVersion
    public var app: AppFacts?
    public var sessions: [ReplayedSession]
    public var behaviour: IOSBehaviour { IOSBehaviour.of(version) }

    /// Every step of every session, in time order.
    public var steps: FlattenSequence<LazyMapSequence<[ReplayedSession], [ReplayStep]>> { sessions.lazy.map(\.steps).joined() }
}

extension ReplayedSession {
    /// Deliveries to the live app, with their state.
    var deliveries: LazyFilterSequence<[ReplayStep]> { steps.lazy.filter { $0.event.isDelivery && !$0.state.terminated } }
}

/// `"5 m"`, `"1414 m"`.
func metres(_ value: Double?) -> String {
    guard let value else { return "?" }
    return value == value.rounded() ? "\(Int(value)) m" : String(format: "%.1f m", value)
}

extension ReplayStep {
    /// The service a delivery comes from: standard updates when they run, else the
    /// relaunching service that is running.
    var deliveringService: LocationService {
        if state.services.contains(.standard) { return .standard }
        return state.services.first(where: \.relaunchesApp) ?? .standard
    }
}
