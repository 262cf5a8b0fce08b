import LocAuditModel
import LocAuditReplay

/// What reports call the things findings identify by id: devices by name (and model), apps
/// by the version and build of the Info.plist in force. Read from the store before any report
/// is rendered (`Store.reportNames`), so that reporters stay functions of values.
public struct ReportNames: Sendable, Equatable {
    /// The store's devices, by device id.
    public var devices: [String: DeviceLabel]
    /// The app version and build each finding was seen with, by fingerprint.
    public var apps: [String: AppBuild]

    /// `CFBundleShortVersionString` and `CFBundleVersion`.
    public struct AppBuild: Sendable, Equatable {
        public var version: String?
        public var build: String?
        public init(version: String?, build: String?) {
            self.version = version
            self.build = build
        }
    }

    public init(devices: [String: DeviceLabel] = [:], apps: [String: AppBuild] = [:]) {
        self.devices = devices
        self.apps = apps
    }

    /// The report with its findings (reported and resolved) named, and the devices of its checks.
    public func apply(to report: AuditReport) -> AuditReport {
        guard !devices.isEmpty || !apps.isEmpty else { return report }
        var result = report
        result.findings = report.findings.map(named)
        result.resolved = report.resolved.map(named)
        result.devices = devices
        return result
    }

    /// The finding with its device's name and its app's version, where known.
    public func named(_ finding: Finding) -> Finding {
        var f = finding
        if let name = devices[f.device]?.name, !name.isEmpty { f.deviceName = name }
        if let app = apps[f.fingerprint] {
            f.appVersion = app.version
            f.appBuild = app.build
        }
        return f
    }
}
