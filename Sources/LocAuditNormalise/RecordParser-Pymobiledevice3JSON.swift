import Foundation
import LocAuditModel
import LocAuditRead

extension RecordParser {
    // MARK: pymobiledevice3 --format json

    private static let messageKey = Array("\"message\"".utf8)

    /// `{"pid": 64, "timestamp": "2026-11-20T09:00:00.123456", "level": "NOTICE", "image_name": "/System/…/CoreLocation",
    /// "filename": "/usr/libexec/locationd", "message": "…", "label": {…} | null, …}`: host local time, no zone.
    func pymobiledevice3JSONLine(_ b: UnsafeBufferPointer<UInt8>) throws -> LineFate {
        var i = 0
        while i < b.count, b[i] == 0x20 || b[i] == 0x09 { i += 1 }
        if i == b.count { return .skipped(.noise) }
        guard b[i] == UInt8(ascii: "{"), JSONScan.string(key: RecordParser.messageKey, in: b, into: &scratch) else {
            return .skipped(.malformed)
        }
        let object = UnsafeBufferPointer(rebasing: b[i...])
        let isCandidate = scratch.withUnsafeBufferPointer { catalog.isCandidate($0) }
        guard let fields = MessageFields.parse(bytes: Array(object)) else { return .skipped(.malformed) }
        guard case .string(let stamp)? = fields["timestamp"],
              let local = Array(stamp.utf8).withUnsafeBufferPointer({ buf in buf.baseAddress.flatMap { LocalTime.dateTime($0, buf.count) } }),
              local.length == stamp.utf8.count else {
            return .skipped(.badTimestamp)
        }
        recognised += 1
        if let last = lastLocalUS, local.localUS < last { counts.note(.timeBackwards) }
        lastLocalUS = local.localUS
        if counts.firstUS == nil { counts.firstUS = LocalTime.utc(localUS: local.localUS, zone: zone).us }
        guard isCandidate else { return .read }
        let (timeUS, offset) = LocalTime.utc(localUS: local.localUS, zone: zone)
        var process: String? = nil
        if case .string(let path)? = fields["filename"] {
            process = path.split(separator: "/").last.map(String.init) ?? path
        }
        var pid: Int64? = nil
        if case .number(let n)? = fields["pid"], n >= 0, n < 1e15, n == n.rounded() { pid = Int64(n) }
        try recognise(scratch, line: lineNumber, timeUS: timeUS, offset: offset, process: process, pid: pid)
        return .read
    }
}
