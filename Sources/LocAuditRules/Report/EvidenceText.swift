import LocAuditModel
import LocAuditReplay

/// A log line a finding cites, as reports quote it: where it is and what it says.
public struct EvidenceText: Sendable, Equatable {
    public var event: Int64
    public var file: String
    public var line: Int
    /// ISO 8601 UTC.
    public var time: String
    /// The message as logged (coordinates included: reporters mask them).
    public var message: String

    public init(event: Int64, file: String, line: Int, time: String, message: String) {
        self.event = event
        self.file = file
        self.line = line
        self.time = time
        self.message = message
    }
}
