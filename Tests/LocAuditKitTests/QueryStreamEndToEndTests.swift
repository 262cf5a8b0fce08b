import Foundation
import GRDB
import Testing
@testable import LocAuditStore
@testable import LocAuditUnitTests

/// QueryStreamTests' checks that run the built `locaudit` (split from QueryStreamTests.swift, whose other checks run in the test process).
@Suite(.tags(.endToEnd), .ownThreads) struct QueryStreamEndToEndTests {
    /// Runs locaudit with `arguments`, reads its output until `lines` lines came (at most
    /// 10 s: a command that held every row first would print none), closes it as `head` does,
    /// and waits up to 10 s for the command to end (then kills it).
    static func head(_ arguments: [String], lines: Int, environment: [String: String] = [:]) throws
        -> (text: String, stillRunning: Bool, exitedZero: Bool) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: locauditExecutable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let fd = out.fileHandleForReading.fileDescriptor
        var got: [UInt8] = []
        let until = Date().addingTimeInterval(10)
        while got.filter({ $0 == 0x0a }).count < lines, Date() < until {
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 200) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let n = read(fd, &buffer, buffer.count)
            if n <= 0 { break }
            got += buffer[..<n]
        }
        try out.fileHandleForReading.close()
        // The reader is gone: the query stops.
        let exitBy = Date().addingTimeInterval(10)
        while process.isRunning, Date() < exitBy { usleep(50_000) }
        let stillRunning = process.isRunning
        if stillRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return (String(decoding: got, as: UTF8.self), stillRunning, process.terminationReason == .exit && process.terminationStatus == 0)
    }

    @Test("query | head: the first rows come at once, and the query ends when the reader goes (an endless statement)",
          arguments: ["csv", "json", "jsonl", "tsv", "table"])
    func headEndsTheQuery(format: String) throws {
        let ws = try Workspace()
        let (text, stillRunning, exitedZero) = try QueryStreamEndToEndTests.head(["query", "--db", ws.store.path, "--format", format, "--sql", QueryStreamTests.endless], lines: 10)
        let first = ["csv": "x\r\n1\r\n2\r\n", "json": "[\n  {\n    \"x\" : 1\n  },\n  {\n    \"x\" : 2\n  }", "table": "x\n----\n1\n2\n",
                     "jsonl": "{\"x\":1}\n{\"x\":2}\n", "tsv": "x\n1\n2\n"][format]!
        #expect(text.hasPrefix(first), "\(format): \(text.prefix(200))")
        #expect(!stillRunning, "\(format): the query went on after its reader had gone")
        #expect(exitedZero, "\(format)")
    }

    @Test("--timeout stops a statement that runs too long: exit 1, a sentence naming --timeout; a short query is untouched")
    func timeout() throws {
        let ws = try Workspace()
        let started = Date()
        let result = try run(locauditExecutable, ["query", "--db", ws.store.path, "--timeout", "1", "--sql",
                                                  "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("ran longer than --timeout 1 s"), "\(result.stderr)")
        #expect(Date().timeIntervalSince(started) < 30)
        let quick = try run(locauditExecutable, ["query", "--db", ws.store.path, "--timeout", "30", "--format", "csv", "--sql", "SELECT 41 + 1 AS a"])
        #expect(quick.status == 0 && quick.stdout == "a\r\n42\r\n", "\(quick.stderr)")
        // A table stopped before its first 1000 rows prints the rows it held, with no count.
        let few = try run(locauditExecutable, ["query", "--db", ws.store.path, "--timeout", "1", "--sql",
                                               "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c WHERE x <= 2"])
        #expect(few.status == 1 && few.stdout == "x\n-\n1\n2\n", "\(few.stdout) \(few.stderr)")
        let bad = try run(locauditExecutable, ["query", "--db", ws.store.path, "--timeout", "0", "--sql", "SELECT 1"])
        #expect(bad.status == 2 && bad.stderr.contains("--timeout takes a number of seconds above 0"), "\(bad.stderr)")
    }

    @Test("a million rows of csv cost the memory of a few: the peak stays under 150 MB (holding them all took 1.2 GB)",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time"), "needs /usr/bin/time"))
    func boundedMemory() throws {
        let ws = try Workspace()
        let sql = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000) SELECT x, printf('%.200c', 'a') AS pad FROM c"
        let result = try run("/usr/bin/time", ["-f", "peak %M", locauditExecutable, "query", "--db", ws.store.path, "--format", "csv", "--sql", sql],
                             stdout: FileHandle.nullDevice)
        #expect(result.status == 0, "\(result.stderr)")
        let peak = try #require(result.stderr.split(separator: "\n").last { $0.hasPrefix("peak ") }.flatMap { Int($0.dropFirst(5)) }, "\(result.stderr)")
        #expect(peak < 150_000, "peak \(peak) KB")
    }
}
