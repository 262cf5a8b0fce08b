import Foundation
import Testing
@testable import LocAuditUnitTests

/// UnrecognisedContentTests' checks that start a program (split from UnrecognisedContentTests.swift, whose other checks run in the test process).
@Suite(.tags(.endToEnd), .ownThreads) struct UnrecognisedContentEndToEndTests {
    @Test("the binary: the error names the file and exits 1; --format, the flag's old name, still reads as --container with a warning")
    func forcedWrongFormatBinary() throws {
        let ws = try Workspace()
        let path = try ws.write("a.log", UnrecognisedContentTests.log)
        for flag in ["--container", "--format"] {
            let result = try run(locauditExecutable, ["ingest", "--db", ws.store.path, flag, "log-ndjson", path])
            #expect(result.status == 1)
            #expect(result.stdout.contains("FAILED  \(path): no line is a log-ndjson record"), "\(result.stdout)")
            #expect(result.stderr.contains("--format NAME is now --container NAME") == (flag == "--format"), "\(result.stderr)")
            #expect(try ws.count("SELECT count(*) FROM sources") == 0)
        }
        let both = try run(locauditExecutable, ["ingest", "--db", ws.store.path, "--container", "log-ndjson", "--format", "log-ndjson", path])
        #expect(both.status == 2 && both.stderr.contains("give --container alone"), "\(both.stderr)")
    }
}
