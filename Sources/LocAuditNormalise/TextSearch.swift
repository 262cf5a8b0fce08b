import Foundation
import LocAuditRead

/// Whether a text contains another, as Foundation's `contains` answers, without its cost
/// where the answer is the same.
///
/// Foundation's `StringProtocol.contains(_:)` searches by canonical equivalence through
/// `CFStringFindWithOptionsAndLocale` (about 9,000 instructions a call on a message of
/// 300 bytes: 0.9% of the ingest's instructions, from the anchors of plain-text patterns
/// and the service and app-state spellings). On ASCII without a carriage return, equivalence
/// is equality of bytes (no combining mark, no decomposition, no cluster of two scalars), so
/// `memmem` gives the same answer; anything else still goes to Foundation.
enum TextSearch {
    static func contains(_ text: String, _ needle: String) -> Bool {
        var text = text
        var needle = needle
        let found = text.withUTF8 { t -> Bool? in
            needle.withUTF8 { n -> Bool? in
                guard n.count > 0, plain(t), plain(n) else { return nil }
                guard t.count >= n.count else { return false }
                return memmem(t.baseAddress, t.count, n.baseAddress, n.count) != nil
            }
        }
        return found ?? text.contains(needle)
    }

    /// Whether every byte is ASCII and none is a carriage return (CR LF is one cluster).
    static func plain(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let p = b.baseAddress else { return true }
        let n = b.count
        var i = 0
        let high: UInt64 = 0x8080_8080_8080_8080
        let ones: UInt64 = 0x0101_0101_0101_0101
        let cr: UInt64 = 0x0d0d_0d0d_0d0d_0d0d
        while n - i >= 8 {
            let w = UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)
            // A byte of w ^ cr is zero where w has a CR (the classic zero-byte test).
            let x = w ^ cr
            if (w & high) != 0 || ((x &- ones) & ~x & high) != 0 { return false }
            i += 8
        }
        while i < n {
            if p[i] >= 0x80 || p[i] == 0x0d { return false }
            i += 1
        }
        return true
    }
}
