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
    case purposeKey = "purpose key"

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
        case .purposeKey: return "the purposeKey of the app's requestTemporaryFullAccuracyAuthorization call, of its service session, or of the accuracy-change line"
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

    /// The stable code of `unknown`, for tools (the JSON report's `coverage.notEvaluableReasons`):
    /// the sentence may be reworded, the code stays.
    public var code: String {
        switch self {
        case .iosVersion: return "unknown-ios-version"
        case .infoPlist: return "no-info-plist"
        case .appLines: return "no-app-lines"
        case .appState: return "unknown-app-state"
        case .status: return "unknown-status"
        case .allowOnce: return "unknown-allow-once"
        case .provisionalAlways: return "unknown-provisional-always"
        case .promptHistory: return "unknown-prompt-history"
        case .promptLines: return "no-prompt-lines"
        case .grantLines: return "no-grant-lines"
        case .accuracyChangeLines: return "no-accuracy-change-lines"
        case .statusChangeLines: return "no-status-change-lines"
        case .accuracyGrantLines: return "no-accuracy-grant-lines"
        case .relaunchLines: return "no-relaunch-lines"
        case .accuracy: return "unknown-accuracy"
        case .locationAccuracy: return "private-location-accuracy"
        case .services: return "unknown-services"
        case .backgroundFlag: return "unknown-background-flag"
        case .indicatorFlag: return "unknown-indicator-flag"
        case .indicatorLines: return "no-indicator-lines"
        case .blueBar: return "unknown-blue-bar"
        case .paused: return "unknown-pause"
        case .inUse: return "unknown-in-use"
        case .buildSDK: return "unknown-build-sdk"
        case .purposeKey: return "unknown-purpose-key"
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
        case .purposeKey: return "purpose key unknown (the accuracy line names none, and the app's request for it is not in the log)"
        }
    }
}
