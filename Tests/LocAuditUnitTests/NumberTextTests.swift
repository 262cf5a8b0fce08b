import Foundation
import Testing
@testable import LocAuditAudit
@testable import LocAuditModel
@testable import LocAuditRules

/// Metres and SVG coordinates are written by one function, which writes any finite number.
@Suite struct NumberTextTests {
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
