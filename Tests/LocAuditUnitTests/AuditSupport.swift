import Foundation
@testable import LocAuditAudit
@testable import LocAuditModel
@testable import LocAuditRules
@testable import LocAuditNormalise

/// Writes an idevicesyslog log of one app (`com.example.app`, executable `App`) line by
/// line, one second apart, so tests read as the story they tell.
final class LogScript {
    private(set) var lines: [String] = []
    private var second = 0
    private(set) var pid = 500
    let bundle = "com.example.app"

    /// Lets `seconds` more pass before the next line (each line is a second after the last).
    @discardableResult func wait(_ seconds: Int) -> LogScript {
        second += seconds
        return self
    }

    private func stamp() -> String {
        second += 1
        return String(format: "Nov 20 %02d:%02d:%02d", 9 + second / 3600, second / 60 % 60, second % 60)
    }

    @discardableResult func system(_ message: String, process: String = "locationd[60]") -> LogScript {
        lines.append("\(stamp()) iPhone \(process) <Notice>: \(message)")
        return self
    }

    @discardableResult func app(_ message: String) -> LogScript {
        lines.append("\(stamp()) iPhone App[\(pid)] <Notice>: \(message)")
        return self
    }

    /// A new process: SpringBoard's launch line and RunningBoard's first state. With `pid`,
    /// the process gets that pid (one seen before: pids are reused, e.g. after a reboot), and
    /// with `naming` the launch line says it (`app<BUNDLE>:PID`).
    @discardableResult func launch(intent: String = "foreground-interactive", pid reused: Int? = nil, naming: Bool = false) -> LogScript {
        pid = reused ?? pid + 1
        system("Bootstrapping app<\(bundle)>\(naming ? ":\(pid)" : "") with intent \(intent)", process: "SpringBoard[50]")
        return state(intent == "background" ? "BackgroundRunning" : "ForegroundRunning")
    }

    @discardableResult func state(_ state: String) -> LogScript {
        system(##"{"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"\##(state)", "pid":\##(pid), "bundleId":"\##(bundle)"}"##)
    }

    @discardableResult func terminate() -> LogScript { state("Terminated") }

    /// The app's delegate is told its status (and accuracy: `limitsPrecision`).
    @discardableResult func told(_ status: String, limitsPrecision: Int? = nil) -> LogScript {
        let precision = limitsPrecision.map { ##", "limitsPrecision":\##($0)"## } ?? ""
        return app(##"{"msg":"#CLLocationManager invoking #delegate", "selector":"locationManagerDidChangeAuthorization:", "authorizationStatus":"\##(status)"\##(precision)}"##)
    }

    /// locationd changes the status.
    @discardableResult func status(_ status: String, reason: String = "Prompt", provisional: Int = 0, temporary: Int = 0) -> LogScript {
        system(##"{"msg":"#Authorization changed", "bundleId":"\##(bundle)", "status":"\##(status)", "reason":"\##(reason)", "provisional":\##(provisional), "temporary":\##(temporary)}"##)
    }

    @discardableResult func prompt(_ kind: String, options: String) -> LogScript {
        system(##"{"msg":"#Authorization prompt", "bundleId":"\##(bundle)", "kind":"\##(kind)", "options":"\##(options)"}"##)
    }

    @discardableResult func answer(_ choice: String) -> LogScript {
        system(##"{"msg":"#Authorization prompt response", "bundleId":"\##(bundle)", "choice":"\##(choice)"}"##)
    }

    @discardableResult func call(_ cmd: String, purposeKey: String? = nil) -> LogScript {
        let key = purposeKey.map { ##", "purposeKey":"\##($0)""## } ?? ""
        return app(##"{"msg":"CLLocationManager", "event":"activity", "_cmd":"\##(cmd)"\##(key)}"##)
    }

    @discardableResult func property(_ name: String, _ value: Int) -> LogScript {
        app(##"{"msg":"state transition", "event":"state_transition", "state":"LocationManager", "property":"\##(name)", "old":\##(1 - value), "new":\##(value)}"##)
    }

    @discardableResult func deliver(_ horizontalAccuracy: Double = 10) -> LogScript {
        app(##"{"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":{"horizontalAccuracy":\##(horizontalAccuracy)}}"##)
    }

    @discardableResult func deliverPrivate() -> LogScript {
        app(##"{"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":<private>}"##)
    }

    @discardableResult func paused(_ paused: Bool) -> LogScript {
        app(##"{"msg":"#CLLocationManager invoking #delegate", "selector":"\##(paused ? "locationManagerDidPauseLocationUpdates:" : "locationManagerDidResumeLocationUpdates:")"}"##)
    }

    @discardableResult func blueBar(_ visible: Bool) -> LogScript {
        system(##"{"msg":"#BackgroundIndicator visibility", "bundleId":"\##(bundle)", "visible":\##(visible ? 1 : 0)}"##)
    }

    /// A relaunch by locationd (after SpringBoard's background launch).
    @discardableResult func relaunch(for service: String, pid reused: Int? = nil, naming: Bool = false) -> LogScript {
        pid = reused ?? pid + 1
        system("Bootstrapping app<\(bundle)>\(naming ? ":\(pid)" : "") with intent background", process: "SpringBoard[50]")
        system(##"{"msg":"#Launch client for location event", "bundleId":"\##(bundle)", "service":"\##(service)"}"##)
        return state("BackgroundRunning")
    }

    @discardableResult func accuracy(_ accuracy: String, temporary: Int, purposeKey: String? = nil, reason: String? = nil) -> LogScript {
        let key = purposeKey.map { ##", "purposeKey":"\##($0)""## } ?? ""
        let why = reason.map { ##", "reason":"\##($0)""## } ?? ""
        return system(##"{"msg":"#Accuracy authorization changed", "bundleId":"\##(bundle)", "accuracy":"\##(accuracy)", "temporary":\##(temporary)\##(key)\##(why)}"##)
    }

    var text: String { lines.joined(separator: "\n") }

    /// This log as a rule example on `os`.
    func example(os: String?, plist: ExamplePlist? = nil) -> RuleExample {
        RuleExample(os: os, plist: plist, text)
    }
}

/// A store holding ingested logs, audited like users do.
final class AuditWorkspace {
    let workspace: Workspace
    var dbPath: String { workspace.store.path }

    init() throws { workspace = try Workspace() }

    /// Ingests a log with its device facts (and Info.plist).
    /// `zone` reads the lines' stamps (`--tz`); nil: none, UTC is assumed.
    /// `catalogs`: user catalog files (`--catalog`).
    func ingest(_ log: String, name: String = "device-2026-11-20.log", os: String?, device: String = "device-1",
                plist: ExamplePlist? = nil, zone: String? = "UTC", catalogs: [String] = []) throws {
        let path = try workspace.write(name, log + "\n")
        var facts = "UniqueDeviceID: \(device)\nDeviceName: iPhone\n"
        if let os { facts += "ProductVersion: \(os)\n" }
        let stem = name.components(separatedBy: ".log").first!
        try workspace.write("\(stem).ideviceinfo.txt", facts)
        var plists: [String] = []
        if let plist { plists.append(try workspace.write("\(UUID().uuidString).plist", plist.xml)) }
        let report = try workspace.ingest([path]) {
            $0.infoPlists = plists
            $0.catalogFiles = catalogs
            $0.parse = ParseOptions(year: 2026, zone: zone.flatMap(TimeZone.init(identifier:)))
        }
        precondition(report.files.allSatisfy { $0.error == nil }, "ingest failed: \(report.files.compactMap(\.error))")
    }

    func audit(_ configure: (inout AuditOptions) -> Void = { _ in }) throws -> AuditReport {
        var options = AuditOptions()
        configure(&options)
        return try Auditor(databasePath: dbPath, options: options).run()
    }
}

extension AuditReport {
    /// Identifiers of the reported findings' rules.
    var rules: [String] { findings.map(\.rule) }
}
