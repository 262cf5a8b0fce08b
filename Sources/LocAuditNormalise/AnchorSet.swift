import Foundation
import LocAuditRead

/// The catalog's anchors (fixed byte strings), found in one pass over a message.
///
/// Most lines of an export contain no anchor, and each is tested on every text line:
/// one `memchr`/`memcmp` search per anchor went over the message a dozen times and
/// compared at every common first letter. Here sixteen positions at a time are tested
/// against the anchors' distinct first two bytes (SIMD compares), and only where a pair
/// matches are the anchors of that pair (two table lookups, a bit mask per byte) compared
/// in full. It finds an anchor exactly when
/// `memmem` finds one (the fuzz target `message-fields` holds it to that on any bytes).
package struct AnchorSet: Sendable {
    /// The anchors as given (duplicates and all).
    package let anchors: [[UInt8]]
    /// The distinct anchors of two bytes or more, at most 64: the ones the tables hold.
    private let tabled: [[UInt8]]
    /// Byte -> bit j set when tabled anchor j starts with it / has it second.
    private let first: [UInt64]
    private let second: [UInt64]
    /// The others (one byte long, or beyond 64): searched one by one.
    private let rest: [[UInt8]]
    /// The distinct first two bytes of the tabled anchors, each byte in all 16 lanes.
    private let pairs: [(SIMD16<UInt8>, SIMD16<UInt8>)]

    package init(_ anchors: [[UInt8]]) {
        self.anchors = anchors
        var tabled: [[UInt8]] = []
        var rest: [[UInt8]] = []
        for anchor in anchors where !tabled.contains(anchor) && !rest.contains(anchor) {
            // An empty anchor matches nothing (as with memmem).
            if anchor.isEmpty { continue }
            if anchor.count >= 2, tabled.count < 64 { tabled.append(anchor) } else { rest.append(anchor) }
        }
        var first = [UInt64](repeating: 0, count: 256)
        var second = [UInt64](repeating: 0, count: 256)
        for (j, anchor) in tabled.enumerated() {
            first[Int(anchor[0])] |= 1 << UInt64(j)
            second[Int(anchor[1])] |= 1 << UInt64(j)
        }
        self.tabled = tabled
        self.first = first
        self.second = second
        self.rest = rest
        var pairs: [(UInt8, UInt8)] = []
        for anchor in tabled where !pairs.contains(where: { $0 == (anchor[0], anchor[1]) }) { pairs.append((anchor[0], anchor[1])) }
        self.pairs = pairs.map { (SIMD16(repeating: $0.0), SIMD16(repeating: $0.1)) }
    }

    /// Whether `text` contains any of the anchors.
    package func containsAny(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = text.baseAddress else { return false }
        let n = text.count
        if n >= 2, !tabled.isEmpty {
            let found = first.withUnsafeBufferPointer { first in
                second.withUnsafeBufferPointer { second in
                    /// Whether a tabled anchor starts at `i` (`i + 1 < n`).
                    func anchorAt(_ i: Int) -> Bool {
                        var m = first[Int(text[i])] & second[Int(text[i + 1])]
                        while m != 0 {
                            let j = m.trailingZeroBitCount
                            m &= m - 1
                            let anchor = tabled[j]
                            if anchor.count <= n - i,
                               anchor.withUnsafeBufferPointer({ memcmp(base + i, $0.baseAddress!, $0.count) }) == 0 {
                                return true
                            }
                        }
                        return false
                    }
                    // 16 positions at once: the bytes at i..<i+16 and those one further
                    // (both loads end at or before n), against every first two bytes.
                    var i = 0
                    while i + 17 <= n {
                        let v0 = UnsafeRawPointer(base + i).loadUnaligned(as: SIMD16<UInt8>.self)
                        let v1 = UnsafeRawPointer(base + i + 1).loadUnaligned(as: SIMD16<UInt8>.self)
                        var hit = SIMDMask<SIMD16<Int8>>(repeating: false)
                        for (a, b) in pairs { hit .|= (v0 .== a) .& (v1 .== b) }
                        if any(hit) {
                            for lane in 0..<16 where hit[lane] && anchorAt(i + lane) { return true }
                        }
                        i += 16
                    }
                    while i + 1 < n {
                        if anchorAt(i) { return true }
                        i += 1
                    }
                    return false
                }
            }
            if found { return true }
        }
        return rest.contains { anchor in
            anchor.withUnsafeBufferPointer { memmem(base, n, $0.baseAddress, $0.count) != nil }
        }
    }
}
