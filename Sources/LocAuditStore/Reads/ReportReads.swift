import Foundation
import GRDB
import LocAuditModel
import LocAuditReplay
import LocAuditRules

// What reports read besides the findings: the findings' sessions replayed again, the text of
// the lines they cite, their devices' names.

extension SessionTimeline {
    /// The timelines of the sessions that `findings` (stored or fresh) name, in device, app
    /// and time order. Replays the stored events of their apps with the audit's own replay,
    /// so a stored audit run can be drawn later without re-running the rules. Coordinates
    /// are read only when `options.showCoordinates`.
    public static func load(_ db: Database, for findings: [Finding], options: ReportOptions = ReportOptions()) throws -> [SessionTimeline] {
        let sessionFindings = findings.filter { $0.sessionStart != nil }
        guard !sessionFindings.isEmpty else { return [] }
        // Read only the events of the devices and apps with findings.
        let scope = EventScope(devices: Set(sessionFindings.map(\.device)), bundleIds: Set(sessionFindings.map(\.bundleId)))
        var input = try AuditInput.load(db, scope: scope)
        return try load(db, drawing: input.timelines().joined(), for: findings, options: options)
    }

    /// The timelines of `sessions` (the audit's own, in device, app and time order) that
    /// `findings` name, with their coordinates read only when `options.showCoordinates`.
    static func load(_ db: Database, drawing sessions: some Sequence<ReplayedSession>, for findings: [Finding],
                     options: ReportOptions) throws -> [SessionTimeline] {
        var timelines = SessionTimeline.timelines(of: sessions, findings: findings)
        if options.showCoordinates {
            let statement = try db.makeStatement(sql: "SELECT latitude, longitude FROM events WHERE id = ?")
            for t in timelines.indices {
                for d in timelines[t].deliveries.indices {
                    guard let row = try Row.fetchOne(statement, arguments: [timelines[t].deliveries[d].event]),
                          let latitude = row["latitude"] as Double?, let longitude = row["longitude"] as Double? else { continue }
                    timelines[t].deliveries[d].coordinate = Coordinate(latitude: round(latitude, options.coordinateDecimals),
                                                                       longitude: round(longitude, options.coordinateDecimals))
                }
            }
        }
        return timelines
    }
}

extension DeviceLabel {
    /// The devices of these ids that the `devices` table knows.
    static func load(_ db: Database, ids: Set<String>) throws -> [String: DeviceLabel] {
        let statement = try db.makeStatement(sql: "SELECT name, product_type FROM devices WHERE id = ?")
        var labels: [String: DeviceLabel] = [:]
        for id in ids {
            guard let row = try Row.fetchOne(statement, arguments: [id]) else { continue }
            labels[id] = DeviceLabel(id: id, name: row["name"], model: row["product_type"])
        }
        return labels
    }
}

extension Store {
    /// What the HTML report of `findings` draws and quotes besides the findings: the timelines
    /// of their sessions, the text of their evidence lines, their devices. Reads only. The
    /// timelines are drawn from `sessions`, the audit's replayed sessions, when it hands them
    /// on; a stored run (nil) replays its apps' stored events again.
    package func reportReads(for findings: [Finding], options: ReportOptions, sessions: [ReplayedSession]? = nil)
        throws -> (timelines: [SessionTimeline], evidence: [Int64: EvidenceText], devices: [String: DeviceLabel]) {
        try connect(readOnly: true).read { db in
            let timelines = try sessions.map { try SessionTimeline.load(db, drawing: $0, for: findings, options: options) }
                ?? SessionTimeline.load(db, for: findings, options: options)
            return (timelines, try EvidenceText.load(db, for: findings), try DeviceLabel.load(db, ids: Set(findings.map(\.device))))
        }
    }

    /// The names and models of these devices, for reports. Reads only.
    public func deviceLabels(_ ids: Set<String>) throws -> [String: DeviceLabel] {
        try connect(readOnly: true).read { try DeviceLabel.load($0, ids: ids) }
    }
}

extension Store {
    /// What reports call the devices and apps of `report`: every device the store knows by
    /// name and model, and for each finding the version and build of its app's Info.plist in
    /// force (a session finding's when its session started, as the audit judged it; a
    /// configuration finding's the plist it cites, else the one in force when it shows).
    /// Reads only.
    public func reportNames(for report: AuditReport) throws -> ReportNames {
        try reportNames(for: report.findings + report.resolved)
    }

    /// The same for some findings (`locaudit watch` names each as it prints it).
    public func reportNames(for findings: [Finding]) throws -> ReportNames {
        try connect(readOnly: true).read { db in
            var devices: [String: DeviceLabel] = [:]
            for d in try Devices.list(in: db) {
                devices[d.id] = DeviceLabel(id: d.id, name: d.name, model: d.model, setByHand: d.setByHand)
            }
            let versions = try AppVersions.load(db)
            var apps: [String: ReportNames.AppBuild] = [:]
            for f in findings {
                guard let app = versions[f.bundleId], let plist = Self.plist(of: f, in: app) else { continue }
                apps[f.fingerprint] = ReportNames.AppBuild(version: plist.facts.version, build: plist.facts.build)
            }
            return ReportNames(devices: devices, apps: apps)
        }
    }

    /// The Info.plist a finding was judged with.
    static func plist(of f: Finding, in app: AppVersions) -> AppVersion? {
        if let start = f.sessionStartUS {
            return app.inForce(at: start)
        }
        let cited = Set(f.evidence.filter { $0.line == nil }.map(\.file))
        return app.versions.last { cited.contains($0.path) } ?? app.inForce(at: f.timeUS)
    }
}
