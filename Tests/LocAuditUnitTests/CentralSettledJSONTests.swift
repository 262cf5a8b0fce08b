import Foundation
import Testing
@testable import LocAuditAudit
@testable import LocAuditCentral

/// A checkpoint's settled sessions as the fleet's audit writes them back: when sessions are only
/// added, the stored text of the others is kept and only the new ones encoded.
@Suite struct CentralSettledJSONTests {
    static func session(_ startUS: Int64, findings: [String]? = nil) -> SettledSession {
        SettledSession(pid: 400 + startUS % 7, startUS: startUS, endUS: startUS + 90_000_000, endReason: .nextLaunch, launchIntent: nil,
                       relaunchService: nil, osVersion: "17.4", events: 12, firstEvent: startUS / 1_000_000, lastEvent: startUS / 1_000_000 + 11,
                       statusAtStart: "authorizedWhenInUse", statusAtEnd: "denied", plist: "ab12", hasAppLines: true, onlyPrivacyReport: false,
                       configurationEvents: [startUS / 1_000_000 + 1], counted: true,
                       checks: [.init(rule: "when-in-use-background", notEvaluable: nil, findings: findings),
                                .init(rule: "precise-accuracy", notEvaluable: "no \"accuracy\" line \\ here", findings: nil)],
                       notApplicable: 3, insufficient: false)
    }

    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }

    static func stored(_ settled: SettledApp) throws -> CentralCheckpoints.Stored {
        CentralCheckpoints.Stored(deviceId: "d1", bundleId: "com.example.a", asOf: nil, state: nil, settled: settled,
                                  settledJSON: String(decoding: try encoder().encode(settled), as: UTF8.self), lastEventID: 9, rules: "r")
    }

    @Test("a checkpoint that adds settled sessions is written as the same bytes as encoding every session, the stored ones kept as text")
    func addedSessionsKeepStoredText() throws {
        let before = SettledApp(eventsBefore: 40, sessions: [Self.session(1_000_000_000), Self.session(2_000_000_000, findings: ["f1"])], cited: [5])
        var after = before
        after.sessions += [Self.session(3_000_000_000), Self.session(4_000_000_000, findings: ["f2", "f3"])]
        (after.eventsBefore, after.cited) = (77, [7, 9])
        let whole = String(decoding: try Self.encoder().encode(after), as: UTF8.self)
        let written = try CentralAudit.Recorded.settledJSON(after, before: try Self.stored(before), encoder: Self.encoder())
        #expect(written == whole)
        #expect(try JSONDecoder().decode(SettledApp.self, from: Data(written.utf8)) == after)
        // The stored text is what is kept: a stored text that differs shows through (so it is not encoded again).
        var marked = try Self.stored(before)
        marked.settledJSON = marked.settledJSON.replacingOccurrences(of: "\"f1\"", with: "\"f1-as-stored\"")
        let kept = try CentralAudit.Recorded.settledJSON(after, before: marked, encoder: Self.encoder())
        #expect(kept.contains("\"f1-as-stored\"") && kept.contains("\"f3\""))
    }

    @Test("a checkpoint whose settled sessions changed (renamed findings, fewer sessions, none before) is encoded whole")
    func changedSessionsEncodedWhole() throws {
        let before = SettledApp(eventsBefore: 40, sessions: [Self.session(1_000_000_000, findings: ["f1"])], cited: [])
        var renamed = before
        renamed.sessions[0].checks[0].findings = ["f1-stored"]
        renamed.sessions.append(Self.session(2_000_000_000))
        let cases: [(SettledApp, CentralCheckpoints.Stored?)] = [
            (renamed, try Self.stored(before)),
            (SettledApp(eventsBefore: 1, sessions: [], cited: []), try Self.stored(before)),
            (before, nil),
            (renamed, try Self.stored(SettledApp())),
        ]
        for (settled, stored) in cases {
            let written = try CentralAudit.Recorded.settledJSON(settled, before: stored, encoder: Self.encoder())
            #expect(written == String(decoding: try Self.encoder().encode(settled), as: UTF8.self))
        }
    }
}
