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

    @Test("keys read in lower case are what String.lowercased() makes of them, ASCII or not")
    func foldedKeys() throws {
        let keys = ["bundleID", "ClientKey", "plain", "ÉTAT", "Straße", "MiXeD_9-Key"]
        let message = "{" + keys.enumerated().map { "\"\($1)\":\($0)" }.joined(separator: ", ") + "}"
        let fields = try #require(MessageFields.parse(bytes: Array(message.utf8), foldCase: true))
        #expect(Set(fields.keys) == Set(keys.map { $0.lowercased() }))
        for (n, key) in keys.enumerated() { #expect(fields[key.lowercased()] == .number(Double(n))) }
    }
}
