import Foundation
import LocAuditModel
import LocAuditRead

extension RecordParser {
    // MARK: Text containers

    func textLine(_ b: UnsafeBufferPointer<UInt8>) throws -> LineFate {
        // A blank line is no line of a record, not even inside a paste (a Console copy or a
        // paste into a text file puts them between records): noise. The record before it
        // still takes the lines without a prefix that follow it.
        if b.isEmpty || (b[0] == 0x20 || b[0] == 0x09) && b.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) {
            return .skipped(.noise)
        }
        switch textHeader(b) {
        case .record(let h):
            recognised += 1
            try emitPending()
            try startRecord(h, b)
            return .read
        case .noise:
            recognised += 1
            try emitPending()
            return .skipped(.noise)
        case .badTimestamp:
            try emitPending()
            return .skipped(.badTimestamp)
        case .malformed:
            try emitPending()
            return .skipped(.malformed)
        case .other:
            guard pendingLine != nil else { return .skipped(.malformed) }
            counts.note(.continuation)
            appendContinuation(b)
            return .read
        }
    }

    // Inlined with the parser of each container, so that a record's header is read into
    // the caller's frame: returned, its 180 bytes were copied twice a line (memmove, a tenth
    // of the parsing thread's time on a file of few location lines).
    @inline(__always)
    func textHeader(_ b: UnsafeBufferPointer<UInt8>) -> TextLine {
        RecordParser.textHeader(lines, b)
    }

    @inline(__always)
    static func textHeader(_ container: Container, _ b: UnsafeBufferPointer<UInt8>) -> TextLine {
        switch container {
        case .idevicesyslog: TextHeaders.idevicesyslog(b)
        case .logShow: TextHeaders.logShow(b)
        case .console: TextHeaders.console(b)
        case .pymobiledevice3: TextHeaders.pymobiledevice3(b)
        case .bsdSyslog: TextHeaders.bsdSyslog(b)
        case .mobileInstallation: TextHeaders.mobileInstallation(b)
        case .logCompact: TextHeaders.logCompact(b)
        case .xcodeConsole: TextHeaders.xcodeConsole(b)
        default: TextHeaders.logSyslog(b)
        }
    }

    /// The device name the first records of a text container give (idevicesyslog's and
    /// `log show --style syslog`'s host field), read before the file is parsed so that the
    /// device's facts (its zone, its iOS version) can be linked from the first line on.
    /// Nil for containers whose lines name no device, and when no record in `head` does.
    public static func deviceName(inHead head: [UInt8], container: Container, wrapper: Wrapper? = nil) -> String? {
        guard [.idevicesyslog, .logSyslog, .bsdSyslog].contains(container) else { return nil }
        var start = 0
        while start < head.count {
            let end = head[start...].firstIndex(where: { $0 == 0x0a || $0 == 0 }) ?? head.count
            // A line cut by the head's end is not read: its device field may be cut too.
            guard end < head.count else { return nil }
            var line = Array(head[start..<end])
            if line.last == 0x0d { line.removeLast() }
            start = end + 1
            let name: String? = line.withUnsafeBufferPointer { whole in
                var b = whole
                if let wrapper {
                    guard case .device(let from) = wrapper.unwrap(whole) else { return nil }
                    b = UnsafeBufferPointer(rebasing: whole[min(from, whole.count)...])
                }
                guard case .record(let h) = textHeader(container, b), let d = h.device, !d.isEmpty else { return nil }
                return String(decoding: UnsafeBufferPointer(rebasing: b[d]), as: UTF8.self)
            }
            if let name { return name }
        }
        return nil
    }

    private func startRecord(_ h: TextHeader, _ b: UnsafeBufferPointer<UInt8>) throws {
        var timeUS: Int64
        var offset: Int32? = h.offset
        var local: Int64 = 0
        if let stamp = h.syslogStamp {
            guard let placed = clock.place(month: stamp.month, day: stamp.day, seconds: stamp.seconds) else {
                counts.skip(.badTimestamp, line: lineNumber) // Feb 30, or Feb 29 in a common year
                return
            }
            if placed.backwards { counts.note(.timeBackwards) }
            local = placed.local
            lastMicros = h.micros
            if counts.firstUS == nil { counts.firstUS = clock.utc(local: local).us + Int64(h.micros) }
            timeUS = 0 // resolved below, only for candidates
        } else if let local = h.localUS {
            if let last = lastLocalUS, local < last { counts.note(.timeBackwards) }
            lastLocalUS = local
            if counts.firstUS == nil { counts.firstUS = LocalTime.utc(localUS: local, zone: zone).us }
            timeUS = 0 // resolved below, only for candidates
        } else {
            if let dayUS = h.dayUS, let offset = h.offset {
                timeUS = dayClock.utc(dayUS: dayUS, offset: offset)
            } else {
                timeUS = h.timeUS ?? 0
            }
            if let last = counts.lastUS, timeUS < last { counts.note(.timeBackwards) }
            if counts.firstUS == nil { counts.firstUS = timeUS }
            counts.lastUS = max(counts.lastUS ?? timeUS, timeUS)
        }
        if counts.deviceName == nil, let d = h.device, !d.isEmpty {
            counts.deviceName = String(decoding: UnsafeBufferPointer(rebasing: b[d]), as: UTF8.self)
            try sink.deviceNamed(counts.deviceName!)
        }
        let start = min(h.messageStart, b.count)
        let text = UnsafeBufferPointer(rebasing: b[start...])
        guard catalog.isCandidate(text) else {
            pendingLine = lineNumber
            pendingIsCandidate = false
            return
        }
        if h.syslogStamp != nil {
            let utc = clock.utc(local: local)
            timeUS = utc.us + Int64(h.micros)
            offset = zone == nil ? nil : utc.offset
        } else if let local = h.localUS {
            (timeUS, offset) = LocalTime.utc(localUS: local, zone: zone)
        }
        // The message into the candidate's own buffer, which keeps its room from one candidate
        // to the next (unless a long one grew it).
        if candidate.message.capacity > RecordParser.maxMessageBytes { candidate.message = [] }
        candidate.message.removeAll(keepingCapacity: true)
        candidate.message.append(contentsOf: text)
        if let cut = h.dropped, cut.lowerBound >= start, cut.upperBound <= b.count {
            candidate.message.removeSubrange((cut.lowerBound - start)..<(cut.upperBound - start))
        }
        // The MobileInstallation log is installd's.
        candidate.process = lines == .mobileInstallation ? "installd" : processName(UnsafeBufferPointer(rebasing: b[h.process]))
        candidate.timeUS = timeUS
        candidate.offset = offset
        candidate.pid = h.pid
        pendingLine = lineNumber
        pendingIsCandidate = true
    }

    /// A process's name from its bytes: the last one's string again when the bytes are the
    /// same (an app's lines come together; a name over 15 bytes is a string on the heap).
    private func processName(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        if bytes.count == lastProcessBytes.count,
           lastProcessBytes.withUnsafeBufferPointer({ bytes.count == 0 || memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0 }) {
            return lastProcessName
        }
        lastProcessName = String(decoding: bytes, as: UTF8.self)
        lastProcessBytes.removeAll(keepingCapacity: true)
        lastProcessBytes.append(contentsOf: bytes)
        return lastProcessName
    }

    private func appendContinuation(_ b: UnsafeBufferPointer<UInt8>) {
        guard pendingLine != nil, pendingIsCandidate else { return }
        if candidate.message.count + b.count + 1 > RecordParser.maxLineBytes { return }
        candidate.message.append(0x0a)
        candidate.message.append(contentsOf: b)
    }

    func emitPending() throws {
        guard let line = pendingLine else { return }
        pendingLine = nil
        guard pendingIsCandidate else { return }
        var bytes = candidate.message
        // The backslash of a vis escape looked for by memchr (a loop over the message, a byte
        // at a time, was 1,000 instructions a candidate).
        if lines == .idevicesyslog, bytes.withUnsafeBufferPointer({ b in b.baseAddress.map { memchr($0, Int32(UInt8(ascii: "\\")), b.count) != nil } ?? false }) {
            bytes.withUnsafeBufferPointer { VisDecoding.decode($0, into: &scratch) }
            bytes = scratch
        }
        if lines == .pymobiledevice3 { RecordParser.dropLabel(&bytes) }
        try recognise(bytes, line: line, timeUS: candidate.timeUS, offset: candidate.offset, process: candidate.process, pid: candidate.pid)
    }


    /// pymobiledevice3 `--label` appends ` [subsystem][category]` to the message: not part of it
    /// (so that the same line exported without labels, or by idevicesyslog, is the same message).
    static func dropLabel(_ bytes: inout [UInt8]) {
        guard bytes.last == UInt8(ascii: "]") else { return }
        var i = bytes.count - 2
        var brackets = 0
        // Back over "[category]" and "[subsystem]": no bracket or line break inside either.
        while i >= 0 {
            let c = bytes[i]
            if c == UInt8(ascii: "[") {
                brackets += 1
                if brackets == 2 { break }
                guard i >= 1, bytes[i - 1] == UInt8(ascii: "]") else { return }
                i -= 2
                continue
            }
            if c == UInt8(ascii: "]") || c == 0x0a { return }
            i -= 1
        }
        guard brackets == 2, i >= 1, bytes[i - 1] == 0x20 else { return }
        bytes.removeSubrange((i - 1)...)
    }
}
