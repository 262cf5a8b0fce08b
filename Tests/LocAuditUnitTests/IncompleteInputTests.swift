import Foundation
import GRDB
import Testing
@testable import LocAuditStore

/// Files still being written: a last line without its newline is held back until the file is
/// known complete, and re-ingesting the grown file adds exactly what was missing.
@Suite struct IncompleteInputTests {
    /// An app under reduced accuracy that gets only coarse (3000 m) locations: no finding.
    static let coarseLog: String = {
        let script = LogScript().launch().call("requestWhenInUseAuthorization").told("AuthorizedWhenInUse", limitsPrecision: 1)
            .call("startUpdatingLocation")
        for _ in 0..<4 { script.deliver(3000) }
        return script.text + "\n"
    }()

    static let facts = "UniqueDeviceID: device-1\nDeviceName: iPhone\nProductVersion: 15.8\nTimeZone: UTC\n"

    /// Every event as stored, without the row and source ids (which depend on the order of ingests).
    static func events(_ ws: Workspace) throws -> [String] {
        try ws.rows("SELECT * FROM events ORDER BY time_us, fingerprint").map { row in
            row.description.replacingOccurrences(of: #"id:\d+ source_id:\d+ "#, with: "", options: .regularExpression)
        }
    }

    @Test("a plain log cut mid-line, then ingested whole, ends as the whole file alone, with no finding from the cut line")
    func cutThenWhole() throws {
        let whole = IncompleteInputTests.coarseLog
        // Cut inside the last line: "horizontalAccuracy":3 of a line that says 3000.
        let cutAt = try #require(whole.range(of: "\"horizontalAccuracy\":3000", options: .backwards)).lowerBound
        let cut = String(whole[..<whole.index(cutAt, offsetBy: "\"horizontalAccuracy\":3".count)])
        let lastLine = whole.split(separator: "\n").count

        let fresh = try AuditWorkspace()
        let freshPath = try fresh.workspace.write("device-2026-11-20.log", whole)
        try fresh.workspace.write("device-2026-11-20.ideviceinfo.txt", IncompleteInputTests.facts)
        let all = try #require(try fresh.workspace.ingest([freshPath]).files.first?.events)

        let grown = try AuditWorkspace()
        let path = try grown.workspace.write("device-2026-11-20.log", cut)
        try grown.workspace.write("device-2026-11-20.ideviceinfo.txt", IncompleteInputTests.facts)
        let first = try #require(try grown.workspace.ingest([path]).files.first)
        #expect(first.outcome == .ingested)
        #expect(first.events == all - 1, "every line but the cut one")
        #expect(first.skipped?["incomplete"] == 1)
        #expect(first.firstSkippedLine?["incomplete"] == lastLine)
        #expect(first.heldBackFrom == lastLine)
        #expect(try grown.workspace.count("SELECT count(*) FROM events WHERE horizontal_accuracy < 1000") == 0)
        #expect(try grown.audit().rules.isEmpty, "no finding from a line still being written")

        try grown.workspace.write("device-2026-11-20.log", whole)
        let second = try #require(try grown.workspace.ingest([path]).files.first)
        #expect(second.outcome == .ingested)
        #expect(second.events == 1, "only the line that was missing")
        #expect(second.skipped?["duplicate"] == all - 1)
        #expect(second.heldBackFrom == nil)

        #expect(try IncompleteInputTests.events(grown.workspace) == (try IncompleteInputTests.events(fresh.workspace)))
        #expect(try grown.audit().rules == (try fresh.audit().rules))
        #expect(try grown.audit().rules.isEmpty)
    }

    @Test("a cut continuation line holds back the whole record it continues")
    func cutContinuation() throws {
        let ws = try Workspace()
        let first = syslogLine("Nov 12 12:00:00", "Runner(CoreLocation)", 412, Messages.delivery(accuracy: 65))
        let prompt = syslogLine("Nov 12 12:00:01", "locationd", 64, ##"{"msg":"#Authorization prompt", "bundleId":"com.example.app","##)
        let body = first + "\n" + prompt + "\n \"kind\":\"Always\", \"options\":\"WhenInUse,Al"
        let report = try ws.ingest([try ws.write("c.log", body)]) { $0.parse.year = 2026 }
        let file = try #require(report.files.first)
        #expect(file.events == 1)
        #expect(file.skipped == ["incomplete": 1])
        #expect(file.firstSkippedLine == ["incomplete": 2], "the record's first line")
        #expect(file.heldBackFrom == 2)
        #expect(file.linesRead == 3)
        #expect(try ws.count("SELECT count(*) FROM events WHERE kind = 'prompt'") == 0)
        #expect(report.text().contains("held back from line 2"), "\(report.text())")
    }

    @Test("a cut line after a whole record holds back that line only")
    func cutHeaderLine() throws {
        let ws = try Workspace()
        let prompt = syslogLine("Nov 12 12:00:01", "locationd", 64, ##"{"msg":"#Authorization prompt", "bundleId":"com.example.app","##)
            + "\n \"kind\":\"Always\", \"options\":\"WhenInUse,Always,Deny\"}\n"
        let body = prompt + syslogLine("Nov 12 12:00:02", "Runner(CoreLocation)", 412, Messages.delivery(accuracy: 65)).dropLast(30)
        let file = try #require(try ws.ingest([try ws.write("c.log", body)]) { $0.parse.year = 2026 }.files.first)
        #expect(file.events == 1)
        #expect(try ws.rows("SELECT prompt_kind FROM events").first?["prompt_kind"] as String? == "Always")
        #expect(file.firstSkippedLine == ["incomplete": 3])
    }

    static let ndjsonRecords = (0..<3).map { i in
        ##"{"timestamp":"2026-07-26 18:11:2\##(i).000000+1200","processImagePath":"/usr/libexec/locationd","processID":64,"eventMessage":"{\"msg\":\"#Authorization changed\", \"bundleId\":\"com.example.app\", \"status\":\"AuthorizedWhenInUse\", \"reason\":\"Prompt\", \"provisional\":0, \"temporary\":0}"}"##
    }

    @Test("ndjson: a last object without its newline is held back")
    func cutNDJSON() throws {
        let ws = try Workspace()
        let records = IncompleteInputTests.ndjsonRecords
        let body = records[0] + "\n" + records[1] + "\n" + records[2].prefix(records[2].count - 40)
        let file = try #require(try ws.ingest([try ws.write("a.ndjson", body)]).files.first)
        #expect(file.container == "log-ndjson")
        #expect(file.events == 2)
        #expect(file.skipped == ["incomplete": 1])
        #expect(file.heldBackFrom == 3)
    }

    @Test("log-json: objects are read as they close; one still open at the end is counted incomplete")
    func cutJSONArray() throws {
        let ws = try Workspace()
        let records = IncompleteInputTests.ndjsonRecords
        let body = "[" + records[0] + ",\n" + records[1] + ",\n" + records[2].prefix(records[2].count - 40)
        let file = try #require(try ws.ingest([try ws.write("a.json", body)]).files.first)
        #expect(file.container == "log-json")
        #expect(file.events == 2)
        #expect(file.skipped == ["incomplete": 1])
        #expect(file.firstSkippedLine == ["incomplete": 3])
        // The closing "]" says the array is whole: its last line needs no newline.
        let closed = "[" + records.joined(separator: ",\n") + "]"
        let whole = try #require(try ws.ingest([try ws.write("b.json", closed)]).files.first)
        #expect(whole.events == 1, "the third record; the first two are duplicates")
        #expect(whole.skipped == ["duplicate": 2])
    }

    @Test("a gzip stream that ended with its trailer, and --complete, read the last line without a newline")
    func knownComplete() throws {
        let body = syslogLine("Nov 12 12:00:00", "Runner(CoreLocation)", 412, Messages.delivery(accuracy: 65)) + "\n"
            + syslogLine("Nov 12 12:00:01", "Runner(CoreLocation)", 412, Messages.delivery(accuracy: 3000))
        let ws = try Workspace()
        let gz = try #require(try ws.ingest([try ws.writeGzip("a.log.gz", body)]) { $0.parse.year = 2026 }.files.first)
        #expect(gz.events == 2)
        #expect(gz.skipped == [:])
        let ws2 = try Workspace()
        let plain = try ws2.write("a.log", body)
        let complete = try #require(try ws2.ingest([plain]) { $0.parse.year = 2026; $0.complete = true }.files.first)
        #expect(complete.events == 2)
        #expect(try ws2.count("SELECT count(*) FROM events WHERE horizontal_accuracy = 3000") == 1)
    }

}
