import LocAuditModel
import LocAuditReplay

/// A rule example's idevicesyslog text, written from short calls so that an example shows
/// only the lines that matter: `ExampleLog().launch().at(1).told("AuthorizedWhenInUse")`.
/// Each call writes one real line (`launch` and `relaunch` the few iOS writes together) in
/// the words of docs/log-formats.md; the text still goes through the real ingest and
/// replay (`RuleExampleRunner`).
///
/// The app is `com.example.app`, executable `App`, on a device named `iPhone`. Its n-th
/// process has pid 500 + n and writes from (8 + n):00:00 on Nov 20: the first from 09:00:00,
/// the second, after `process(2)`, from 10:00:00. `at(s)` moves the clock to s seconds past
/// that hour; lines written after it carry that second, until the next `at`.
public struct ExampleLog: Sendable {
    public private(set) var lines: [String] = []
    private var pid = 501
    private var second = 0
    private let bundle = "com.example.app"

    public init() {}

    /// idevicesyslog text: the lines, joined by newlines.
    public var text: String { lines.joined(separator: "\n") }

    // MARK: Clock and process

    /// The app's n-th process: pid 500 + n, from (8 + n):00:00.
    public func process(_ n: Int) -> ExampleLog {
        var log = self
        log.pid = 500 + n
        log.second = 0
        return log
    }

    /// The clock at `second` seconds past the process's hour.
    public func at(_ second: Int) -> ExampleLog {
        var log = self
        log.second = second
        return log
    }

    // MARK: Lines

    /// One line of `process` at the clock's time.
    public func line(_ process: String, _ message: String, level: String = "Notice") -> ExampleLog {
        var log = self
        let hour = 8 + pid - 500
        let stamp = "Nov 20 " + [hour, second / 60, second % 60].map { $0 < 10 ? "0\($0)" : "\($0)" }.joined(separator: ":")
        log.lines.append("\(stamp) iPhone \(process) <\(level)>: \(message)")
        return log
    }

    /// A line of locationd.
    public func system(_ message: String) -> ExampleLog { line("locationd[60]", message) }

    /// A line of the app's process.
    public func app(_ message: String, level: String = "Notice") -> ExampleLog { line("App[\(pid)]", message, level: level) }

    /// SpringBoard starts the app.
    public func bootstrap(intent: String = "foreground-interactive") -> ExampleLog {
        line("SpringBoard[50]", "Bootstrapping app<\(bundle)> with intent \(intent)")
    }

    /// RunningBoard's state of the process: `ForegroundRunning`, `BackgroundRunning`, `Terminated`.
    public func state(_ state: String) -> ExampleLog {
        system(##"{"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"\##(state)", "pid":\##(pid), "bundleId":"\##(bundle)"}"##)
    }

    public func foreground() -> ExampleLog { state("ForegroundRunning") }
    public func background() -> ExampleLog { state("BackgroundRunning") }
    public func terminated() -> ExampleLog { state("Terminated") }

    /// A launch by the user: SpringBoard's line and the foreground state.
    public func launch() -> ExampleLog { bootstrap().foreground() }

    /// A relaunch by locationd for `service`: SpringBoard's background launch, locationd's
    /// reason and the background state.
    public func relaunch(_ service: String) -> ExampleLog {
        bootstrap(intent: "background")
            .system(##"{"msg":"#Launch client for location event", "bundleId":"\##(bundle)", "service":"\##(service)"}"##)
            .background()
    }

    /// The app's delegate is told its status (and accuracy: `precision`, `limitsPrecision`).
    /// `legacy`: the iOS 4-13 callback `locationManager:didChangeAuthorizationStatus:`.
    public func told(_ status: String, precision: Int? = nil, legacy: Bool = false) -> ExampleLog {
        let selector = legacy ? "locationManager:didChangeAuthorizationStatus:" : "locationManagerDidChangeAuthorization:"
        let limits = precision.map { ##", "limitsPrecision":\##($0)"## } ?? ""
        return app(##"{"msg":"#CLLocationManager invoking #delegate", "selector":"\##(selector)", "authorizationStatus":"\##(status)"\##(limits)}"##)
    }

    /// The app calls a CLLocationManager method.
    public func call(_ selector: String, purposeKey: String? = nil) -> ExampleLog {
        let key = purposeKey.map { ##", "purposeKey":"\##($0)""## } ?? ""
        return app(##"{"msg":"CLLocationManager", "event":"activity", "_cmd":"\##(selector)"\##(key)}"##)
    }

    /// The app sets a manager flag (`allowsBackgroundLocationUpdates`...) from 0 to 1.
    public func property(_ name: String) -> ExampleLog {
        app(##"{"msg":"state transition", "event":"state_transition", "state":"LocationManager", "property":"\##(name)", "old":0, "new":1}"##)
    }

    /// locationd shows a prompt.
    public func prompt(_ kind: String, options: String) -> ExampleLog {
        system(##"{"msg":"#Authorization prompt", "bundleId":"\##(bundle)", "kind":"\##(kind)", "options":"\##(options)"}"##)
    }

    /// The user answers the prompt.
    public func answer(_ choice: String) -> ExampleLog {
        system(##"{"msg":"#Authorization prompt response", "bundleId":"\##(bundle)", "choice":"\##(choice)"}"##)
    }

    /// locationd changes the status. `legacy`: the line before iOS 13, without `provisional` and `temporary`.
    public func status(_ status: String, reason: String = "Prompt", provisional: Int = 0, temporary: Int = 0, legacy: Bool = false) -> ExampleLog {
        let flags = legacy ? "" : ##", "provisional":\##(provisional), "temporary":\##(temporary)"##
        return system(##"{"msg":"#Authorization changed", "bundleId":"\##(bundle)", "status":"\##(status)", "reason":"\##(reason)"\##(flags)}"##)
    }

    /// locationd changes the accuracy authorization.
    public func accuracy(_ accuracy: String, temporary: Int, purposeKey: String? = nil, reason: String? = nil) -> ExampleLog {
        let key = purposeKey.map { ##", "purposeKey":"\##($0)""## } ?? ""
        let why = reason.map { ##", "reason":"\##($0)""## } ?? ""
        return system(##"{"msg":"#Accuracy authorization changed", "bundleId":"\##(bundle)", "accuracy":"\##(accuracy)", "temporary":\##(temporary)\##(key)\##(why)}"##)
    }

    /// A location reaches the app's delegate.
    public func deliver(_ horizontalAccuracy: Int = 10) -> ExampleLog {
        app(##"{"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":{"horizontalAccuracy":\##(horizontalAccuracy)}}"##)
    }

    /// A location reaches the app's delegate, its value redacted.
    public func deliverPrivate() -> ExampleLog {
        app(##"{"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":<private>}"##)
    }

    /// iOS pauses (or resumes) the app's location updates.
    public func paused(_ paused: Bool = true) -> ExampleLog {
        let selector = paused ? "locationManagerDidPauseLocationUpdates:" : "locationManagerDidResumeLocationUpdates:"
        return app(##"{"msg":"#CLLocationManager invoking #delegate", "selector":"\##(selector)"}"##)
    }

    // MARK: iOS 15-26 (rules model v2)

    /// The app creates a `CLBackgroundActivitySession` (iOS 17+).
    public func activitySession() -> ExampleLog {
        app(##"{"msg":"CLBackgroundActivitySession", "event":"activity", "_cmd":"backgroundActivitySession", "self":"0x2810a4c60"}"##)
    }

    /// The app invalidates its background activity session.
    public func invalidateActivitySession() -> ExampleLog {
        app(##"{"msg":"CLBackgroundActivitySession", "event":"activity", "_cmd":"invalidate", "self":"0x2810a4c60"}"##)
    }

    /// The app starts `CLLocationUpdate.liveUpdates` (iOS 17+): standard updates.
    public func liveUpdates() -> ExampleLog {
        app(##"{"msg":"CLLocationUpdate", "event":"activity", "_cmd":"liveUpdates", "self":"0x1038ead60"}"##)
    }

    /// A live update reaches the app: a delivery by the standard service.
    public func liveUpdate(_ horizontalAccuracy: Int = 10) -> ExampleLog {
        app(##"{"msg":"#CLLocationUpdate yielding update", "self":"0x1038ead60", "location":{"lat":48.8584, "lon":2.2945, "horizontalAccuracy":\##(horizontalAccuracy), "timestamp":810124690.49}, "isStationary":0}"##)
    }

    /// The app creates a `CLServiceSession` declaring `authorization` (`None`, `WhenInUse`, `Always`; iOS 18+).
    public func serviceSession(_ authorization: String, purposeKey: String? = nil) -> ExampleLog {
        let key = purposeKey.map { ##", "fullAccuracyPurposeKey":"\##($0)""## } ?? ""
        let cmd = purposeKey == nil ? "sessionRequiringAuthorization:" : "sessionRequiringAuthorization:fullAccuracyPurposeKey:"
        return app(##"{"msg":"CLServiceSession", "event":"activity", "_cmd":"\##(cmd)", "authorization":"\##(authorization)"\##(key), "self":"0x2810a4c90"}"##)
    }

    /// The app adds a `CLMonitor` condition (iOS 17+): the monitor service.
    public func monitor() -> ExampleLog {
        app(##"{"msg":"CLMonitor", "event":"activity", "_cmd":"addConditionForMonitoring:identifier:", "condition":"CircularGeographicCondition", "identifier":"home", "self":"0x2810a4cc0"}"##)
    }

    /// The user taps the app's `CLLocationButton` and locationd grants When In Use temporarily (iOS 15+).
    public func locationButton() -> ExampleLog {
        system(##"{"msg":"#TemporaryAuth Explicit temporary authorization request received", "Client":"i\##(bundle):", "Granted":1, "UsingLocationButton":1, "LocationButtonUseMode":1}"##)
    }

    /// locationd shows (or hides) the blue bar.
    public func blueBar(_ visible: Bool) -> ExampleLog {
        system(##"{"msg":"#BackgroundIndicator visibility", "bundleId":"\##(bundle)", "visible":\##(visible ? 1 : 0)}"##)
    }
}

extension RuleExample {
    /// An example whose log is written by an `ExampleLog`.
    public init(os: String?, plist: ExamplePlist? = nil, unknown: Fact? = nil, _ log: ExampleLog, file: String = #filePath, line: Int = #line) {
        self.init(os: os, plist: plist, unknown: unknown, log.text, file: file, line: line)
    }
}
