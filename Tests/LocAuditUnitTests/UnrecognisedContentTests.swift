import Foundation
import Testing

/// A forced format that recognises nothing is an error, and nothing is recorded.
@Suite struct UnrecognisedContentTests {
    static let log = (1...5).map { i in
        syslogLine("Nov 12 12:00:0\(i)", "Runner(CoreLocation)", 412, Messages.delivery(accuracy: Double(i)))
    }.joined(separator: "\n") + "\n"

    @Test("--container log-json on an idevicesyslog log fails, stores nothing, and the retry without it ingests")
    func forcedWrongFormat() throws {
        let ws = try Workspace()
        let path = try ws.write("a.log", UnrecognisedContentTests.log)
        let before = try ws.contentDump()
        let forced = try ws.ingest([path]) { $0.format = .logJSON; $0.parse.year = 2026 }
        let file = try #require(forced.files.first)
        #expect(file.outcome == .failed)
        #expect(file.error?.contains("no line is a log-json record") == true, "\(file.error ?? "")")
        #expect(file.error?.contains("Drop --container") == true)
        #expect(file.error?.contains("idevicesyslog") == true, "names what it looks like")
        #expect(forced.exitCode == 1)
        #expect(try ws.contentDump() == before, "nothing recorded")
        let retry = try #require(try ws.ingest([path]) { $0.parse.year = 2026 }.files.first)
        #expect(retry.outcome == .ingested)
        #expect(retry.events == 5)
    }

    @Test("a detected container with no record in it fails the same way (syslog stamps, but no line of idevicesyslog or system.log)")
    func detectedButNothingParses() throws {
        let ws = try Workspace()
        let stamps = try ws.write("s.log", "Jul  1 09:00:55 a line without a process\nJul  1 09:00:56 nor a pid\n")
        let file = try #require(try ws.ingest([stamps]).files.first)
        #expect(file.outcome == .failed)
        #expect(file.error?.contains("looked like idevicesyslog") == true, "\(file.error ?? "")")
        #expect(file.error?.contains("no line is an idevicesyslog record") == true, "\(file.error ?? "")")
        #expect(try ws.count("SELECT count(*) FROM sources") == 0)
    }

    @Test("a log of its container with no location line, an empty ndjson export and an empty json array are fine")
    func emptyButRecognised() throws {
        let ws = try Workspace()
        let quiet = try ws.write("q.log", syslogLine("Nov 12 12:00:01", "backboardd", 42, "Brightness changed to 0.8") + "\n")
        let trailer = try ws.write("t.ndjson", "{\"count\":0,\"finished\":1}\n")
        let array = try ws.write("e.json", "[\n\n]\n")
        let report = try ws.ingest([quiet, trailer, array]) { $0.parse.year = 2026 }
        #expect(report.files.map(\.outcome) == [.ingested, .ingested, .ingested], "\(report.files.compactMap(\.error))")
        #expect(report.files.map(\.events) == [0, 0, 0])
    }

    @Test("a file whose only line is still being written is not recorded")
    func onlyAHeldBackLine() throws {
        let ws = try Workspace()
        let path = try ws.write("a.log", String(UnrecognisedContentTests.log.prefix(40)))
        let file = try #require(try ws.ingest([path]) { $0.parse.year = 2026 }.files.first)
        #expect(file.outcome == .failed)
        #expect(file.error?.contains("no complete line") == true, "\(file.error ?? "")")
        #expect(try ws.count("SELECT count(*) FROM sources") == 0)
    }
}
