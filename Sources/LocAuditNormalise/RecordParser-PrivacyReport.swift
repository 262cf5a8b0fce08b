import Foundation
import LocAuditModel
import LocAuditRead

extension RecordParser {
    // MARK: App Privacy Report

    func privacyReportLine(_ b: UnsafeBufferPointer<UInt8>) throws -> LineFate {
        let text = String(decoding: b, as: UTF8.self)
        if text.allSatisfy({ $0 == " " || $0 == "\t" }) { return .skipped(.noise) }
        guard let fields = MessageFields.parse(text) else { return .skipped(.malformed) }
        if case .string? = fields["type"] { recognised += 1 }
        guard case .string("access")? = fields["type"], case .string("location")? = fields["category"] else {
            return .skipped(.notLocation)
        }
        guard case .string(let stamp)? = fields["timeStamp"],
              let time = Array(stamp.utf8).withUnsafeBufferPointer({ Timestamps.parseISOLike($0) }) else {
            return .skipped(.badTimestamp)
        }
        let kind: EventKind
        switch fields["kind"] {
        case .string("intervalBegin")?: kind = .accessBegin
        case .string("intervalEnd")?: kind = .accessEnd
        default: return .skipped(.malformed)
        }
        var event = Event(kind: kind, pattern: "privacy-report.location")
        event[.bundleId] = Normaliser.value(MessageFields.lookup("accessor.identifier", in: fields), for: .bundleId)
        event[.value] = Normaliser.value(fields["identifier"], for: .value)
        if counts.firstUS == nil || time.us < counts.firstUS! { counts.firstUS = time.us }
        if counts.lastUS == nil || time.us > counts.lastUS! { counts.lastUS = time.us }
        try store(event, message: text, line: lineNumber, timeUS: time.us, offset: time.offset, process: nil, pid: nil)
        return .read
    }
}
