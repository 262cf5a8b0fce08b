import Foundation
import LocAuditModel
import LocAuditRead

extension RecordParser {
    // MARK: JSON containers

    private static let eventMessageKey = Array("\"eventMessage\"".utf8)
    private static let finishedKey = Array("\"finished\"".utf8)

    func jsonRecordLine(_ b: UnsafeBufferPointer<UInt8>) throws {
        var i = 0
        while i < b.count, b[i] == 0x20 || b[i] == 0x09 { i += 1 }
        if i == b.count { counts.skip(.noise); return }
        guard b[i] == UInt8(ascii: "{") else {
            if LogBanner.isBanner(UnsafeBufferPointer(rebasing: b[i...])) {
                recognised += 1
                counts.skip(.noise)
            } else {
                counts.skip(.malformed, line: lineNumber)
            }
            return
        }
        try jsonRecord(UnsafeBufferPointer(rebasing: b[i...]), line: lineNumber)
    }

    /// One `log show --style ndjson|json` record.
    private func jsonRecord(_ b: UnsafeBufferPointer<UInt8>, line: Int) throws {
        guard JSONScan.string(key: RecordParser.eventMessageKey, in: b, into: &scratch) else {
            // The trailer {"count":N,"finished":1}, or an object with no message.
            if RecordParser.finishedKey.withUnsafeBufferPointer({ memmem(b.baseAddress, b.count, $0.baseAddress, $0.count) }) != nil {
                recognised += 1
            }
            counts.skip(.noise)
            return
        }
        recognised += 1
        let isCandidate = scratch.withUnsafeBufferPointer { catalog.isCandidate($0) }
        let text = String(decoding: b, as: UTF8.self)
        guard let fields = MessageFields.parse(text) else { counts.skip(.malformed, line: line); return }
        var timeUS: Int64 = 0
        var offset: Int32? = nil
        if case .string(let stamp)? = fields["timestamp"] {
            let parsed = Array(stamp.utf8).withUnsafeBufferPointer { Timestamps.parseISOLike($0) }
            guard let parsed else { counts.skip(.badTimestamp, line: line); return }
            timeUS = parsed.us
            offset = parsed.offset
        } else {
            counts.skip(.badTimestamp, line: line)
            return
        }
        if let last = counts.lastUS, timeUS < last { counts.note(.timeBackwards) }
        if counts.firstUS == nil { counts.firstUS = timeUS }
        counts.lastUS = max(counts.lastUS ?? timeUS, timeUS)
        guard isCandidate else { return }
        var process: String? = nil
        if case .string(let path)? = fields["processImagePath"] {
            process = path.split(separator: "/").last.map(String.init) ?? path
        }
        var pid: Int64? = nil
        if case .number(let n)? = fields["processID"] {
            // 1e300, 1.5: no pid; the record is still read.
            pid = Int64(exactly: n)
            if pid == nil { counts.note(.numberOutOfRange) }
        }
        try recognise(scratch, line: line, timeUS: timeUS, offset: offset, process: process, pid: pid)
    }

    /// `--style json`: objects spread over lines inside one array.
    func jsonArrayLine(_ b: UnsafeBufferPointer<UInt8>) throws {
        if !jsonStarted, let first = b.first(where: { $0 != 0x20 && $0 != 0x09 }) {
            jsonStarted = true
            if first == UInt8(ascii: "[") { recognised += 1 }
        }
        var objectStart: Int? = nil
        for i in 0..<b.count {
            let c = b[i]
            if jsonInString {
                if jsonEscape { jsonEscape = false } else if c == UInt8(ascii: "\\") { jsonEscape = true } else if c == UInt8(ascii: "\"") { jsonInString = false }
                continue
            }
            switch c {
            case UInt8(ascii: "\""): jsonInString = true
            case UInt8(ascii: "{"):
                if jsonDepth == 0 {
                    objectStart = i
                    jsonObjectLine = lineNumber
                    jsonObject.removeAll(keepingCapacity: true)
                    jsonObjectTooLong = false
                }
                jsonDepth += 1
            case UInt8(ascii: "}"):
                jsonDepth -= 1
                if jsonDepth == 0 {
                    appendJSONObject(UnsafeBufferPointer(rebasing: b[(objectStart ?? 0)...i]))
                    objectStart = nil
                    if jsonObjectTooLong {
                        counts.skip(.tooLong, line: jsonObjectLine)
                    } else {
                        let object = jsonObject
                        try object.withUnsafeBufferPointer { try jsonRecord($0, line: jsonObjectLine) }
                    }
                    jsonObject.removeAll(keepingCapacity: true)
                } else if jsonDepth < 0 {
                    jsonDepth = 0
                    counts.skip(.malformed, line: lineNumber)
                }
            default: break
            }
        }
        if jsonDepth > 0 { appendJSONObject(UnsafeBufferPointer(rebasing: b[(objectStart ?? 0)...])) }
    }

    /// `count` empty lines, as `jsonArrayLine(_:)` reads each: a newline each in the object
    /// being accumulated (past `maxLineBytes` it is too long), nothing between objects.
    func blankJSONArrayLines(_ count: Int) {
        guard jsonDepth > 0, !jsonObjectTooLong else { return }
        if jsonObject.count + count > RecordParser.maxLineBytes {
            jsonObjectTooLong = true
            jsonObject = []
        } else {
            jsonObject.append(contentsOf: repeatElement(0x0a, count: count))
        }
    }

    /// Adds a line's part of the object being accumulated, up to `maxLineBytes` for the object.
    private func appendJSONObject(_ part: UnsafeBufferPointer<UInt8>) {
        if jsonObjectTooLong { return }
        if jsonObject.count + part.count + 1 > RecordParser.maxLineBytes {
            jsonObjectTooLong = true
            jsonObject = []
            return
        }
        jsonObject.append(contentsOf: part)
        jsonObject.append(0x0a)
    }
}
