import Foundation

/// What is known about a file once it has been read to its end.
struct SourceFacts {
    var path: String
    var fileSHA256: String
    var contentSHA256: String
    var size: Int64
    var contentSize: Int64
    var gzipMembers: Int
    var container: Container
    var device: DeviceFacts
    var counts: ParseCounts
}

/// How a commit ended.
enum CommitOutcome {
    /// `counts` are the parse counts as stored: with times and notes of a zone taken from another export.
    case stored(sourceId: Int64, events: Int, duplicates: Int, counts: ParseCounts, zone: ZoneReconciler.Outcome)
    /// Another file (or another process, meanwhile) already brought the same content.
    case alreadyIngested(path: String)
}
