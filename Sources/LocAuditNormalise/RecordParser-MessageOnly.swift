import Foundation
import LocAuditModel
import LocAuditRead

extension RecordParser {
    // MARK: A file of bare messages

    /// A file of messages without their prefixes (Console's message column only): there is
    /// no time, so no event; every line is counted.
    func messageOnlyLine(_ b: UnsafeBufferPointer<UInt8>) -> LineFate {
        if b.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return .skipped(.noise) }
        recognised += 1
        return .skipped(.noPrefix)
    }
}
