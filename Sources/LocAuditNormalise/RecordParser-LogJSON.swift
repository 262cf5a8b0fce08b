import Foundation
import LocAuditModel
import LocAuditRead

extension RecordParser {
    // MARK: JSON containers

    private static let eventMessageKey = Array("\"eventMessage\"".utf8)
    private static let finishedKey = Array("\"finished\"".utf8)

    func jsonRecordLine(_ b: UnsafeBufferPointer<UInt8>) throws -> LineFate {
        var i = 0
        while i < b.count, b[i] == 0x20 || b[i] == 0x09 { i += 1 }
        if i == b.count { return .skipped(.noise) }
        guard b[i] == UInt8(ascii: "{") else {
            guard LogBanner.isBanner(UnsafeBufferPointer(rebasing: b[i...])) else { return .skipped(.malformed) }
            recognised += 1
            return .skipped(.noise)
        }
        return try jsonRecord(UnsafeBufferPointer(rebasing: b[i...]), line: lineNumber)
    }

    /// One `log show --style ndjson|json` record: read, or skipped with the reason (the
    /// caller counts it: a line of ndjson, an object of `--style json`).
    private func jsonRecord(_ b: UnsafeBufferPointer<UInt8>, line: Int) throws -> LineFate {
        guard JSONScan.string(key: RecordParser.eventMessageKey, in: b, into: &scratch) else {
            // The trailer {"count":N,"finished":1}, or an object with no message.
            if RecordParser.finishedKey.withUnsafeBufferPointer({ memmem(b.baseAddress, b.count, $0.baseAddress, $0.count) }) != nil {
                recognised += 1
            }
            return .skipped(.noise)
        }
        recognised += 1
        let isCandidate = scratch.withUnsafeBufferPointer { catalog.isCandidate($0) }
        let text = String(decoding: b, as: UTF8.self)
        guard let fields = MessageFields.parse(text) else { return .skipped(.malformed) }
        var timeUS: Int64 = 0
        var offset: Int32? = nil
        if case .string(let stamp)? = fields["timestamp"] {
            let parsed = Array(stamp.utf8).withUnsafeBufferPointer { Timestamps.parseISOLike($0) }
            guard let parsed else { return .skipped(.badTimestamp) }
            timeUS = parsed.us
            offset = parsed.offset
        } else {
            return .skipped(.badTimestamp)
        }
        if let last = counts.lastUS, timeUS < last { counts.note(.timeBackwards) }
        if counts.firstUS == nil { counts.firstUS = timeUS }
        counts.lastUS = max(counts.lastUS ?? timeUS, timeUS)
        guard isCandidate else { return .read }
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
        return .read
    }

    /// `--style json`: objects spread over lines inside one array. A line is read when an
    /// object has a byte on it, or when it holds only the array's brackets and commas; a
    /// line of anything else outside the objects (a file that starts like JSON and turns
    /// into text) is skipped, `malformed`.
    func jsonArrayLine(_ b: UnsafeBufferPointer<UInt8>) throws -> LineFate {
        if !jsonStarted, let first = b.first(where: { $0 != 0x20 && $0 != 0x09 }) {
            jsonStarted = true
            if first == UInt8(ascii: "[") { recognised += 1 }
        }
        var inObject = jsonDepth > 0
        var outside = false
        var blank = true
        var objectStart: Int? = nil
        for i in 0..<b.count {
            let c = b[i]
            if jsonInString {
                if jsonEscape { jsonEscape = false } else if c == UInt8(ascii: "\\") { jsonEscape = true } else if c == UInt8(ascii: "\"") { jsonInString = false }
                continue
            }
            if jsonDepth == 0, c != UInt8(ascii: "{") {
                // Between objects: the array's punctuation, or not this container.
                if c != 0x20, c != 0x09 { blank = false }
                if c != 0x20, c != 0x09, c != UInt8(ascii: "["), c != UInt8(ascii: "]"), c != UInt8(ascii: ","), c != UInt8(ascii: "}") {
                    outside = true
                    continue
                }
            }
            switch c {
            case UInt8(ascii: "\""): jsonInString = true
            case UInt8(ascii: "{"):
                if jsonDepth == 0 {
                    objectStart = i
                    inObject = true
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
                        skipRecord(.tooLong, line: jsonObjectLine)
                    } else {
                        let object = jsonObject
                        let fate = try object.withUnsafeBufferPointer { try jsonRecord($0, line: jsonObjectLine) }
                        if case .skipped(let reason) = fate { skipRecord(reason, line: jsonObjectLine) }
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
        if inObject { return .read }
        if outside { return .skipped(.malformed) }
        return blank ? .skipped(.noise) : .read
    }

    /// `count` empty lines, as `jsonArrayLine(_:)` reads each: a newline each in the object
    /// being accumulated (past `maxLineBytes` it is too long), noise between objects.
    func blankJSONArrayLines(_ count: Int) -> LineFate {
        guard jsonDepth > 0 else { return .skipped(.noise) }
        guard !jsonObjectTooLong else { return .read }
        if jsonObject.count + count > RecordParser.maxLineBytes {
            jsonObjectTooLong = true
            jsonObject = []
        } else {
            jsonObject.append(contentsOf: repeatElement(0x0a, count: count))
        }
        return .read
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
