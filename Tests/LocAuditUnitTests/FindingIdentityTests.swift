import Foundation
import GRDB
import Testing
@testable import LocAuditAudit
@testable import LocAuditModel
@testable import LocAuditRules
@testable import LocAuditStore

/// A finding keeps its identity when its session gains lines: late data must not make it
/// new (and the old one resolved).
@Suite struct FindingIdentityTests {
    static func audit(_ ws: Workspace) throws -> AuditReport {
        try Auditor(databasePath: ws.store.path, options: AuditOptions()).run()
    }

    /// Audits `early`, then again after `late` arrived: the finding persists, one row.
    static func expectPersists(early: (Workspace) throws -> Void, late: (Workspace) throws -> Void,
                               rule: String = "delivery-without-authorization", _ comment: Comment) throws {
        let ws = try Workspace()
        try early(ws)
        let first = try audit(ws)
        #expect(first.rules == [rule], comment)
        try late(ws)
        let second = try audit(ws)
        #expect(second.rules == [rule], comment)
        #expect(second.findings.map(\.fingerprint) == first.findings.map(\.fingerprint), comment)
        #expect(second.persisting.count == 1 && second.new.isEmpty && second.resolved.isEmpty, comment)
        #expect(try ws.count("SELECT count(*) FROM findings") == 1, comment)
        #expect(try ws.count("SELECT count(*) FROM findings WHERE resolved_run IS NULL AND first_run = ?", [first.runId]) == 1, comment)
    }

    static func log(_ lines: some Sequence<String>) -> String { lines.joined(separator: "\n") + "\n" }

    @Test("a session without a launch line that gains earlier lines from an overlapping export keeps its findings")
    func earlierLines() throws {
        // pid 500 runs from before the first export started.
        let lines = LogScript().call("requestWhenInUseAuthorization").call("startUpdatingLocation").state("ForegroundRunning")
            .told("Denied").deliver().deliver().lines
        try FindingIdentityTests.expectPersists(
            early: { try TimeZoneTests.ingest($0, "dev-2026-11-20.log", FindingIdentityTests.log(lines.dropFirst(2)), zone: "UTC") },
            late: { try TimeZoneTests.ingest($0, "dev-2026-11-20-full.log", FindingIdentityTests.log(lines), zone: "UTC") },
            "earlier lines")
    }

    @Test("a session that gains its launch line from an overlapping export keeps its findings")
    func launchLineArrives() throws {
        let lines = LogScript().launch().told("Denied").deliver().deliver().lines
        try FindingIdentityTests.expectPersists(
            early: { try TimeZoneTests.ingest($0, "dev-2026-11-20.log", FindingIdentityTests.log(lines.dropFirst()), zone: "UTC") },
            late: { try TimeZoneTests.ingest($0, "dev-2026-11-20-full.log", FindingIdentityTests.log(lines), zone: "UTC") },
            "launch line")
    }

    @Test("a session re-timed by a zoned export of the same period keeps its findings")
    func retimedByAZonedExport() throws {
        let lines = LogScript().launch().told("Denied").deliver().deliver().lines
        try FindingIdentityTests.expectPersists(
            early: { try TimeZoneTests.ingest($0, "dev-2026-11-20.log", FindingIdentityTests.log(lines)) },
            late: { try TimeZoneTests.ingest($0, "dev-2026-11-20.ndjson", TimeZoneTests.ndjson(lines, offset: "+0100")) },
            "re-timed")
    }

    @Test("the same logs give the same finding fingerprints in any database, whichever export came first")
    func sameLogsSameFingerprints() throws {
        let lines = LogScript().launch().told("Denied").deliver().deliver().lines
        var fingerprints: [[String]] = []
        for syslogFirst in [true, false] {
            let ws = try Workspace()
            let syslog = { try TimeZoneTests.ingest(ws, "dev-2026-11-20.log", FindingIdentityTests.log(lines), zone: "Europe/Paris") }
            let precise = { try TimeZoneTests.ingest(ws, "dev-2026-11-20.ndjson", TimeZoneTests.ndjson(lines, offset: "+0100")) }
            if syslogFirst { try syslog(); try precise() } else { try precise(); try syslog() }
            fingerprints.append(try FindingIdentityTests.audit(ws).findings.map(\.fingerprint))
        }
        #expect(fingerprints[0].count == 1)
        #expect(fingerprints[0] == fingerprints[1])
    }

    @Test("a store from before v6 keeps its findings: their old fingerprints are matched through the sessions they were recorded with")
    func oldFingerprintsAreMatched() throws {
        let ws = try Workspace()
        let lines = LogScript().launch().told("Denied").deliver().deliver().lines
        try TimeZoneTests.ingest(ws, "dev-2026-11-20.log", FindingIdentityTests.log(lines), zone: "UTC")
        let first = try FindingIdentityTests.audit(ws)
        let finding = try #require(first.findings.first)
        // As v5 left it: the fingerprint of rule, device, app, pid and session start; no session_event.
        let legacy = Fingerprint.of("\(finding.rule)|\(finding.device)|\(finding.bundleId)|\(finding.pid!)|"
            + "\(AuditOptions.parseTime(finding.sessionStart!)!)")
        try DatabaseQueue(path: ws.store.path).write { db in
            try db.execute(sql: "UPDATE findings SET fingerprint = ?", arguments: [legacy])
            try db.execute(sql: """
                ALTER TABLE findings DROP COLUMN session_event;
                DELETE FROM grdb_migrations WHERE identifier LIKE 'v6:%';
                """)
        }
        _ = try Store(path: ws.store.path)
        #expect(try ws.count("SELECT count(*) FROM findings WHERE session_event IS NOT NULL") == 1)
        // Audited again: the same finding, under its old fingerprint.
        let second = try FindingIdentityTests.audit(ws)
        #expect(second.findings.map(\.fingerprint) == [legacy])
        #expect(second.persisting == [legacy] && second.new.isEmpty && second.resolved.isEmpty)
        #expect(try ws.count("SELECT count(*) FROM findings") == 1)
    }
}

