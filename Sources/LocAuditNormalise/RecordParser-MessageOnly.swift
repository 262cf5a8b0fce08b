import Foundation
import LocAuditModel
import LocAuditRead

extension RecordParser {
    // MARK: A file of bare messages

    /// A file of messages without their prefixes (Console's message column only): there is
    /// no time, so no event; every line is counted.
    func messageOnlyLine(_ b: UnsafeBufferPointer<UInt8>) {
        if b.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { counts.skip(.noise); return }
        recognised += 1
        counts.skip(.noPrefix)
    }
}
