import Foundation
import Testing
@testable import LocAuditNormalise

/// A run of empty lines is counted at once (issue 24: 20 GB of newlines cost 84 s a GB, one
/// line at a time). These hold what the run gives to what each line gave: the same lines, the
/// same skips and notes, the same events on the same lines, whatever the container, the place
/// of the run (between records, inside one, inside a JSON object) and the chunks it spans.
@Suite struct BlankLineTests {
    final class Collect: ParseSink {
        var events: [String] = []
        func event(_ e: ParsedEvent) throws { events.append("\(e.line) \(e.timeUS) \(e.event.kind) \(e.message.utf8.count) \(e.fingerprint)") }
        func link(bundleId: String, pid: Int64, timeUS: Int64) throws {}
        func deviceNamed(_ name: String) throws {}
    }

    /// Parses `bytes` as `container`, fed in chunks of `chunk` bytes.
    static func parse(_ bytes: [UInt8], _ container: Container, chunk: Int) throws -> (ParseCounts, [String]) {
        let sink = Collect()
        let parser = RecordParser(container: container, catalog: Catalog.builtin, options: ParseOptions(year: 2026), sink: sink)
        var i = 0
        while i < bytes.count {
            try parser.consume(Array(bytes[i..<min(i + chunk, bytes.count)]))
            i += chunk
        }
        try parser.finish(complete: true)
        return (parser.counts, sink.events)
    }

    static let samples = [
        "samples/logs/qa-iphone12-14-2026-11-20.log", "samples/logs/qa-iphone11-13-2026-11-21.json",
        "samples/logs/qa-iphone14pro-17-2026-11-21.ndjson", "samples/logs/qa-iphone15pro-18-2026-11-20.ndjson.gz",
        "samples/containers/macbook-2026-11-22-system.log", "samples/containers/qa-iphone14pro-17-2026-11-22-console.log",
        "samples/containers/qa-iphone14pro-17-2026-11-22-messages.log", "samples/containers/qa-iphone14pro-17-2026-11-22-mobile_installation.log",
        "samples/containers/qa-iphone15pro-18-2026-11-22-console-xcode.log", "samples/containers/qa-iphone15pro-18-2026-11-22-pymobiledevice3.log.gz",
        "samples/containers/qa-iphone15pro-18-2026-11-23-pymobiledevice3.json",
    ]

    @Test("a file of newlines only: every one a line, noise, and a line after them keeps its number")
    func newlinesOnly() throws {
        let n = 100_003
        let text = Array(repeating: UInt8(0x0a), count: n) + Array("not a record\n".utf8)
        for chunk in [1 << 20, 4096, 13] {
            let (counts, events) = try Self.parse(text, .idevicesyslog, chunk: chunk)
            #expect(counts.linesRead == n + 1)
            #expect(counts.skipped["noise"] == n)
            #expect(counts.firstLine["malformed"] == n + 1, "the line after the run is line \(n + 1)")
            #expect(events.isEmpty)
            #expect(try Self.parse(text, .logNDJSON, chunk: chunk).0.skipped["noise"] == n)
            #expect(try Self.parse(text, .messageOnly, chunk: chunk).0.skipped["noise"] == n)
        }
    }

    @Test("empty lines after a record are noise, not lines of it (issue 26); inside a JSON object they are part of it, up to the longest line")
    func insideRecords() throws {
        // A record, then empty lines, then a line without a prefix: the empty lines are
        // noise (a paste puts them between records), the last line still continues the record.
        let record = syslogLine("Nov 12 10:00:00", "locationd", 64, "Client com.example.app, Authorization status changed to 4")
        let blank = String(repeating: "\n", count: 1000)
        let (counts, _) = try Self.parse(Array((record + "\n" + blank + "more of it\n").utf8), .idevicesyslog, chunk: 4096)
        #expect(counts.notes["continuation"] == 1)
        #expect(counts.skipped["noise"] == 1000)
        #expect(counts.linesInRecords == 2)
        #expect(counts.linesSkipped == 1000)
        // An object of a `--style json` array longer than the longest line with its empty lines: too long.
        let long = Array("[{\"eventMessage\": \"x\",".utf8) + Array(repeating: 0x0a, count: RecordParser.maxLineBytes + 1) + Array("\"timestamp\": \"2026-11-12 10:00:00.000000+0000\"}]\n".utf8)
        let json = try Self.parse(long, .logJSON, chunk: 1 << 20)
        #expect(json.0.skipped["too-long"] == 1)
        #expect(json.0.linesRead == RecordParser.maxLineBytes + 2)
    }
}
