import Foundation
import Testing
@testable import LocAuditUnitTests

/// ConsoleSessionTests' checks that start a program (split from ConsoleSessionTests.swift, whose other checks run in the test process).
@Suite(.tags(.endToEnd), .ownThreads) struct ConsoleSessionEndToEndTests {
    @Test("console: an Info.plist's executable links the app lines, also when it comes after the log")
    func consoleExecutableLink() throws {
        let ws = try Workspace()
        let log = try ws.write("qa-2026-11-20.log", "default\t10:00:00.000000+0000\tWeatherNow\t\(Messages.delivery())\n")
        _ = try ws.ingest([log])
        #expect(try ws.count("SELECT count(*) FROM events WHERE bundle_id IS NULL") == 1)
        let unlinked = try run(locauditExecutable, ["query", "--db", ws.store.path, "--format", "csv", "unlinked-app-lines"],
                               environment: ["LOCAUDIT_QUERIES": packageRoot.appendingPathComponent("queries").path])
        #expect(unlinked.stdout.contains("unknown,WeatherNow,0,1,"), "the saved query lists it: \(unlinked.stdout)\(unlinked.stderr)")
        _ = try ws.ingest([packageRoot.appendingPathComponent("samples/apps/com.example.weather.plist").path])
        let row = try #require(try ws.rows("SELECT bundle_id, bundle_via FROM events").first)
        #expect(row["bundle_id"] as String? == "com.example.weather")
        #expect(row["bundle_via"] as String? == "executable")
        // The Info.plist first: the line is linked as it is written.
        let first = try Workspace()
        _ = try first.ingest([packageRoot.appendingPathComponent("samples/apps/com.example.weather.plist").path])
        _ = try first.ingest([try first.write("qa-2026-11-20.log", "default\t10:00:00.000000+0000\tWeatherNow\t\(Messages.delivery())\n")])
        #expect(try first.rows("SELECT bundle_id, bundle_via FROM events").map { "\($0["bundle_id"] as String? ?? "-") \($0["bundle_via"] as String? ?? "-")" }
                == ["com.example.weather executable"])
    }
}
