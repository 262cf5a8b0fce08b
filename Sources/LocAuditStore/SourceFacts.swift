import Foundation
import LocAuditModel
import LocAuditNormalise

/// What is known about a file once it has been read to its end.
package struct SourceFacts {
    var path: String
    var fileSHA256: String
    package var contentSHA256: String
    var size: Int64
    var contentSize: Int64
    var gzipMembers: Int
    var container: Container
    /// The test tool whose prefix each line had (`sources.wrapper`).
    var wrapper: Wrapper?
    var device: DeviceFacts
    var counts: ParseCounts

    package init(path: String, fileSHA256: String, contentSHA256: String, size: Int64, contentSize: Int64, gzipMembers: Int, container: Container, wrapper: Wrapper? = nil, device: DeviceFacts, counts: ParseCounts) {
        self.path = path
        self.fileSHA256 = fileSHA256
        self.contentSHA256 = contentSHA256
        self.size = size
        self.contentSize = contentSize
        self.gzipMembers = gzipMembers
        self.container = container
        self.wrapper = wrapper
        self.device = device
        self.counts = counts
    }
}

/// How a commit ended.
package enum CommitOutcome {
    /// `counts` are the parse counts as stored: with times and notes of a zone taken from another export.
    case stored(sourceId: Int64, events: Int, duplicates: Int, counts: ParseCounts, zone: ZoneReconciler.Outcome)
    /// Another file (or another process, meanwhile) already brought the same content.
    case alreadyIngested(path: String)
}
