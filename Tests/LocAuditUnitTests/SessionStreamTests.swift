import Foundation
import GRDB
import Testing
@testable import LocAuditModel
@testable import LocAuditReplay
@testable import LocAuditStore

/// The audit cuts an app's lines into sessions as it reads them and hands each session over
/// as soon as no later line can reach it (`SessionBuilder.take`): not before (a late line of
/// its pid still comes to it), and not only at the app's last line (the app's lines are not
/// all held at once; docs/performance.md, "Audit memory, streamed").
@Suite struct SessionStreamTests {
    /// A delivery to pid 501, logged after pid 502's session began: `minute` past 09:00.
    static func lateDelivery(minute: Int) -> String {
        String(format: "Nov 20 09:%02d:00 iPhone App[501] <Notice>: ", minute)
            + ##"{"msg":"#CLLocationManager invoking #delegate", "selector":"locationManager:didUpdateLocations:", "location":{"horizontalAccuracy":10}}"##
    }

    /// Each session of the store's one app as the audit takes it: its pid, its events, and
    /// the events read when it was handed over; and the app's events read in all.
    static func taken(_ path: String) throws -> (sessions: [(pid: Int64?, events: Int, readWhenTaken: Int)], read: Int) {
        var sessions: [(pid: Int64?, events: Int, readWhenTaken: Int)] = []
        var read = 0
        try Store(path: path, access: .read).readAudit(scope: EventScope()) { input in
            try input.replayApps { app in
                while let session = try app.sessions.next() {
                    sessions.append((session.pid, session.events.count, app.sessions.events))
                }
                read += app.sessions.events
            }
        }
        return (sessions, read)
    }

    @Test("a session is handed over once its pid's last line has gone by, before the app's last line is read")
    func handedOverWhenOver() throws {
        let ws = try AuditWorkspace()
        // pid 501 (5 lines: launch, state, status, delivery, termination), then pid 502 (5 lines).
        let log = LogScript().launch().told("AuthorizedWhenInUse").deliver().terminate().launch().deliver().deliver().deliver()
        try ws.ingest(log.text, os: "17.5.1", plist: .complete)
        let (sessions, read) = try Self.taken(ws.dbPath)
        #expect(read == 10)
        #expect(sessions.map(\.pid) == [501, 502])
        #expect(sessions.map(\.events) == [5, 5])
        // Over when the line after pid 502's launch is read (its 7th): pid 501 has no line after its 5th.
        #expect(sessions.map(\.readWhenTaken) == [7, 10])
    }

    @Test("a session whose pid has a line late in the app is not handed over before that line: the late delivery is its")
    func lateLineOfItsPid() throws {
        let ws = try AuditWorkspace()
        let log = LogScript().launch().told("AuthorizedWhenInUse").deliver().terminate().launch().deliver().deliver().deliver()
        try ws.ingest(log.text + "\n" + Self.lateDelivery(minute: 30), os: "17.5.1", plist: .complete)
        let (sessions, read) = try Self.taken(ws.dbPath)
        #expect(read == 11)
        #expect(sessions.map(\.pid) == [501, 502])
        // The delivery to the terminated pid 501 is its session's, though pid 502's session came between.
        #expect(sessions.map(\.events) == [6, 5])
        #expect(sessions.map(\.readWhenTaken) == [11, 11])
        // And the audit judges it so.
        let report = try ws.audit()
        #expect(report.rules == ["delivery-after-termination"])
        #expect(report.findings.first?.pid == 501)
        let rows = try ws.workspace.rows("SELECT pid, events, end_reason FROM sessions ORDER BY start_us")
        #expect(rows.map { $0[0] as Int64? } == [501, 502])
        #expect(rows.map { $0[1] as Int } == [6, 5])
        #expect(rows.map { $0[2] as String } == ["terminated", "end-of-log"])
    }

    @Test("a session whose pid a later launch reused is over when that launch's session takes the pid")
    func reusedPidEndsTheEarlierSession() throws {
        let ws = try AuditWorkspace()
        // No termination (a reboot): the second launch names pid 501 again, and delivers to it.
        let log = LogScript().launch(pid: 501, naming: true).told("AuthorizedWhenInUse").deliver()
            .launch(pid: 501, naming: true).deliver().deliver().deliver()
        try ws.ingest(log.text, os: "17.5.1", plist: .complete)
        let (sessions, read) = try Self.taken(ws.dbPath)
        #expect(read == 9)
        #expect(sessions.map(\.pid) == [501, 501])
        #expect(sessions.map(\.events) == [4, 5])
        // pid 501's last line is the app's last: the first session is over only because the
        // second took its pid (the first line of the second launch names it).
        #expect(sessions[0].readWhenTaken < read)
    }

    @Test("the sessions taken one by one are those cut from all the lines at once")
    func streamedAsAtOnce() throws {
        let ws = try AuditWorkspace()
        let log = LogScript().launch().told("AuthorizedWhenInUse").deliver().terminate().launch().deliver().terminate()
            .launch(pid: 501).deliver().deliver().state("Terminated").launch().deliver()
        try ws.ingest(log.text + "\n" + Self.lateDelivery(minute: 40) + "\n" + Self.lateDelivery(minute: 41), os: "17.5.1",
                      plist: .complete)
        var streamed: [Session] = []
        var atOnce: [Session] = []
        try Store(path: ws.dbPath, access: .read).readAudit(scope: EventScope()) { input in
            try input.replayApps(eventTimes: true) { app in
                while let session = try app.sessions.next() { streamed.append(session) }
            }
        }
        // All the lines: the streamed sessions' (and what opened none: there is none here), in time order.
        let lines = streamed.flatMap(\.events).sorted { ($0.timeUS, $0.sourceId, $0.line) < ($1.timeUS, $1.sourceId, $1.line) }
        atOnce = SessionBuilder.sessions(of: lines, versions: [:])
        #expect(lines.count == 19)
        #expect(streamed.map(\.pid) == atOnce.map(\.pid))
        #expect(streamed.map { $0.events.map(\.id) } == atOnce.map { $0.events.map(\.id) })
        #expect(streamed.map(\.endReason) == atOnce.map(\.endReason))
        #expect(streamed.map(\.endUS) == atOnce.map(\.endUS))
        #expect(streamed.map(\.pid) == [501, 502, 501, 502])
    }

    @Test("an app's events are read on a thread of their own: a replay that fails while that reader is ahead of it stops the reader, and the store reads again at once")
    func readerStopsWithAFailedReplay() throws {
        struct Stop: Error {}
        let ws = try AuditWorkspace()
        // More deliveries than the reader hands over before it waits (4 batches of 1,024).
        let log = LogScript().launch().told("AuthorizedWhenInUse")
        for _ in 0..<6_000 { log.deliver() }
        try ws.ingest(log.terminate().launch().deliver().text, os: "17.5.1", plist: .complete)
        #expect(throws: Stop.self) {
            try Store(path: ws.dbPath, access: .read).readAudit(scope: EventScope()) { input in
                try input.replayApps { app in
                    // The reader has filled its hand-over by now: wait for it, then fail.
                    Thread.sleep(forTimeInterval: 0.2)
                    _ = try app.sessions.next()
                    throw Stop()
                }
            }
        }
        let (sessions, read) = try Self.taken(ws.dbPath)
        #expect(read == 6_007)
        #expect(sessions.map(\.pid) == [501, 502])
        #expect(sessions.map(\.events) == [6_004, 3])
    }
}
