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
