import Foundation
import LocAuditModel
import LocAuditReplay

/// What a rule looks at.
public enum RuleScope: String, Sendable {
    /// What happened at run time, per session.
    case session
    /// The app's Info.plist and manager flags, once per app and iOS version.
    case configuration
}

/// Who fixes what a rule flags: the finding is filed with them.
public enum RuleOwner: String, Sendable, CaseIterable {
    /// The app's code: a call, a flag, when a service is started.
    case appCode = "app-code"
    /// The app's Info.plist: a key missing, deprecated or of the wrong type.
    case infoPlist = "info-plist"
    /// iOS itself: the system did what Apple's documentation says it does not; a Feedback
    /// Assistant report with the evidence lines attached.
    case iOS = "ios"
    /// The test setup: the logs or the device facts contradict each other.
    case testSetup = "test-setup"

    /// `the app's code`, `iOS itself (Apple)`: how reports name the owner.
    public var label: String {
        switch self {
        case .appCode: return "the app's code"
        case .infoPlist: return "the app's Info.plist"
        case .iOS: return "iOS itself (Apple)"
        case .testSetup: return "the test setup"
        }
    }
}

/// A rule's identity and documentation: feeds `locaudit rules`, the README and the tests.
public struct RuleDescription: Sendable {
    /// Stable identifier (rules-model.md).
    public var identifier: String
    public var severity: Severity
    public var scope: RuleScope
    /// First major iOS version the rule applies to; nil for every version.
    public var firstVersion: Int?
    /// Whether the verdict can differ between iOS versions: then an unknown version makes
    /// the rule not evaluable (v2), never "not applicable".
    public var versionDependent = true
    /// One sentence: what the rule flags.
    public var description: String
    /// The source notes it was first distilled from (the seeds, history now), e.g. `001 §2`.
    public var seed: String
    /// The Apple pages and WWDC sessions the rule enforces (docs/rules-model.md cites them).
    public var sources: [String] = []
    /// Why, for `rules explain`.
    public var rationale: String
    /// Who fixes what the rule flags.
    public var owner: RuleOwner
    /// What to do about a finding, in the owner's terms (for iOS: what to report; `whatToDo`
    /// adds how to file it).
    public var remedy: String
    public var triggeringExamples: [RuleExample]
    public var nonTriggeringExamples: [RuleExample]
    /// Logs where a fact the rule reads is unknown: not evaluable, never a pass. Each names its `unknown` fact.
    public var notEvaluableExamples: [RuleExample] = []
    /// The facts the rule reads besides the lines it flags (rules-model.md "Evidence"): when
    /// one is unknown where the rule needs it, the session (or app) is not evaluable.
    public var facts: [Fact] = []

    /// `iOS 13+` or `all`.
    public var versionRange: String { firstVersion.map { "iOS \($0)+" } ?? "all" }

    /// What to do about a finding, as every report says it: the remedy, and for a rule iOS
    /// owns how to file it with Apple.
    public var whatToDo: String { owner == .iOS ? remedy + " " + Self.feedbackAdvice : remedy }

    /// The page people open first: the first Apple source's address.
    public var helpURL: String? { sources.lazy.compactMap(AppleSource.url).first }

    /// How to report what iOS got wrong.
    public static let feedbackAdvice = "File a Feedback Assistant report (\(Apple.feedbackAssistant); choose iOS, then Location Services) "
        + "and attach the evidence lines the report lists for the finding (the log files, cut to those lines if need be), "
        + "the device's model and iOS version, and, when you can reproduce it, a sysdiagnose taken with Apple's "
        + "Location Services logging profile (\(Apple.bugReportingProfiles))."
}

/// An Apple source as rules cite it: a URL, or a WWDC session's title then its URL.
public enum AppleSource {
    /// The address in a source (`WWDC23 "…" https://…` gives the https part).
    public static func url(_ source: String) -> String? {
        source.split(separator: " ").last.map(String.init).flatMap { $0.hasPrefix("https://") ? $0 : nil }
    }
}

/// A short log in a real container (idevicesyslog), with the device's iOS version and,
/// where the rule needs it, the app's Info.plist. Records where it is written, so a
/// broken example fails at its own line.
public struct RuleExample: Sendable {
    /// `ProductVersion` of the device; nil for an unknown version.
    public var os: String?
    public var plist: ExamplePlist?
    /// For a not-evaluable example: the fact it leaves unknown.
    public var unknown: Fact?
    /// idevicesyslog lines.
    public var log: String
    public var file: String
    public var line: Int

    public init(os: String?, plist: ExamplePlist? = nil, unknown: Fact? = nil, _ log: String, file: String = #filePath, line: Int = #line) {
        self.os = os
        self.plist = plist
        self.unknown = unknown
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
    /// `DTPlatformVersion`, the SDK the app was built with; nil: a plist without it.
    public var sdk: String?

    public init(usageKeys: [String], backgroundModes: [String] = [], temporaryPurposeKeys: [String]? = nil,
                defaultAccuracyReducedXML: String? = nil, sdk: String? = nil) {
        self.usageKeys = usageKeys
        self.backgroundModes = backgroundModes
        self.temporaryPurposeKeys = temporaryPurposeKeys
        self.defaultAccuracyReducedXML = defaultAccuracyReducedXML
        self.sdk = sdk
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
        if let sdk { body += "<key>DTPlatformVersion</key><string>\(sdk)</string><key>DTSDKName</key><string>iphoneos\(sdk)</string>\n" }
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

    /// Not evaluable for want of `fact`.
    static func unknown(_ fact: Fact) -> RuleCheck { .notEvaluable(fact.unknown) }

    /// The violations; when there are none, the first fact found unknown makes the check not
    /// evaluable (a violation shown is a finding whatever else is unknown).
    static func judged(_ violations: [Violation], unknown: Fact?) -> RuleCheck {
        if violations.isEmpty, let unknown { return .unknown(unknown) }
        return .evaluated(violations)
    }
}

/// Tunables of the rules.
public struct RuleSettings: Sendable {
    /// A delivery more precise than this (horizontal accuracy, metres) is precise.
    public var reducedAccuracyFloor: Double = 1000
    /// How long an app that left the foreground stays in use (`--background-grace`), seconds.
    public var backgroundGrace: Double = 10
    public init(reducedAccuracyFloor: Double = 1000, backgroundGrace: Double = 10) {
        self.reducedAccuracyFloor = reducedAccuracyFloor
        self.backgroundGrace = backgroundGrace
    }
    /// The grace in microseconds (a value too large for them is the largest).
    package var backgroundGraceUS: Int64 {
        let us = (backgroundGrace * 1_000_000).rounded()
        return us.isFinite && us < 9.0e18 ? Int64(max(0, us)) : .max
    }
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

/// An app as seen on one major iOS version with one Info.plist: the plist and the sessions
/// it was in force for there. Configuration rules judge the one of the app's latest session.
///
/// An audit holds every session of an app at once only as configuration rules read it
/// (`ReplayedSession.configurationView`): a configuration rule reads of its sessions only
/// `configurationStep` steps, the sessions' start and plist, and the first event.
public struct AppOnVersion: Sendable {
    public var bundleId: String
    public var version: IOSVersion
    public var plist: AppVersion?
    public var sessions: [ReplayedSession]
    public var app: AppFacts? { plist?.facts }
    public var behaviour: IOSBehaviour { IOSBehaviour.of(version, sdk: app?.buildSDK) }
    /// How messages name the Info.plist.
    public var plistLabel: String { plist?.label ?? "Info.plist" }
    /// When its latest session started.
    package var latestStartUS: Int64 { sessions.map(\.session.startUS).max() ?? .min }
    /// Whether the app's own CoreLocation lines are in any of its sessions.
    public var hasAppLines: Bool { sessions.contains(where: \.hasAppLines) }

    /// The authorization requests of the app's own lines, with their events: its request
    /// calls and (v2) the authorization a service session declares.
    public var requests: [AuthorizationRequest: [Int64]] {
        var requests: [AuthorizationRequest: [Int64]] = [:]
        for step in steps where step.event.kind == .call {
            let e = step.event
            let request: AuthorizationRequest?
            if e.managerCall == .serviceSession {
                request = e.status == .authorizedAlways ? .always : e.status == .authorizedWhenInUse ? .whenInUse : nil
            } else {
                request = e.managerCall?.request
            }
            if let request { requests[request, default: []].append(e.id) }
        }
        return requests
    }

    /// On iOS 11+ the build SDK decides whether the iOS 8-10 Always key alone serves an
    /// Always request (v2): true when the Info.plist has only that key and does not say its SDK.
    public var alwaysKeyNeedsSDK: Bool {
        guard let facts = app, IOSBehaviour.of(version).alwaysKeyDeprecated else { return false }
        return facts.buildSDK == nil && facts.usageKeys.contains(UsageKey.always) && !facts.usageKeys.contains(UsageKey.alwaysAndWhenInUse)
    }

    /// Every step of every session, in time order.
    public var steps: FlattenSequence<LazyMapSequence<[ReplayedSession], [ReplayStep]>> { sessions.lazy.map(\.steps).joined() }

    package init(bundleId: String, version: IOSVersion, plist: AppVersion? = nil, sessions: [ReplayedSession]) {
        self.bundleId = bundleId
        self.version = version
        self.plist = plist
        self.sessions = sessions
    }
}

extension AppOnVersion {
    /// The steps a configuration rule may read: manager calls and properties, usage-key
    /// refusals and crashes (no delivery, state or prompt line).
    package static func configurationStep(_ step: ReplayStep) -> Bool {
        step.event.call != nil || step.event.property != nil || step.event.kind == .usageKeyMissing || step.event.kind == .crash
    }
}

extension ReplayedSession {
    /// The session as configuration rules read it: only `AppOnVersion.configurationStep`
    /// steps, and of its events only the first, so that an audit need not keep every event;
    /// no state (configuration rules read none), so that it need not keep the sessions'
    /// states either (as a settled session's view: `ReplayedSession(settled:…)`).
    package var configurationView: ReplayedSession {
        var view = stateless(keeping: AppOnVersion.configurationStep)
        view.session.events = Array(session.events.prefix(1))
        view.session.before = []
        return view
    }

    /// Deliveries to the live app, with their state.
    var deliveries: LazyFilterSequence<[ReplayStep]> { steps.lazy.filter { $0.event.isDelivery && !$0.state.terminated } }
}

/// `"5 m"`, `"1414 m"`.
func metres(_ value: Double?) -> String {
    guard let value else { return "?" }
    return oneDecimal(value) + " m"
}

extension ReplayStep {
    /// The service a delivery comes from: standard updates when they run, else the
    /// relaunching service that is running, else standard; nil when a service may run from
    /// before the log (no launch or start line in the session yet).
    var deliveringService: LocationService? {
        if state.services.contains(.standard) { return .standard }
        guard state.servicesKnown else { return nil }
        return state.services.first(where: \.relaunchesApp) ?? .standard
    }
}

/// The conditions one step must meet to be a violation, each known or not: a known false one
/// clears the step, else an unknown one leaves it unknown (the first is named), else it is one.
struct Conditions {
    private(set) var excluded = false
    private var missing: Fact?

    /// A condition the violation needs; nil while `fact` is unknown.
    mutating func require(_ value: Bool?, _ fact: Fact) {
        switch value {
        case false?: excluded = true
        case nil: if missing == nil { missing = fact }
        case true?: break
        }
    }

    var violates: Bool { !excluded && missing == nil }
    /// The fact that leaves the step undecided; nil when it is decided.
    var unknown: Fact? { excluded ? nil : missing }
}

/// The first fact a rule found unknown on a session, kept across its steps.
struct FirstUnknown {
    private(set) var fact: Fact?
    mutating func note(_ fact: Fact?) { if self.fact == nil { self.fact = fact } }
}

/// What one rule makes of one step: a violation (with its message and other events that show
/// it), nothing, or unknown for want of a fact.
enum Judgement {
    case violates(String, also: [Int64?] = [])
    case clear
    case unknown(Fact)
}

/// A rule that judges deliveries (and, for some, other steps) one step at a time, in the
/// order of rules-model.md "One cause, one finding": a delivery that an earlier rule of
/// `DeliveryOrder.rules` flags is that rule's alone.
protocol StepRule: SessionRule {
    /// Whether the session can be judged at all; the fact it lacks when not.
    static func precondition(_ session: ReplayedSession) -> Fact?
    /// What the rule makes of one step of the session.
    static func judge(_ step: ReplayStep, _ session: ReplayedSession, _ settings: RuleSettings) -> Judgement
    /// Whether the rule takes this delivery from the rules after it in `DeliveryOrder`.
    static func claims(_ step: ReplayStep, _ session: ReplayedSession, _ settings: RuleSettings) -> Bool
}

extension StepRule {
    static func claims(_ step: ReplayStep, _ session: ReplayedSession, _ settings: RuleSettings) -> Bool {
        guard precondition(session) == nil, case .violates = judge(step, session, settings) else { return false }
        return true
    }
}

extension StepRule {
    func check(_ session: ReplayedSession, _ settings: RuleSettings) -> RuleCheck {
        if let missing = Self.precondition(session) { return .unknown(missing) }
        var violations: [Violation] = []
        var unknown = FirstUnknown()
        for step in session.steps {
            switch Self.judge(step, session, settings) {
            case .violates(let message, let also):
                guard !step.event.isDelivery || !DeliveryOrder.claimed(before: Self.self, step, session, settings) else { continue }
                violations.append(Violation(step, message, also: also))
            case .unknown(let fact): unknown.note(fact)
            case .clear: break
            }
        }
        return .judged(violations, unknown: unknown.fact)
    }
}

/// rules-model.md "One cause, one finding": each delivery is judged once, and the first rule
/// of this list that flags it takes it.
enum DeliveryOrder {
    static let rules: [any StepRule.Type] = [
        DeliveryAfterTerminationRule.self,
        RelaunchWithoutAlwaysRule.self,
        AllowOncePersistingRule.self,
        DeliveryWithoutAuthorizationRule.self,
        BackgroundDeliveryWithoutCapabilityRule.self,
        MissingBlueBarRule.self,
        TemporaryPrecisePersistingRule.self,
        PreciseDeliveryUnderReducedAccuracyRule.self,
        DeliveryWhilePausedRule.self,
    ]

    /// Whether a rule before `rule` in the order flags this delivery.
    static func claimed(before rule: any StepRule.Type, _ step: ReplayStep, _ session: ReplayedSession,
                        _ settings: RuleSettings) -> Bool {
        for earlier in rules {
            if ObjectIdentifier(earlier) == ObjectIdentifier(rule) { return false }
            if earlier.claims(step, session, settings) { return true }
        }
        return false
    }
}
