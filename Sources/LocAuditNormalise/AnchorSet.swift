import Foundation
import LocAuditRead

/// The catalog's anchors (fixed byte strings), found in one pass over a message.
///
/// Most lines of an export contain no anchor, and each is tested on every text line. An
/// anchor of `Long.minimum` bytes or more is found by sampling (`Long`): the four bytes at
/// every `stride`-th position are looked up in a bit table of the four bytes each long
/// anchor has at its first `stride` offsets, and only on a hit are the anchors that have
/// them there compared in full; an occurrence of a long anchor always holds a sampled
/// position within those offsets, so none is missed (the built-in catalog's anchors are 15
/// bytes and more: a 150-byte message is 13 lookups). Shorter anchors are found as before:
/// sixteen positions at a time are tested against their distinct first two bytes (SIMD
/// compares), and only where a pair matches are the anchors of that pair (two table
/// lookups, a bit mask per byte) compared in full. It finds an anchor exactly when
/// `memmem` finds one (the fuzz target `message-fields` holds it to that on any bytes).
package struct AnchorSet: Sendable {
    /// The anchors as given (duplicates and all).
    package let anchors: [[UInt8]]
    /// The distinct anchors of `Long.minimum` bytes or more, found by sampling.
    private let long: Long?
    /// The distinct shorter anchors of two bytes or more, at most 64: the ones the tables hold.
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
        var long: [[UInt8]] = []
        var tabled: [[UInt8]] = []
        var rest: [[UInt8]] = []
        for anchor in anchors where !long.contains(anchor) && !tabled.contains(anchor) && !rest.contains(anchor) {
            // An empty anchor matches nothing (as with memmem).
            if anchor.isEmpty { continue }
            if anchor.count >= Long.minimum {
                long.append(anchor)
            } else if anchor.count >= 2, tabled.count < 64 {
                tabled.append(anchor)
            } else {
                rest.append(anchor)
            }
        }
        self.long = long.isEmpty ? nil : Long(long)
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
        if let long, long.found(in: base, n) { return true }
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

    /// The long anchors' sampling tables.
    ///
    /// With `m` the shortest long anchor's length and `stride = m - 3`, an occurrence
    /// `[s, s + L)` (`L >= m`) holds the sampled position `i`, the first multiple of
    /// `stride` at or after `s`: `i - s < stride`, and `i + 4 <= s + m <= s + L`. So each
    /// anchor's four bytes at offsets `0..<stride` are all the table needs, and a text is
    /// read four bytes every `stride`.
    struct Long: Sendable {
        /// The shortest length an anchor is sampled at: a stride of 5 bytes and more.
        static let minimum = 8
        let anchors: [[UInt8]]
        let stride: Int
        /// Bit `hash(w)` set for each four bytes `w` some anchor has at an offset below `stride`.
        let bits: [UInt64]
        /// (four bytes, anchor, offset), sorted by the four bytes.
        let entries: [(word: UInt32, anchor: Int, offset: Int)]

        init(_ anchors: [[UInt8]]) {
            self.anchors = anchors
            let stride = anchors.map(\.count).min()! - 3
            self.stride = stride
            var bits = [UInt64](repeating: 0, count: 1 << (Long.hashBits - 6))
            var entries: [(word: UInt32, anchor: Int, offset: Int)] = []
            for (j, anchor) in anchors.enumerated() {
                for k in 0..<stride {
                    let word = UInt32(anchor[k]) | UInt32(anchor[k + 1]) << 8 | UInt32(anchor[k + 2]) << 16 | UInt32(anchor[k + 3]) << 24
                    let h = Long.hash(word)
                    bits[h >> 6] |= 1 << UInt64(h & 63)
                    entries.append((word, j, k))
                }
            }
            self.bits = bits
            self.entries = entries.sorted { ($0.word, $0.anchor, $0.offset) < ($1.word, $1.anchor, $1.offset) }
        }

        static let hashBits = 16

        @inline(__always)
        static func hash(_ word: UInt32) -> Int { Int(truncatingIfNeeded: (word &* 0x9E37_79B1) >> UInt32(32 - hashBits)) }

        /// Whether a long anchor occurs in the `n` bytes at `base`.
        func found(in base: UnsafePointer<UInt8>, _ n: Int) -> Bool {
            guard n >= stride + 3 else { return false }
            return bits.withUnsafeBufferPointer { bits in
                var i = 0
                while i + 4 <= n {
                    let word = UInt32(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt32.self))
                    let h = Long.hash(word)
                    if bits[h >> 6] & (1 << UInt64(h & 63)) != 0, verify(word, at: i, base, n) { return true }
                    i += stride
                }
                return false
            }
        }

        /// Whether an anchor with `word` at one of its sampled offsets occurs around `i`.
        private func verify(_ word: UInt32, at i: Int, _ base: UnsafePointer<UInt8>, _ n: Int) -> Bool {
            // The first entry of `word` (binary search), then each entry of it.
            var low = 0
            var high = entries.count
            while low < high {
                let mid = (low + high) / 2
                if entries[mid].word < word { low = mid + 1 } else { high = mid }
            }
            while low < entries.count, entries[low].word == word {
                let (_, j, k) = entries[low]
                low += 1
                let start = i - k
                let anchor = anchors[j]
                guard start >= 0, anchor.count <= n - start else { continue }
                if anchor.withUnsafeBufferPointer({ memcmp(base + start, $0.baseAddress!, $0.count) }) == 0 { return true }
            }
            return false
        }
    }
}
