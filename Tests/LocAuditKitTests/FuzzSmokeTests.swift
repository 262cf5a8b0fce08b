import Foundation
import Testing
@testable import LocAuditUnitTests

extension Tag {
    /// Builds and runs the libFuzzer targets (scripts/fuzz.sh): about a minute.
    @Tag static var fuzz: Self
}

/// CI runs only `swift test`: this keeps the fuzz targets building and the parsers
/// surviving a few seconds of fuzzing each. Longer runs: `scripts/fuzz.sh 600`.
@Suite(.tags(.endToEnd), .ownThread) struct FuzzSmokeTests {
    static let script = packageRoot.appendingPathComponent("scripts/fuzz.sh").path

    /// Whether this toolchain has the libFuzzer and AddressSanitizer runtimes.
    static let runtimes: Bool = (try? run("/bin/bash", [script, "--check"]).status) == 0

    @Test("every fuzz target builds and runs 2 seconds without a crash", .tags(.fuzz),
          .enabled(if: runtimes, "skipped: this Swift toolchain has no libFuzzer/AddressSanitizer runtime (scripts/fuzz.sh --check says why)"))
    func fuzzSmoke() throws {
        let result = try run("/bin/bash", [FuzzSmokeTests.script, "2"])
        #expect(result.status == 0, "scripts/fuzz.sh 2 failed:\n\(result.stdout)\n\(result.stderr.suffix(3000))")
        let rows = result.stdout.split(separator: "\n").filter { !$0.hasPrefix("target") && !$0.hasPrefix("total") }
        let targets = ["idevicesyslog", "log-show", "log-syslog", "log-ndjson", "log-json", "privacy-report", "console", "pymobiledevice3",
                       "pymobiledevice3-json", "bsd-syslog", "mobile-installation", "message-only", "sysdiagnose", "log-compact", "xcode-console",
                       "message-fields", "timestamps", "vis", "json-unescape", "info-plist", "ideviceinfo", "detect", "detect-parse", "gzip",
                       "message-template"]
        #expect(rows.compactMap { $0.split(separator: " ").first.map(String.init) } == targets)
        // Each target ran: its seeds at least.
        for row in rows {
            let runs = row.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) } ?? 0
            #expect(runs > 0, "\(row)")
        }
        #expect(result.stdout.contains("\(targets.count) targets, 2 s each, 0 crashed"))
    }
}
