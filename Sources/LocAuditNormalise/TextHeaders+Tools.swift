import Foundation
import LocAuditModel
import LocAuditRead

/// The prefix parsers of the lines developers' tools print: `log stream --style compact`
/// and Xcode's debug console. Like the others, each reads a few bytes of every line by
/// structure and checks every index it reads.
extension TextHeaders {
    /// `log stream --style compact`: `2020-02-03 11:20:31.207 Df locationd[4410:1c2e0] [com.apple.locationd.Core:Client] message`
    /// (the host's local time without a zone; a type of one or two letters padded to two,
    /// `Df`, `E `, `I `, `Db`, `F `, `A `; `process[pid:thread]`, the thread in hex). The
    /// header line `Timestamp               Ty Process[PID:TID]` is a banner.
    static func logCompact(_ b: UnsafeBufferPointer<UInt8>) -> TextLine {
        guard let p = b.baseAddress else { return .other }
        let n = b.count
        guard let stamp = LocalTime.dateTime(p, n) else {
            if LogBanner.isBanner(b) { return .noise }
            return LocalTime.looksLikeDateTime(p, n) && pidThread(b, from: 19) != nil ? .badTimestamp : .other
        }
        var i = stamp.length
        guard i < n, p[i] == 0x20 else { return .other }
        i += 1
        // The type: one or two letters, then blanks up to the process.
        let typeStart = i
        while i < n, i - typeStart < 2, isLetter(p[i]) { i += 1 }
        guard i > typeStart, i < n, p[i] == 0x20 else { return .other }
        while i < n, p[i] == 0x20 { i += 1 }
        let processStart = i
        guard let (open, close) = pidThread(b, from: processStart), open > processStart else { return .other }
        guard let pid = Timestamps.digits(p + open + 1, digitsAfter(b, open + 1)) else { return .malformed }
        var message = close + 1
        if message < n, p[message] == 0x20 { message += 1 }
        return .record(TextHeader(timeUS: nil, offset: nil, syslogStamp: nil, process: processStart..<open, pid: Int64(pid),
                                  device: nil, messageStart: skipLibraryAndSubsystem(b, from: message), localUS: stamp.localUS))
    }

    /// Xcode's debug console (NSLog's layout): `2023-04-11 16:02:55.081734+0100 Runner[1204:88312] message`
    /// (a zone; `process[pid:thread]`; no level, no host). Framework lines start the message
    /// with `[CoreLocation] ` (kept: the catalog knows it) or `[subsystem:category] ` (dropped,
    /// as in `log show`).
    static func xcodeConsole(_ b: UnsafeBufferPointer<UInt8>) -> TextLine {
        guard let p = b.baseAddress else { return .other }
        let n = b.count
        guard let stamp = Timestamps.parseISOLike(b) else { return .other }
        var i = stamp.length
        guard i + 1 < n, p[i] == 0x20, p[i + 1] != 0x20 else { return .other }
        i += 1
        let processStart = i
        guard let (open, close) = pidThread(b, from: processStart), open > processStart,
              p[open - 1] != 0x20, close + 1 == n || p[close + 1] == 0x20 else { return .other }
        guard let pid = Timestamps.digits(p + open + 1, digitsAfter(b, open + 1)) else { return .malformed }
        // `process[pid:thread]:` is not NSLog's (a `log show --style syslog` line has a host and no thread).
        let message = min(close + 2, n)
        return .record(TextHeader(timeUS: stamp.us, offset: stamp.offset, syslogStamp: nil, process: processStart..<open,
                                  pid: Int64(pid), device: nil, messageStart: skipLibraryAndSubsystem(b, from: message)))
    }

    /// `process[digits:thread]` from `from` on: the process name (at most 80 bytes, no tab, no
    /// colon, no two blanks in a row: an app's name may have one) up to the first `[`, then the
    /// pid and the thread (hex or decimal, at most 20 bytes): the positions of the brackets.
    static func pidThread(_ b: UnsafeBufferPointer<UInt8>, from: Int) -> (Int, Int)? {
        guard let p = b.baseAddress, from < b.count else { return nil }
        let n = b.count
        var open = from
        while open < n, open - from <= 80, p[open] != UInt8(ascii: "[") {
            let c = p[open]
            if c == 0x09 || c == UInt8(ascii: ":") || (c == 0x20 && open > from && p[open - 1] == 0x20) { return nil }
            open += 1
        }
        guard open < n, p[open] == UInt8(ascii: "[") else { return nil }
        let digits = digitsAfter(b, open + 1)
        var j = open + 1 + digits
        guard digits > 0, j < n, p[j] == UInt8(ascii: ":") else { return nil }
        j += 1
        let threadStart = j
        while j < n, j - threadStart <= 20, isHexDigit(p[j]) { j += 1 }
        guard j > threadStart, j < n, p[j] == UInt8(ascii: "]") else { return nil }
        return (open, j)
    }

    @inline(__always)
    private static func digitsAfter(_ b: UnsafeBufferPointer<UInt8>, _ from: Int) -> Int {
        var j = from
        while j < b.count, b[j] >= 48, b[j] <= 57 { j += 1 }
        return j - from
    }

    @inline(__always)
    private static func isLetter(_ c: UInt8) -> Bool { (c >= 65 && c <= 90) || (c >= 97 && c <= 122) }

    @inline(__always)
    private static func isHexDigit(_ c: UInt8) -> Bool { (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70) }
}

/// A test tool's prefix around each line of a container: QA pipelines save device logs
/// through Appium or `flutter run -v`, and the lines inside are one of the containers.
/// The file is read as the container inside; the source records the wrapper
/// (`sources.wrapper`). The tool's own lines (Appium's `[HTTP]`, flutter's build output)
/// are counted as skipped, `not-device`.
public enum Wrapper: String, CaseIterable, Codable, Sendable {
    /// Appium's server log or device log: `2021-03-02 09:14:07:512 - [IOSDeviceLog] LINE`
    /// (the server's stamp when `--log-timestamp` is on), `[IOSSimulatorLog] [IOS_SYSLOG_ROW] LINE`.
    case appium
    /// `flutter run -v`: `[        ] [DEVICE LOG] LINE`, `[  +12 ms] [DEVICE LOG] LINE`.
    case flutter

    /// How one line of a wrapped file reads.
    enum Line: Equatable {
        /// A device line: the container's line starts at this byte.
        case device(Int)
        /// A line of the tool's own.
        case tool
        /// No prefix: a line continuing the entry before it.
        case bare
    }

    /// Reads the wrapper's prefix of one line.
    func unwrap(_ b: UnsafeBufferPointer<UInt8>) -> Line {
        switch self {
        case .appium: Wrapper.appium(b)
        case .flutter: Wrapper.flutter(b)
        }
    }

    /// At most this many bracketed tags before the device tag (`[debug] [IOSDeviceLog]`).
    private static let maxTags = 4

    /// Appium: an optional `YYYY-MM-DD HH:MM:SS:mmm - ` stamp, then `[Tag] ` tags; a device
    /// line has the tag `IOSDeviceLog` or `IOSSimulatorLog` (also `…@id`), the simulator's
    /// followed by `[IOS_SYSLOG_ROW] `.
    static func appium(_ b: UnsafeBufferPointer<UInt8>) -> Line {
        guard let p = b.baseAddress else { return .bare }
        let n = b.count
        var i = 0
        let stamped = appiumStamp(b)
        if stamped { i = 26 }
        var tags = 0
        while tags < maxTags, i < n, p[i] == UInt8(ascii: "[") {
            var j = i + 1
            while j < n, j - i <= 64, isTagByte(p[j]) { j += 1 }
            guard j > i + 1, j < n, p[j] == UInt8(ascii: "]") else { break }
            let name = UnsafeBufferPointer(rebasing: b[(i + 1)..<j])
            i = j + 1
            if i < n, p[i] == 0x20 { i += 1 }
            tags += 1
            if hasTag(name, "IOSDeviceLog") || hasTag(name, "IOSSimulatorLog") {
                if TextHeaders.startsWith(UnsafeBufferPointer(rebasing: b[i...]), "[IOS_SYSLOG_ROW]") {
                    i += 16
                    if i < n, p[i] == 0x20 { i += 1 }
                }
                return .device(i)
            }
            // A tag must be followed by a blank or the end to be one.
            guard i == n || p[i - 1] == 0x20 else { return stamped ? .tool : .bare }
        }
        return stamped || tags > 0 ? .tool : .bare
    }

    /// `2021-03-02 09:14:07:512 - ` (milliseconds after a colon: Appium's own layout).
    static func appiumStamp(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let p = b.baseAddress, b.count >= 26 else { return false }
        return p[4] == UInt8(ascii: "-") && p[7] == UInt8(ascii: "-") && p[10] == 0x20 && p[13] == UInt8(ascii: ":")
            && p[16] == UInt8(ascii: ":") && p[19] == UInt8(ascii: ":") && p[23] == 0x20 && p[24] == UInt8(ascii: "-")
            && p[25] == 0x20 && Timestamps.isDigits(p, 4) && Timestamps.isDigits(p + 20, 3)
    }

    @inline(__always)
    private static func isTagByte(_ c: UInt8) -> Bool {
        (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == UInt8(ascii: "_")
            || c == UInt8(ascii: "-") || c == UInt8(ascii: "@") || c == UInt8(ascii: ".") || c == UInt8(ascii: ":")
    }

    /// `name` is `tag`, or `tag@…` (Appium 2 adds an instance id).
    private static func hasTag(_ name: UnsafeBufferPointer<UInt8>, _ tag: StaticString) -> Bool {
        let count = tag.utf8CodeUnitCount
        guard TextHeaders.startsWith(name, tag) else { return false }
        return name.count == count || name[count] == UInt8(ascii: "@")
    }

    /// flutter: `[` eight bytes of elapsed time (`        `, `  +12 ms`, `+1234 ms`) `] `, then
    /// `[DEVICE LOG] ` for a device line.
    static func flutter(_ b: UnsafeBufferPointer<UInt8>) -> Line {
        guard let p = b.baseAddress, b.count >= 10, p[0] == UInt8(ascii: "["), p[9] == UInt8(ascii: "]") else { return .bare }
        for k in 1...8 {
            let c = p[k]
            guard c == 0x20 || (c >= 48 && c <= 57) || c == UInt8(ascii: "+") || c == UInt8(ascii: "m") || c == UInt8(ascii: "s") else { return .bare }
        }
        guard b.count == 10 || p[10] == 0x20 else { return .bare }
        let rest = UnsafeBufferPointer(rebasing: b[min(11, b.count)...])
        if TextHeaders.startsWith(rest, "[DEVICE LOG]") {
            let i = 11 + 12
            return .device(i < b.count && p[i] == 0x20 ? i + 1 : i)
        }
        return .tool
    }

    /// The wrapper of a file, from its first lines: the first line that is not blank has the
    /// wrapper's prefix, and some line in the head is a device line, or the tool's shape is
    /// unambiguous without one (a log whose first 64 KiB are the tool's own lines): Appium's
    /// server stamp or its `[Appium]` banner on the first line; flutter's elapsed-time box on
    /// the first lines (at least three, nine in ten of them).
    static func detect(_ head: [UInt8]) -> Wrapper? {
        for wrapper in Wrapper.allCases {
            var first = true
            var devices = 0, shaped = 0, lines = 0
            var unambiguous = false
            var ok = true
            forEachLine(head, limit: 200) { b in
                let line = wrapper.unwrap(b)
                lines += 1
                if line != .bare { shaped += 1 }
                if first {
                    first = false
                    if line == .bare { ok = false; return false }
                    unambiguous = wrapper == .appium && (appiumStamp(b) || TextHeaders.startsWith(b, "[Appium] "))
                }
                if case .device = line { devices += 1 }
                return true
            }
            if wrapper == .flutter, lines >= 3, shaped * 10 >= lines * 9 { unambiguous = true }
            if ok, !first, devices > 0 || unambiguous { return wrapper }
        }
        return nil
    }

    /// The container of a wrapped file's device lines; if the head has none, the one the
    /// tool usually wraps (idevicesyslog for Appium's `IOSDeviceLog`, `log stream --style
    /// compact` for its `IOSSimulatorLog`, `log show --style syslog` for flutter).
    static func innerContainer(_ head: [UInt8], _ wrapper: Wrapper) -> Container {
        var inner: [UInt8] = []
        var simulator = false
        let simulatorTag = Array("[IOSSimulatorLog".utf8)
        forEachLine(head, limit: 400) { b in
            if case .device(let start) = wrapper.unwrap(b) {
                if !simulator, wrapper == .appium, simulatorTag.withUnsafeBufferPointer({ memmem(b.baseAddress, b.count, $0.baseAddress, $0.count) }) != nil { simulator = true }
                inner.append(contentsOf: UnsafeBufferPointer(rebasing: b[min(start, b.count)...]))
                inner.append(0x0a)
            }
            return true
        }
        if let found = Container.detectBare(inner), found.isTextLines { return found }
        switch wrapper {
        case .appium: return simulator ? .logCompact : .idevicesyslog
        case .flutter: return .logSyslog
        }
    }

    /// Calls `body` with each line of `head` that is not blank (its CR dropped), at most
    /// `limit` of them, until it returns false. A last line cut by the head's end is read too.
    private static func forEachLine(_ head: [UInt8], limit: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Bool) {
        head.withUnsafeBufferPointer { all in
            var start = 0
            var seen = 0
            while start < all.count, seen < limit {
                var end = start
                while end < all.count, all[end] != 0x0a, all[end] != 0 { end += 1 }
                var line = UnsafeBufferPointer(rebasing: all[start..<end])
                if let last = line.last, last == 0x0d { line = UnsafeBufferPointer(rebasing: line.dropLast()) }
                start = end + 1
                if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
                seen += 1
                if !body(line) { return }
            }
        }
    }
}
