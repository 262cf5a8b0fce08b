import Foundation
import Testing
@testable import LocAuditNormalise

/// The ingest's parse works on bytes where it can (issue 13); these hold the faster paths to
/// what the slower ones gave.
@Suite struct ParseOnBytesTests {
    static let texts = ["", "locationd", "{\"msg\":\"#CLLocationManager invoking #delegate\"}", "Zürich 📍 é", String(repeating: "ab", count: 300),
                        String(Substring("xx-substring-xx").dropFirst(3).dropLast(3)), NSString(string: "bridged").description]

    @Test("a string's hash over its contiguous UTF-8 is the hash of its bytes")
    func stringHash() {
        for text in Self.texts {
            #expect(fnv1a(utf8Of: text) == fnv1a(Array(text.utf8)), "\(text)")
            #expect(fnv1a(utf8Of: text, seed: 42) == fnv1a(Array(text.utf8), seed: 42), "\(text)")
        }
    }

    @Test("an event's columns read back as set, overwritten, removed and set again")
    func eventColumns() {
        var event = Event(kind: .location, pattern: "p")
        for column in EventColumn.allCases { #expect(event[column] == nil) }
        event[.latitude] = .real(48.8)
        event[.bundleId] = .text("com.example.app")
        event[.latitude] = .real(2.3)
        #expect(event[.latitude] == .real(2.3))
        #expect(event.columns.map(\.0) == [.latitude, .bundleId])
        event[.latitude] = nil
        #expect(event[.latitude] == nil)
        #expect(event.columns.map(\.0) == [.bundleId])
        event[.latitude] = .real(1)
        #expect(event.columns.map(\.0) == [.bundleId, .latitude])
        event[.longitude] = .real(.infinity)
        #expect(event[.longitude] == nil)
        #expect(Set(EventColumn.allCases.map(\.bit)).count == EventColumn.allCases.count, "every column its own bit")
    }

    @Test("a short decimal reads as Double(String) reads it, to the bit")
    func shortDecimals() throws {
        var texts = ["0.0", "-0.0", "-0.5", "48.858783", "2.2945", "816822002.24", "0.1", "0.30000000000000004",
                     "99999999999999.9", "9.99999999999999", "-1.00000000000001", "123456789012345", "1.", "1.5e3", "-.5", "00.10"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5000 {
            let whole = String(UInt64.random(in: 0...999_999_999, using: &generator))
            let fraction = String(UInt64.random(in: 0...999_999_999_999, using: &generator)).prefix(Int.random(in: 1...12, using: &generator))
            texts.append((Bool.random(using: &generator) ? "-" : "") + whole + "." + fraction)
        }
        for text in texts {
            let fields = try #require(MessageFields.parse("{\"a\":\(text)}"), "\(text)")
            guard case .number(let read)? = fields["a"] else { Issue.record("\(text) not a number"); continue }
            let expected = try #require(Double(text), "\(text)")
            #expect(read.bitPattern == expected.bitPattern, "\(text): \(read) for \(expected)")
        }
    }

    @Test("a text search answers as Foundation's contains, ASCII or not")
    func textSearch() {
        let texts = ["", "significant location change", "startMonitoringSignificantLocationChanges", "a\r\nb", "e\u{301}", "é",
                     "regione\u{301}", "region", "x-y", "Zürich-visit", "visit\u{301}", "\0visit", "heading\r"]
        let needles = ["significant", "visit", "region", "-", "e", "é", "b", "\n", "heading", "x"]
        for text in texts {
            for needle in needles {
                #expect(TextSearch.contains(text, needle) == text.contains(needle), "\(text.debugDescription) \(needle.debugDescription)")
            }
        }
    }

    @Test("keys read in lower case are what String.lowercased() makes of them, ASCII or not")
    func foldedKeys() throws {
        let keys = ["bundleID", "ClientKey", "plain", "ÉTAT", "Straße", "MiXeD_9-Key"]
        let message = "{" + keys.enumerated().map { "\"\($1)\":\($0)" }.joined(separator: ", ") + "}"
        let fields = try #require(MessageFields.parse(bytes: Array(message.utf8), foldCase: true))
        #expect(Set(fields.keys) == Set(keys.map { $0.lowercased() }))
        for (n, key) in keys.enumerated() { #expect(fields[key.lowercased()] == .number(Double(n))) }
    }
}
