import Foundation
import Testing
@testable import LocAuditNormalise

@Suite struct CatalogTests {
    @Test("every built-in pattern's samples parse to the event they claim", arguments: Catalog.builtin.patterns.map(\.id))
    func builtinSamples(id: String) throws {
        let catalog = Catalog.builtin
        let pattern = try #require(catalog.patterns.first { $0.id == id })
        #expect(!pattern.samples.isEmpty, "\(id) has no sample")
        let failures = catalog.checkSamples().filter { $0.hasPrefix(id + " ") || $0.hasPrefix(id + ":") }
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test func patternIdentifiersAreUnique() {
        let ids = Catalog.builtin.patterns.map(\.id)
        #expect(Set(ids).count == ids.count)
    }

    @Test func aSampleThatDoesNotMatchItsClaimIsReported() throws {
        let file = CatalogFile(patterns: [CatalogPattern(
            id: "user.bar", kind: .blueBar, scope: .system, msg: "#Indicator", contains: nil, regex: nil, when: nil,
            fields: ["visible": "shown"], set: nil,
            samples: [CatalogSample(message: ##"{"msg":"#Indicator", "shown":0}"##, expect: ["visible": "1"])])])
        let catalog = try Catalog(patterns: file.patterns)
        #expect(catalog.checkSamples() == [#"user.bar sample 1: visible is "0", expected "1""#])
    }

    @Test func aUserCatalogOverridesABuiltInPatternById() throws {
        let ws = try Workspace()
        // Apple reworded the blue-bar message: the user overrides the pattern without recompiling.
        let path = try ws.write("catalog.json", #"""
            {"patterns": [{"id": "system.blue-bar", "kind": "blue-bar", "scope": "system",
              "msg": "#StatusBar location pill", "fields": {"bundle_id": "client", "visible": "shown"},
              "samples": [{"message": "{\"msg\":\"#StatusBar location pill\", \"client\":\"com.example.app\", \"shown\":true}",
                           "expect": {"kind": "blue-bar", "bundle_id": "com.example.app", "visible": "1"}}]}]}
            """#)
        let catalog = try Catalog.load(userFiles: [path])
        #expect(catalog.checkSamples().isEmpty)
        #expect(catalog.patterns.filter { $0.id == "system.blue-bar" }.count == 1)
        guard case .nothing = catalog.recognise(##"{"msg":"#BackgroundIndicator visibility", "bundleId":"com.example.app", "visible":1}"##) else {
            Issue.record("the old wording should no longer be recognised")
            return
        }
        let log = try ws.write("a.log", syslogLine("Nov 12 12:25:00", "locationd", 64,
                                                   ##"{"msg":"#StatusBar location pill", "client":"com.example.app", "shown":true}"##) + "\n")
        let report = try ws.ingest([log]) { $0.catalogFiles = [path]; $0.parse.year = 2026 }
        #expect(report.files.first?.events == 1)
        #expect(try ws.count("SELECT count(*) FROM events WHERE kind = 'blue-bar' AND visible = 1 AND bundle_id = 'com.example.app'") == 1)
    }

    @Test func aBrokenCatalogFileIsNamedWithWhereItBreaks() throws {
        let ws = try Workspace()
        let path = try ws.write("bad.json", #"{"patterns": [{"id": "x", "kind": "nonsense", "scope": "app", "msg": "m", "samples": []}]}"#)
        #expect {
            try Catalog.load(userFiles: [path])
        } throws: { error in
            "\(error)".contains(path) && "\(error)".contains("patterns")
        }
    }

    @Test func tolerantFieldsReadPrivateMaskAndNestedValues() throws {
        let fields = try #require(MessageFields.parse(#"{"msg":"x", "a":<private>, "b":<mask.hash: 'AbC=='>, "c":{"d":5, "e":"f"}, "g":-1.5, "h":true, "i":[1, "]"], "j":"q\"uote"}"#))
        #expect(fields["a"] == .redacted)
        #expect(fields["b"] == .masked("AbC=="))
        #expect(MessageFields.lookup("c.d", in: fields) == .number(5))
        #expect(fields["g"] == .number(-1.5))
        #expect(fields["h"] == .bool(true))
        #expect(fields["j"] == .string("q\"uote"))
        // A message cut short keeps what could be read.
        let cut = try #require(MessageFields.parse(#"{"msg":"x", "pid":12, "bundleId":"com.exa"#))
        #expect(cut["pid"] == .number(12))
    }
}
