import Foundation
import GRDB
import Testing
@testable import LocAuditRead
@testable import LocAuditStore
import Glibc

/// JSON that cannot be written is a sentence (from OutputTests.swift, in the test process).
@Suite struct OutputJSONTests {
    @Test("a value JSON cannot hold is an error with a sentence, never an empty output")
    func unencodableJSON() throws {
        struct Figure: Encodable { var rate: Double }
        #expect { try Output.json(Figure(rate: .infinity), what: "the statistics") } throws: { error in
            "\(error)" == "cannot write the statistics as JSON: inf in rate has no JSON form. Please report this with the command line."
        }
        #expect(try Output.json(Figure(rate: 2.5), pretty: false, what: "x") == #"{"rate":2.5}"#)
    }
}
