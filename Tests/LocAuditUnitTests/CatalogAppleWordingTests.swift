import Foundation
import Testing
@testable import LocAuditIngest
@testable import LocAuditModel
@testable import LocAuditNormalise
@testable import LocAuditStore

/// locationd's own wording for the families the reference shapes stand for (issue 23): lines
/// rendered from the iOS 26.1 format strings as real lines render theirs.
@Suite struct CatalogAppleWordingTests {
    static let device = "00008101-APPLE-WORDING"

    /// One idevicesyslog log: a prompt, its answer, and status changes in locationd's wording,
    /// with lines whose meaning the binary does not show next to them.
    static let log = [
        syslogLine("Nov 20 09:00:01", "locationd", 64,
                   #"{"msg":"Showing #AuthPrompt", "requestType":2, "Client":"icom.example.app:"}"#),
        syslogLine("Nov 20 09:00:04", "locationd", 64,
                   ##"{"msg":"#TemporaryAuth Client has been granted temporary positive status", "ClientKey":"icom.example.app:"}"##),
        // Mask 1 (Never) replaces mask 2: a decrease, stored whatever mayIncreaseAuth says.
        mask(at: 10, old: 2, new: 1, mayIncrease: 0, changed: 1),
        // Mask 4 (Always) with mayIncreaseAuth: stored.
        mask(at: 11, old: 1, new: 4, mayIncrease: 1, changed: 1),
        // Mask 0: cleared to not-determined.
        mask(at: 12, old: 4, new: 0, mayIncrease: 1, changed: 1),
        // Not events: mask 2 may be WhenInUse or provisional Always; an increase without
        // mayIncreaseAuth is not stored; an unchanged mask is no change; 6 is not shown in the code.
        mask(at: 13, old: 0, new: 2, mayIncrease: 1, changed: 1),
        mask(at: 14, old: 0, new: 4, mayIncrease: 0, changed: 1),
        mask(at: 15, old: 1, new: 1, mayIncrease: 1, changed: 0),
        mask(at: 16, old: 0, new: 6, mayIncrease: 1, changed: 1),
        // Not events either: who grants temporary precise through this path is not shown.
        syslogLine("Nov 20 09:00:30", "locationd", 64,
                   ##"{"msg":"#TemporaryAuth-Precise", "Client":"icom.example.app:", "granted":1}"##),
    ].joined(separator: "\n") + "\n"

    static func mask(at second: Int, old: Int, new: Int, mayIncrease: Int, changed: Int) -> String {
        syslogLine("Nov 20 09:00:\(second)", "locationd", 64,
                          #"{"msg":"update client authorization mask", "Client":"icom.example.app:", "old":\#(old), "new":\#(new), "oldCC":0, "newCC":0, "localAuthorizationChange":1, "mayIncreaseAuth":\#(mayIncrease), "authStateHasChanged":\#(changed), "hasAuth":1}"#)
    }

    static func ingest() throws -> Workspace {
        let ws = try Workspace()
        let path = try ws.write("apple-wording-2026-11-20.log", log)
        let report = try ws.ingest([path]) { $0.parse.year = 2026; $0.device = DeviceFacts(udid: device) }
        #expect(report.failed == 0)
        return ws
    }

    @Test("a log in locationd's own wording ingests into prompt, answer and status events; lines the binary does not explain stay out")
    func appleWordingIngests() throws {
        let ws = try Self.ingest()
        let rows = try ws.rows("SELECT kind, pattern, bundle_id, prompt_kind, choice, status FROM events ORDER BY time_us, id")
        let events = rows.map { row -> [String?] in
            [row["kind"], row["pattern"], row["bundle_id"], row["prompt_kind"], row["choice"], row["status"]]
        }
        #expect(events == [
            ["prompt", "system.prompt.shown", "com.example.app", "2", nil, nil],
            ["prompt-response", "system.prompt-response.allow-once", "com.example.app", nil, "AllowOnce", nil],
            ["status-change", "system.status.mask.denied", "com.example.app", nil, nil, "denied"],
            ["status-change", "system.status.mask.always", "com.example.app", nil, nil, "authorizedAlways"],
            ["status-change", "system.status.mask.not-determined", "com.example.app", nil, nil, "notDetermined"],
        ], "\(events)")
    }

    @Test("an update of the mask is a status only where the decompiled code says what it means")
    func maskValuesTheCodeDoesNotExplainAreNoStatus() {
        let catalog = Catalog.builtin
        func status(old: Int, new: Int, mayIncrease: Int, changed: Int = 1) -> String? {
            let message = #"{"msg":"update client authorization mask", "Client":"icom.example.app:", "old":\#(old), "new":\#(new), "oldCC":0, "newCC":0, "localAuthorizationChange":1, "mayIncreaseAuth":\#(mayIncrease), "authStateHasChanged":\#(changed), "hasAuth":1}"#
            guard case .event(let event) = catalog.recognise(message) else { return nil }
            return event[.status]?.description
        }
        #expect(status(old: 0, new: 2, mayIncrease: 1) == nil)
        #expect(status(old: 4, new: 2, mayIncrease: 0) == nil)
        #expect(status(old: 0, new: 1, mayIncrease: 0) == nil)
        #expect(status(old: 0, new: 1, mayIncrease: 1) == "denied")
        #expect(status(old: 4, new: 1, mayIncrease: 0) == "denied")
        #expect(status(old: 2, new: 4, mayIncrease: 0) == nil)
        #expect(status(old: 2, new: 4, mayIncrease: 1) == "authorizedAlways")
        #expect(status(old: 4, new: 4, mayIncrease: 1, changed: 0) == nil)
        #expect(status(old: 2, new: 0, mayIncrease: 0) == "notDetermined")
        #expect(status(old: 0, new: 7, mayIncrease: 1) == nil)
    }

    @Test("catalog coverage says per family how many events real, binary and reference patterns recognised")
    func coverageByProvenance() throws {
        let ws = try Self.ingest()
        // A reference-shape line beside the Apple wording.
        let reference = try ws.write("reference-2026-11-20.log", syslogLine("Nov 20 10:00:00", "locationd", 64,
            ##"{"msg":"#Authorization changed", "bundleId":"com.example.app", "status":"AuthorizedWhenInUse", "reason":"Settings", "provisional":0, "temporary":0}"##) + "\n")
        #expect(try ws.ingest([reference]) { $0.parse.year = 2026; $0.device = DeviceFacts(udid: Self.device) }.failed == 0)
        let coverage = try MessageCoverage.read(database: ws.store.path, catalog: Catalog.builtin)
        let device = try #require(coverage.devices.first { $0.device == Self.device })
        // Each evidence family on its own (v2): the prompt, its answer, the status changes.
        #expect(device.families["prompts"] == 1 && device.families["answers"] == 1)
        #expect(device.families["status-changes"] == 4 && device.families["daemon"] == 0)
        // Showing #AuthPrompt is real (macOS 13); the Allow Once answer and the masks are binary.
        #expect(device.provenance["prompts"] == ["real": 1, "binary": 0, "reference": 0, "unlabelled": 0])
        #expect(device.provenance["answers"] == ["real": 0, "binary": 1, "reference": 0, "unlabelled": 0])
        #expect(device.provenance["status-changes"] == ["real": 0, "binary": 3, "reference": 1, "unlabelled": 0])
        #expect(device.provenance["indicator"] == ["real": 0, "binary": 0, "reference": 0, "unlabelled": 0])
        #expect(Set(device.provenance.keys) == Set(MessageFamily.allCases.map(\.rawValue)))
        #expect(coverage.text.contains("status-changes       4  locationd changing the app's authorization (a prompt, Settings, a location button, a lapse) (binary 3, reference 1)"), "\(coverage.text)")
        #expect(coverage.text.contains("indicator            0  none: missing-blue-bar and unexpected-blue-bar cannot be judged\n"), "\(coverage.text)")
        // The JSON keeps every key it had and adds "provenance".
        let json = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(coverage)) as? [String: Any])
        let first = try #require((json["devices"] as? [[String: Any]])?.first)
        #expect(Set(first.keys) == ["device", "families", "provenance"])
    }
}
