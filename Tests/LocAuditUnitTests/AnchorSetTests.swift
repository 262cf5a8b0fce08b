import Foundation
import Testing
@testable import LocAuditNormalise

/// The candidate filter's one-pass anchor search (issue 13) must find an anchor exactly
/// where searching for each anchor on its own does: never stricter (an event lost), never
/// looser.
@Suite struct AnchorSetTests {
    /// Whether `text` contains `anchor`, the slow and obvious way.
    static func naive(_ anchors: [[UInt8]], _ text: [UInt8]) -> Bool {
        anchors.contains { a in
            !a.isEmpty && a.count <= text.count && (0...(text.count - a.count)).contains { text[$0..<($0 + a.count)].elementsEqual(a) }
        }
    }

    static func found(_ anchors: [[UInt8]], _ text: [UInt8]) -> Bool {
        text.withUnsafeBufferPointer { AnchorSet(anchors).containsAny($0) }
    }

    @Test("an anchor is found at the start, the end, inside, and not when cut short or absent")
    func edges() {
        let anchors = [Array("Bootstrapping app".utf8), Array("uccessful for (".utf8)]
        let texts = ["Bootstrapping app<x>", "x Bootstrapping app", "Bootstrapping ap", "install successful for (",
                     "install successful for", "", "B", "Bo", "BoBootstrapping app", "uuccessful for (("]
        for text in texts.map({ Array($0.utf8) }) {
            #expect(Self.found(anchors, text) == Self.naive(anchors, text), "\(String(decoding: text, as: UTF8.self))")
        }
        #expect(Self.found(anchors, Array("BoBootstrapping app".utf8)))
        #expect(!Self.found(anchors, Array("Bootstrapping ap".utf8)))
    }

    @Test("one-byte, empty, duplicate and overlapping anchors, and more than 64 of them, agree with the search one by one")
    func oddSets() {
        var many = (0..<70).map { Array("anchor-\($0);".utf8) }
        many.append(Array("~".utf8))
        let sets: [[[UInt8]]] = [
            [Array("x".utf8)], [[]], [[], Array("ab".utf8)], [Array("ab".utf8), Array("ab".utf8), Array("abc".utf8)],
            [Array("aab".utf8), Array("ab".utf8)], many,
        ]
        let texts = ["", "x", "yyx", "ab", "aab", "zab", "abc", "a", "anchor-69;", "anchor-63;", "anchor-0", "pre anchor-64; post",
                     "~", "no anchor here", "aaab", "ba"]
        for anchors in sets {
            for text in texts.map({ Array($0.utf8) }) {
                #expect(Self.found(anchors, text) == Self.naive(anchors, text), "\(anchors.count) anchors, \(String(decoding: text, as: UTF8.self))")
            }
        }
        #expect(Self.found(many, Array("pre anchor-69; post".utf8)), "an anchor past the 64 the tables hold")
        #expect(Self.found(many, Array("~".utf8)), "a one-byte anchor")
        #expect(!Self.found([[]], Array("abc".utf8)), "an empty anchor matches nothing")
    }

    @Test("on every line of the real exports, the built-in catalog's anchors are found where the search one by one finds them")
    func realLines() throws {
        let anchors = Catalog.builtin.anchors.anchors
        let dir = realFixtures
        var lines = 0
        var hits = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() where !name.hasSuffix(".md") {
            let data = try Data(contentsOf: dir.appendingPathComponent(name))
            for line in data.split(separator: 0x0a) {
                let bytes = Array(line)
                let expected = Self.naive(anchors, bytes)
                #expect(Self.found(anchors, bytes) == expected, "\(name): \(String(decoding: bytes, as: UTF8.self))")
                lines += 1
                if expected { hits += 1 }
            }
        }
        #expect(lines > 1000)
        #expect(hits > 0, "the real exports hold lines with an anchor")
    }

    @Test("property: long anchors found by sampling (8 bytes and more, with shorter ones beside) agree with the search one by one", arguments: [1, 2, 3, 4, 5, 6])
    func sampledAnchors(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        // A three-letter alphabet, so that anchors overlap, repeat and occur often.
        func word(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(ascii: "a") + UInt8.random(in: 0...2, using: &random) } }
        for _ in 0..<200 {
            var anchors = (0..<Int.random(in: 1...5, using: &random)).map { _ in word(Int.random(in: 8...20, using: &random)) }
            if Bool.random(using: &random) { anchors.append(word(Int.random(in: 1...7, using: &random))) }
            for _ in 0..<20 {
                var text = word(Int.random(in: 0...60, using: &random))
                // Half the texts hold an anchor at a random place, some of them cut short by one byte.
                if Bool.random(using: &random), let anchor = anchors.randomElement(using: &random) {
                    let piece = Bool.random(using: &random) ? anchor : Array(anchor.dropLast())
                    text.insert(contentsOf: piece, at: Int.random(in: 0...text.count, using: &random))
                }
                #expect(Self.found(anchors, text) == Self.naive(anchors, text),
                        "\(anchors.map { String(decoding: $0, as: UTF8.self) }) in \(String(decoding: text, as: UTF8.self))")
            }
        }
    }

    @Test("a long anchor is found at every place in a text, up to its last byte, and not one byte short")
    func sampledAtEveryOffset() {
        for length in [8, 9, 12, 15, 19] {
            let anchor = Array("Bootstrapping app now".utf8.prefix(length))
            for before in 0..<30 {
                for after in 0..<3 {
                    let text = [UInt8](repeating: UInt8(ascii: "."), count: before) + anchor + [UInt8](repeating: UInt8(ascii: "."), count: after)
                    #expect(Self.found([anchor], text), "length \(length), at \(before), \(after) after")
                    var cut = text
                    cut.remove(at: before + length - 1)
                    #expect(!Self.found([anchor], cut), "length \(length), at \(before), its last byte removed")
                }
            }
        }
    }
}
