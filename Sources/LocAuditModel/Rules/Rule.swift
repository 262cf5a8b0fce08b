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
    public var triggeringExamples: [RuleExample]
    public var nonTriggeringExamples: [RuleExample]
    /// Logs where a fact the rule reads is unknown: not evaluable, never a pass. Each names its `unknown` fact.
    public var notEvaluableExamples: [RuleExample] = []
    /// The facts the rule reads besides the lines it flags (rules-model.md "Evidence"): when
    /// one is unknown where the rule needs it, the session (or app) is not evaluable.
    public var facts: [Fact] = []

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

/// A fact a rule reads, and how the audit knows it (rules-model.md "Evidence: what the
/// audit may assume"): observed (a line says it), implied by the model, or unknown. Unknown
/// is never replaced by a default: a rule that needs an unknown fact is not evaluable, and
/// `unknown` is the reason the coverage gives.
public enum Fact: String, CaseIterable, Sendable {
    case iosVersion = "iOS version"
    case infoPlist = "Info.plist"
    case appLines = "the app's CoreLocation lines"
    case appState = "app state"
    case status = "authorization status"
    case allowOnce = "Allow Once"
    case provisionalAlways = "provisional Always"
    case promptHistory = "earlier prompts"
    case promptLines = "prompt lines"
    case grantLines = "prompt or status-change lines"
    case accuracyChangeLines = "accuracy-change lines"
    case statusChangeLines = "status-change lines"
    case accuracyGrantLines = "accuracy-change or prompt-answer lines"
    case relaunchLines = "relaunch lines"
    case accuracy = "accuracy authorization"
    case locationAccuracy = "a delivery's accuracy"
    case services = "running services"
    case backgroundFlag = "background flag"
    case indicatorFlag = "indicator flag"
    case indicatorLines = "indicator lines"
    case blueBar = "blue bar"
    case paused = "automatic pause"
    case inUse = "in use"
    case buildSDK = "build SDK"

    public var name: String { rawValue }

    /// The lines that say it.
    public var observed: String {
        switch self {
        case .iosVersion: return "the device facts (--os, --device-info, the ideviceinfo sidecar)"
        case .infoPlist: return "an ingested Info.plist: the one in force when the session ran"
        case .appLines: return "lines the app logs itself: callbacks, deliveries, calls, flags"
        case .appState: return "RunningBoard's app-state lines; a launch line (background for `with intent background`, a dasd activation, a relaunch for a location event)"
        case .status: return "a callback, a status change, a prompt answer"
        case .allowOnce: return "a prompt answer (AllowOnce, WhenInUse), a status change's temporary flag"
        case .provisionalAlways: return "a status change's provisional flag, a prompt answer"
        case .promptHistory: return "the prompts since the app was last notDetermined"
        case .promptLines: return "locationd's prompt lines on the device (any app, any time)"
        case .grantLines: return "locationd's prompt or status-change lines on the device (any app, any time)"
        case .accuracyChangeLines: return "locationd's accuracy-change lines on the device (any app, any time)"
        case .statusChangeLines: return "locationd's status-change lines on the device (any app, any time)"
        case .accuracyGrantLines: return "locationd's accuracy-change or prompt-answer lines on the device (any app, any time)"
        case .relaunchLines: return "locationd's relaunch lines on the device (any app, any time)"
        case .accuracy: return "a callback's limitsPrecision, an accuracy change"
        case .locationAccuracy: return "the delivery's horizontalAccuracy"
        case .services: return "start and stop calls, a relaunch's service"
        case .backgroundFlag: return "the app's state-transition line for allowsBackgroundLocationUpdates"
        case .indicatorFlag: return "the app's state-transition line for showsBackgroundLocationIndicator"
        case .indicatorLines: return "indicator lines on the device (any app, any time)"
        case .blueBar: return "indicator lines"
        case .paused: return "pause and resume callbacks"
        case .inUse: return "app-state lines (foreground, background), the app's starts and stops of updates, its background flag, its background activity sessions"
        case .buildSDK: return "DTPlatformVersion or DTSDKName in the Info.plist"
        }
    }

    /// What the model implies without a line saying it; nil when nothing.
    public var implied: String? {
        switch self {
        case .status: return "notDetermined after an uninstall, or an install with no earlier line of the app on the device; what an earlier session of the app on the device learned"
        case .allowOnce, .provisionalAlways: return "none before iOS 13"
        case .promptHistory: return "none after an install, an uninstall, a notDetermined status or the app's first prompt"
        case .services: return "none at launch"
        case .backgroundFlag: return "NO (iOS 9+) in a session whose launch line and the app's own CoreLocation lines are in the log; YES before iOS 9"
        case .indicatorFlag: return "NO in a session whose launch line and the app's own CoreLocation lines are in the log"
        case .blueBar: return "hidden at launch and after termination, on a device whose logs carry indicator lines"
        case .paused: return "not paused at launch and after startUpdatingLocation"
        case .inUse: return "in use in the foreground and for the grace after it (--background-grace, 10 s); not in use in the background after a background launch or relaunch, unless updates started in use or a session keep it"
        default: return nil
        }
    }

    /// Why it is unknown: the coverage's "not evaluable" reason.
    public var unknown: String {
        switch self {
        case .iosVersion: return "unknown iOS version"
        case .infoPlist: return "no Info.plist"
        case .appLines: return "no CoreLocation line of the app (its callbacks, calls and deliveries are not in the log)"
        case .appState: return "app state unknown (no app-state or launch line)"
        case .status: return "authorization status unknown (no callback, status change, prompt answer or install of the app on the device before it)"
        case .allowOnce: return "Allow Once unknown (the grant the app held before the session is unknown: no prompt answer or status change said it)"
        case .provisionalAlways: return "provisional Always unknown (a callback said Always; no status change said which)"
        case .promptHistory: return "earlier prompts unknown (the app was not seen notDetermined on the device before it)"
        case .promptLines: return "prompts unknown (the device's logs carry no prompt line)"
        case .grantLines: return "prompts and grants unknown (the device's logs carry no prompt or status-change line)"
        case .accuracyChangeLines: return "accuracy changes unknown (the device's logs carry no accuracy-change line)"
        case .statusChangeLines: return "status changes unknown (the device's logs carry no status-change line)"
        case .accuracyGrantLines: return "temporary full-accuracy grants unknown (the device's logs carry no accuracy-change or prompt-answer line)"
        case .relaunchLines: return "relaunches unknown (the device's logs carry no relaunch line)"
        case .accuracy: return "accuracy authorization unknown (no limitsPrecision or accuracy line)"
        case .locationAccuracy: return "<private> locations without accuracy"
        case .services: return "delivering service unknown (no launch or start line: a service may run from before the log)"
        case .backgroundFlag: return "background flag unknown (no line sets it, and the session's launch line or the app's CoreLocation lines are not in the log)"
        case .indicatorFlag: return "indicator flag unknown (no line sets it, and the session's launch line or the app's CoreLocation lines are not in the log)"
        case .indicatorLines: return "blue bar unknown (the device's logs carry no indicator line)"
        case .blueBar: return "blue bar unknown (no launch or indicator line before the delivery)"
        case .paused: return "automatic pause unknown (no launch, start or resume line before the delivery)"
        case .inUse: return "in use unknown (the app state, when it left the foreground, or what keeps it running in the background is not in the log)"
        case .buildSDK: return "build SDK unknown (the Info.plist has no DTPlatformVersion or DTSDKName, and the SDK decides here)"
        }
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
    /// steps, and of its events only the first, so that an audit need not keep every event.
    package var configurationView: ReplayedSession {
        var view = self
        view.steps = steps.filter(AppOnVersion.configurationStep)
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
