import Foundation
import GRDB
import Testing
@testable import LocAuditUnitTests

/// `prune` while `watch --follow` writes into a source older than the cutoff.
@Suite(.tags(.endToEnd), .ownThreads) struct WatchPruneTests {
    @Test("prune during watch --follow keeps the live source; the watch's finding stands and its verdict agrees with what it printed")
    func pruneKeepsTheLiveSource() throws {
        let ws = try Workspace()
        let lines = try WatchTests.sampleLines("allow-once-persisting") // November 20: older than --older-than 2d
        let info = WatchTests.samples.appendingPathComponent("audit/allow-once-persisting.ideviceinfo.txt").path
        let db = ws.dir.appendingPathComponent("live.sqlite").path
        let log = ws.dir.appendingPathComponent("device.log")
        try ws.write("device.log", lines[..<8].joined())
        let watch = try WatchTests.LiveWatch(["--db", db, "--device-info", info, "--follow", log.path], directory: ws.dir)
        func events() -> Int { (try? WatchTests.count(db, "SELECT count(*) FROM events")) ?? 0 }
        #expect(watch.wait(upTo: 20) { events() > 0 }, "\(watch.errors)")
        let source = "SELECT count(*) FROM sources WHERE content_sha256 LIKE 'live:%'"
        #expect(try WatchTests.count(db, source) == 1)

        let prune = try run(locauditExecutable, ["prune", "--older-than", "2d", "--db", db])
        #expect(prune.status == 0, "\(prune.stderr)")
        #expect(prune.stdout.contains("kept 1 live sources a running locaudit watch still writes into"), "\(prune.stdout)")
        #expect(try WatchTests.count(db, source) == 1, "the live source stays while its watch holds it")

        let more = try FileHandle(forWritingTo: log)
        try more.seekToEnd()
        more.write(Data(lines[8...].joined().utf8))
        try more.close()
        #expect(watch.wait(upTo: 20) { watch.output.contains("allow-once-persisting [live]") }, "\(watch.output)\(watch.errors)")
        #expect(try WatchTests.count(db, "SELECT count(*) FROM events WHERE source_id NOT IN (SELECT id FROM sources)") == 0,
                "no event stands under a source that is gone")
        watch.process.interrupt()
        let status = watch.exit()
        #expect(status == 1, "the high finding it printed fails the watch: \(watch.output)\(watch.errors)")
        #expect(!watch.output.contains("PASS"), "\(watch.output)")

        // Once the watch has ended, its source is old data like any other.
        let after = try run(locauditExecutable, ["prune", "--older-than", "2d", "--db", db])
        #expect(after.status == 0 && !after.stdout.contains("live sources"), "\(after.stdout)")
        #expect(try WatchTests.count(db, source) == 0)
    }
}
