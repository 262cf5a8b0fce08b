import Foundation
import Testing
@testable import LocAuditAudit
@testable import LocAuditModel
@testable import LocAuditRules

/// Metres and SVG coordinates are written by one function, which writes any finite number.
@Suite struct NumberTextTests {
    @Test("audit --reduced-accuracy-floor 1e300 names the floor in its finding instead of trapping")
    func hugeFloorIsWritten() throws {
        let rule = try #require(RuleRegistry.descriptions.first { $0.identifier == "precise-delivery-under-reduced-accuracy" })
        let example = try #require(rule.triggeringExamples.first)
        let ws = try AuditWorkspace()
        try ws.ingest(example.log, os: example.os, plist: example.plist)
        // The binary: a trap ends the process, not the test run.
        let result = try run(locauditExecutable, ["audit", "--db", ws.dbPath, "--reduced-accuracy-floor", "1e300"])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stdout.contains("(floor 1e+300 m)"), "\(result.stdout)")
    }

    @Test("one decimal, none when whole; a number too large for an Int as Swift writes it")
    func oneDecimalWritesEveryNumber() {
        #expect(oneDecimal(10) == "10")
        #expect(oneDecimal(12.5) == "12.5")
        #expect(oneDecimal(-3.25) == String(format: "%.1f", -3.25))
        #expect(oneDecimal(1e300) == String(1e300))
        #expect(oneDecimal(.infinity) == String(Double.infinity))
        #expect(metres(1e300) == "\(String(1e300)) m")
        #expect(metres(5) == "5 m")
    }
}
