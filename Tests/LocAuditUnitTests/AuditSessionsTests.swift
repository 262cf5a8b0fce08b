import Foundation
import Testing
@testable import LocAuditAudit
@testable import LocAuditModel
@testable import LocAuditRules
@testable import LocAuditStore

/// The audit hands its replayed sessions to the reporters: a fresh audit's HTML timelines
/// are drawn from them, a stored run's from a second replay, and both draw the same page.
@Suite struct AuditSessionsTests {
    @Test("a fresh audit hands on the replayed sessions its findings name, and the page drawn from them is the page a second replay draws")
    func handedSessionsDrawTheSamePage() throws {
        var options = ReportOptions()
        options.showCoordinates = true
        let ws = try Workspace()
        _ = try ws.ingest([packageRoot.appendingPathComponent("samples/logs").path, packageRoot.appendingPathComponent("samples/apps").path])
        let report = try Auditor(databasePath: ws.store.path, options: AuditOptions()).run()
        let sessions = try #require(report.sessions)
        let named = Set(report.findings.compactMap { f in f.sessionStart.map { [f.device, f.bundleId, "\(f.pid ?? -1)", $0] } })
        #expect(!named.isEmpty)
        #expect(Set(sessions.map { [$0.session.deviceId, $0.session.bundleId, "\($0.session.pid ?? -1)", Timestamps.isoUTC($0.session.startUS)] }) == named)

        let store = try Store(path: ws.store.path, access: .read)
        let handed = try store.htmlReportInputs(for: report.findings, options: options, sessions: sessions)
        let replayed = try store.htmlReportInputs(for: report.findings, options: options)
        #expect(handed.timelines.count == named.count)
        #expect(handed.timelines == replayed.timelines)
        #expect(handed.timelines.contains { $0.deliveries.contains { $0.coordinate != nil } })
        #expect(handed.evidence == replayed.evidence && !handed.evidence.isEmpty)
        #expect(handed.devices == replayed.devices)

        // A run read back from the store has no sessions: its reports replay.
        #expect(try AuditReport.stored(in: store, run: report.runId).sessions == nil)
    }
}
