import Foundation
import Testing
@testable import LocAuditModel
@testable import LocAuditReplay
@testable import LocAuditNormalise
@testable import LocAuditReport

/// The words a source row and the ingest summary count lines by are enums, so a misspelt
/// reason does not compile; the schema, which users' saved queries read, names every one.
@Suite struct VocabularyTests {
    static func schemaRow(_ column: String) throws -> String {
        let schema = try String(contentsOf: packageRoot.appendingPathComponent("docs/schema.md"), encoding: .utf8)
        // The row whose first cell names the column (`prompt_kind`, `prompt_options` share one).
        return schema.split(separator: "\n").first {
            $0.hasPrefix("| ") && $0.split(separator: "|").first?.contains("`\(column)`") == true
        }.map(String.init) ?? ""
    }

    @Test("docs/schema.md's sources.skipped names every skip reason the reader can count")
    func everySkipReasonDocumented() throws {
        let row = try Self.schemaRow("skipped")
        #expect(!row.isEmpty)
        for reason in SkipReason.allCases { #expect(row.contains("`\(reason.rawValue)`"), "\(reason.rawValue) is not in docs/schema.md") }
    }

    @Test("docs/schema.md's sources.notes names every note the reader can count")
    func everyNoteDocumented() throws {
        let row = try Self.schemaRow("notes")
        #expect(!row.isEmpty)
        for kind in NoteKind.allCases { #expect(row.contains("`\(kind.rawValue)`"), "\(kind.rawValue) is not in docs/schema.md") }
    }

    @Test("a skip and a note are counted under their stored spelling, with the first line of the skip")
    func countsUnderStoredSpelling() {
        var counts = ParseCounts()
        counts.skip(.badTimestamp, line: 7)
        counts.skip(.badTimestamp, line: 9)
        counts.note(.invalidUTF8)
        #expect(counts.skipped == ["bad-timestamp": 2] && counts.firstLine == ["bad-timestamp": 7])
        #expect(counts.notes == ["invalid-utf8": 1])
    }

    /// The events columns whose words the replay and the rules read, and those words.
    static let eventVocabularies: [(column: String, words: [String])] = [
        ("prompt_kind", PromptKind.named.map(\.rawValue)),
        ("choice", PromptChoice.allCases.map(\.rawValue)),
        ("property", ManagerProperty.allCases.map(\.rawValue)),
        ("reason", ChangeReason.allCases.map(\.rawValue)),
        ("intent", LaunchIntent.allCases.map(\.rawValue)),
    ]

    @Test("docs/schema.md's events columns name every word the replay and the rules read in them", arguments: eventVocabularies)
    func everyEventWordDocumented(_ vocabulary: (column: String, words: [String])) throws {
        let row = try Self.schemaRow(vocabulary.column)
        #expect(!row.isEmpty)
        for word in vocabulary.words { #expect(row.contains("`\(word)`"), "\(word) is not in docs/schema.md's \(vocabulary.column)") }
    }

    @Test("a prompt kind outside the vocabulary is kept as written; a call, answer or property outside it is none, never a trap")
    func outsideTheVocabulary() {
        #expect(Normaliser.promptKind("7").map(PromptKind.init(rawValue:)) == PromptKind(rawValue: "7"))
        #expect(Normaliser.promptKind("5").map(PromptKind.init(rawValue:)) == .legacyAlways)
        #expect(ManagerCall(rawValue: "startMonitoringVisits") == nil)
        #expect(ManagerCall(rawValue: "requestAlwaysAuthorization")?.request == .always && ManagerCall.requestLocation.request == nil)
        #expect(PromptChoice(rawValue: "Maybe") == nil && ManagerProperty(rawValue: "distanceFilter") == nil)
        #expect(PromptChoice.options("AllowOnce,Maybe,Deny") == [.allowOnce, .deny])
        #expect(PromptChoice.options(nil).isEmpty)
    }

    @Test("every state a timeline lane can hold has its colour in the style sheet, under a class of its own")
    func everyLaneStateColoured() {
        let classes = SessionTimeline.LaneState.allCases.map(TimelineDrawing.stateClass)
        #expect(Set(classes).count == classes.count)
        for name in classes {
            #expect(HTMLStyle.css.contains("svg .\(name) ") || HTMLStyle.css.contains("svg .\(name),"), "no colour for \(name)")
        }
    }

    @Test("a lane's colour follows the state the replay holds, not the words that name it")
    func laneColourByState() {
        var state = ReplayState()
        state.status = Known(.authorizedWhenInUse, .observed(1))
        state.grantIsAllowOnce = Known(true, .observed(1))
        let held = SessionTimeline.LaneKind.authorization.value(in: state, at: 0)
        #expect(held?.state == .allowOnce && held?.label == "Allow Once")
        #expect(held.map { TimelineDrawing.stateClass($0.state) } == "auth-allow-once")
        state.services.insert(.visits)
        state.paused = Known(true, .observed(2))
        let services = SessionTimeline.LaneKind.services.value(in: state, at: 0)
        #expect(services?.state == .on && services?.label == "visits (paused)")
        #expect(services.map { TimelineDrawing.stateClass($0.state) } == "svc-on")
    }
}
