import Foundation
import Testing
@testable import LocAuditNormalise
@testable import LocAuditUnitTests

/// BlankLineTests' checks that start a program (split from BlankLineTests.swift, whose other checks run in the test process).
@Suite(.tags(.endToEnd), .ownThreads) struct BlankLineEndToEndTests {
    /// A sample's content, gzip inflated with the real gzip.
    static func content(_ path: String) throws -> [UInt8] {
        let url = packageRoot.appendingPathComponent(path)
        guard path.hasSuffix(".gz") else { return Array(try Data(contentsOf: url)) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "gzip -dc \"$0\"", url.path]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Array(data)
    }

    @Test("empty lines read in runs count as they did one by one: lines, skips, notes, events and their lines", arguments: BlankLineTests.samples)
    func runsAsLines(sample: String) throws {
        let bytes = try Self.content(sample)
        let container = try #require(Container.detect(bytes), "\(sample)")
        // After line i, i % 5 empty lines: as "\n" (read in runs) and as "\r\n" (each a line
        // of its own, empty once its CR is dropped: the path every empty line took before).
        var runs: [UInt8] = [], single: [UInt8] = []
        for (i, line) in bytes.split(separator: 0x0a, omittingEmptySubsequences: false).enumerated() {
            if i > 0 { runs.append(0x0a); single.append(0x0a) }
            runs += line
            single += line
            for _ in 0..<(i % 5) {
                runs.append(0x0a)
                single += [0x0d, 0x0a]
            }
        }
        let expected = try BlankLineTests.parse(single, container, chunk: 1 << 20)
        #expect(expected.0.linesRead > bytes.filter { $0 == 0x0a }.count, "\(sample): the empty lines were lines")
        for chunk in [1 << 20, 4096, 7] {
            let got = try BlankLineTests.parse(runs, container, chunk: chunk)
            #expect(got.0 == expected.0, "\(sample) (\(container), chunks of \(chunk))")
            #expect(got.1 == expected.1, "\(sample) (\(container), chunks of \(chunk))")
        }
    }
}
