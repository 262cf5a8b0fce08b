import Foundation
import Testing
@testable import LocAuditModel
@testable import LocAuditNormalise
@testable import LocAuditRead
@testable import LocAuditUnitTests

/// CollectorContainerTests' checks that start a program (split from CollectorContainerTests.swift, whose other checks run in the test process).
@Suite(.tags(.endToEnd), .ownThreads) struct CollectorContainerEndToEndTests {
    @Test("console: the day comes from --date, else the file name, else its modification time; midnight moves to the next day")
    func consoleDates() throws {
        let expected = ["2026-11-20T22:59:58.100000Z", "2026-11-20T22:59:59.200000Z", "2026-11-20T23:00:01.300000Z"]
        // One store per case: the same lines in two files of one device are stored once.
        var ws = try Workspace()
        func times(_ source: Int64) throws -> [String] {
            try ws.rows("SELECT time FROM events WHERE source_id = ? ORDER BY line", [source]).map { $0["time"] as String }
        }
        // --date (the real binary's flag) wins over the name.
        let flagged = try run(locauditExecutable, ["ingest", "--db", ws.store.path, "--date", "2026-11-20",
                                                   try ws.write("runner-2025-01-01.log", CollectorContainerTests.consoleSession())])
        #expect(flagged.status == 0, "\(flagged.stdout)\(flagged.stderr)")
        #expect(try times(1) == expected)
        let refused = try run(locauditExecutable, ["ingest", "--db", ws.store.path, "--date", "2026-02-30", "x.log"])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("--date takes a day as YYYY-MM-DD"), "\(refused.stderr)")
        // The name's date is the first line's day.
        ws = try Workspace()
        let named = try #require(try ws.ingest([try ws.write("runner-2026-11-20.log", CollectorContainerTests.consoleSession(first: "23:59:57"))]).files.first)
        #expect(try times(try #require(named.sourceId)) == ["2026-11-20T22:59:57.100000Z"] + expected.dropFirst())
        // No name date: the file was written after its last line (00:00:01 on the 21st, +0100),
        // so the first line, later in the day than the file's time, is on the 20th.
        ws = try Workspace()
        let unnamed = try ws.write("runner.log", CollectorContainerTests.consoleSession(first: "23:59:56"))
        let mtime = Date(timeIntervalSince1970: TimeInterval(Timestamps.daysFromCivil(2026, 11, 20) * 86_400 + 23 * 3600 + 5 * 60))
        try FileManager.default.setAttributes([.modificationDate: mtime], ofItemAtPath: unnamed)
        let byTime = try #require(try ws.ingest([unnamed]).files.first)
        #expect(try times(try #require(byTime.sourceId)) == ["2026-11-20T22:59:56.100000Z"] + expected.dropFirst())
    }

    @Test("console: `locaudit run --date` gives the inbox's Console copies their day")
    func consoleDateInRun() throws {
        let ws = try Workspace()
        let inbox = ws.dir.appendingPathComponent("inbox")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        try Data(CollectorContainerTests.consoleSession().utf8).write(to: inbox.appendingPathComponent("runner.log"))
        let report = ws.dir.appendingPathComponent("run.txt").path
        let result = try run(locauditExecutable, ["run", "--db", ws.store.path, "--inbox", inbox.path, "--settle", "0",
                                                  "--date", "2026-11-20", "--report", "text:\(report)", "--quiet"])
        #expect([0, 3].contains(result.status), "\(result.stderr)")
        #expect(try ws.rows("SELECT time FROM events ORDER BY line").map { $0["time"] as String }
                == ["2026-11-20T22:59:58.100000Z", "2026-11-20T22:59:59.200000Z", "2026-11-20T23:00:01.300000Z"])
    }

    @Test("damaged lines of the new containers are counted, never a crash (mutated real-shaped lines, seeded)")
    func hostileBytes() throws {
        var random = SeededGenerator(seed: 0x9E37_79B9_7F4A_7C15)
        func next() -> Int { Int(truncatingIfNeeded: random.next() >> 1) }
        let alphabet = Array("0123456789:.+- \t[]{}<>()x\u{0}\u{FF}9".utf8)
        for variant in CollectorContainerTests.variants {
            let container = try #require(Container(rawValue: variant.container))
            let seed = Array(variant.text.utf8)
            for _ in 0..<400 {
                var bytes = seed
                for _ in 0..<(1 + next() % 6) {
                    guard !bytes.isEmpty else { break }
                    let at = next() % bytes.count
                    switch next() % 4 {
                    case 0: bytes[at] = alphabet[next() % alphabet.count]
                    case 1: bytes.removeSubrange(at..<min(bytes.count, at + 1 + next() % 12))
                    case 2: bytes.insert(alphabet[next() % alphabet.count], at: at)
                    default: bytes = Array(bytes.prefix(at))
                    }
                }
                let parser = RecordParser(container: container, catalog: Catalog.builtin,
                                          options: ParseOptions(zone: TimeZone(identifier: "Europe/Paris"), fileDate: Date(timeIntervalSince1970: 1_795_000_000)),
                                          sink: CollectorContainerTests.CheckingSink())
                let half = bytes.count / 2
                try parser.consume(Array(bytes[..<half]))
                try parser.consume(Array(bytes[half...]))
                try parser.finish(complete: true)
                let lines = bytes.split(omittingEmptySubsequences: false, whereSeparator: { $0 == 0x0a || $0 == 0 }).count
                #expect(parser.counts.linesRead <= lines)
            }
        }
        // An archive of random bytes after a real header: an error, never a crash.
        let ws = try Workspace()
        let archive = try SysdiagnoseTests.archive(ws)
        for n in [0, 100, 511, 512, 513, 1024, 1500, 4000] {
            var bytes = try run("/bin/sh", ["-c", "gzip -dc '\(archive)' | head -c 1024 | od -An -v -tu1"]).stdout
                .split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { UInt8($0) }
            bytes += (0..<n).map { _ in UInt8(truncatingIfNeeded: next()) }
            let parser = RecordParser(container: .sysdiagnose, catalog: Catalog.builtin, options: ParseOptions(), sink: CollectorContainerTests.CheckingSink())
            do {
                try parser.consume(bytes)
                try parser.finish(complete: true)
            } catch is ArchiveError {}
        }
    }
}
