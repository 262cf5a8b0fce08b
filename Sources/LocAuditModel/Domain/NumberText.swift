import Foundation

/// `10`, `12.5`: one decimal, none when whole. A number too large for that (or not finite:
/// a flag, a store written before non-finite numbers became NULL) as Swift writes it,
/// `1e+300`, `inf`: never a trap.
package func oneDecimal(_ value: Double) -> String {
    guard abs(value) < 1e15 else { return String(value) }
    return value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
}
