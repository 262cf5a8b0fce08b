import Foundation
import GRDB
import Testing
@testable import LocAuditIngest
@testable import LocAuditModel
@testable import LocAuditNormalise
@testable import LocAuditUnitTests

/// WrapperTests' checks that start a program (split from WrapperTests.swift, whose other checks run in the test process).
@Suite(.tags(.endToEnd), .ownThreads) struct WrapperEndToEndTests {
    @Test("watch reads a tool's log as ingest does, and its live source records the tool", arguments: ["qa-ipad-2021-03-02-appium-syslog.log", "flutter-run-v-2019-05-07.log"])
    func watchReadsWrapped(_ name: String) throws {
        let c = try #require(WrapperTests.cases.first { $0.file == name })
        let ws = try Workspace()
        let db = ws.dir.appendingPathComponent("watch.sqlite").path
        let result = try run(locauditExecutable, ["watch", "--db", db], stdin: Array(try Data(contentsOf: URL(fileURLWithPath: WrapperTests.fixture(name)))))
        #expect(result.status == 0, "\(result.stderr)")
        let row = try #require(try DatabaseQueue(path: db).read { try Row.fetchOne($0, sql: "SELECT container, wrapper, lines_read, events, skipped FROM sources") })
        #expect(row["container"] as String == c.container)
        #expect(row["wrapper"] as String? == c.wrapper)
        #expect(row["lines_read"] as Int == c.lines)
        #expect(row["events"] as Int == c.eventLines.count)
        let skipped = try JSONDecoder().decode([String: Int].self, from: Data((row["skipped"] as String).utf8))
        #expect(skipped == c.skipped)
    }

    @Test("every sample and real fixture: each line read or counted as skipped", arguments: try WrapperTests.sampleFiles())
    func everyFileCountsEveryLine(_ path: String) throws {
        let bytes = try BlankLineEndToEndTests.content(path)
        guard let container = Container.detect(bytes), container.isLog, container != .sysdiagnose else { return }
        let (parser, _) = try WrapperTests.parse(bytes)
        if !bytes.contains(0) {
            WrapperTests.expectEveryLineCounted(parser.counts, lines: WrapperTests.lineCount(bytes), path)
        } else {
            #expect(parser.counts.linesInRecords + parser.counts.linesSkipped == parser.counts.linesRead, "\(path)")
        }
    }
}
