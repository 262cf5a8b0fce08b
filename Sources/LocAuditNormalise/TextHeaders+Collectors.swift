import Foundation
import LocAuditModel

/// The prefix parsers of the containers that other collectors write: Console.app copies,
/// pymobiledevice3, macOS `system.log`, and the sysdiagnose MobileInstallation log. Like
/// the others, each looks at a few bytes of every line and checks every index it reads.
extension TextHeaders {
    private static let tab = UInt8(ascii: "\t")

    /// A Console.app / Xcode copy: `[type\t]HH:MM:SS.ffffff[ ]±HHMM\tprocess\t[library\t]message`.
    ///
    /// The type column, when there, is any short word (Console localises it); the time is
    /// the anchor. The library column is a word of name characters followed by a tab. A line
    /// that is not of this shape continues the record above it (multi-line messages).
    static func console(_ b: UnsafeBufferPointer<UInt8>) -> TextLine {
        guard let p = b.baseAddress, b.count > 0 else { return .other }
        let n = b.count
        var i = 0
        if !(p[0] >= 48 && p[0] <= 57) {
            // The type column: up to 32 bytes, then a tab.
            let limit = min(n, 33)
            while i < limit, p[i] != tab { i += 1 }
            guard i > 0, i < limit, p[i] == tab else { return .other }
            i += 1
        }
        guard let time = LocalTime.timeOfDay(p + i, n - i) else {
            return LocalTime.looksLikeClock(p + i, n - i, at: 0) && memchr(p + i, Int32(tab), n - i) != nil ? .badTimestamp : .other
        }
        i += time.length
        guard i < n, p[i] == tab else { return .other }
        i += 1
        let processStart = i
        while i < n, p[i] != tab { i += 1 }
        guard i > processStart else { return .other }
        let process = processStart..<i
        i = min(i + 1, n)
        var j = i
        while j < n, j - i < 80, isNameByte(p[j]) { j += 1 }
        if j > i, j < n, p[j] == tab { i = j + 1 }
        return .record(TextHeader(timeUS: nil, offset: time.offset, syslogStamp: nil, process: process,
                                  pid: nil, device: nil, messageStart: i, dayUS: time.us))
    }

    @inline(__always)
    private static func isNameByte(_ c: UInt8) -> Bool {
        (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)
            || c == UInt8(ascii: ".") || c == UInt8(ascii: "_") || c == UInt8(ascii: "-") || c == UInt8(ascii: "+")
    }

    /// pymobiledevice3 `syslog live`: `2026-11-20 09:00:00.123456 locationd{CoreLocation}[64] <NOTICE>: message`
    /// (no zone; no fraction when it is zero; `{}` for no image, `{image+0x1a2b}` with
    /// `--image-offset`; an optional ` [subsystem][category]` label after the message,
    /// which `RecordParser` strips).
    static func pymobiledevice3(_ b: UnsafeBufferPointer<UInt8>) -> TextLine {
        guard let p = b.baseAddress else { return .other }
        let n = b.count
        guard let stamp = LocalTime.dateTime(p, n) else {
            return LocalTime.looksLikeDateTime(p, n) && levelMarker(b, from: 0) != nil ? .badTimestamp : .other
        }
        let start = stamp.length + 1
        guard start < n, p[stamp.length] == 0x20,
              let (pidOpen, pidClose, messageStart) = levelMarker(b, from: start),
              pidOpen > start, p[pidOpen - 1] == UInt8(ascii: "}") else { return .other }
        var brace = pidOpen - 1
        while brace > start, p[brace] != UInt8(ascii: "{") { brace -= 1 }
        guard p[brace] == UInt8(ascii: "{"), brace > start else { return .other }
        let pid = Timestamps.digits(p + pidOpen + 1, pidClose - pidOpen - 1).map(Int64.init)
        return .record(TextHeader(timeUS: nil, offset: nil, syslogStamp: nil, process: start..<brace,
                                  pid: pid, device: nil, messageStart: messageStart, localUS: stamp.localUS))
    }

    /// macOS `/var/log/system.log` (BSD syslog): `Jul  1 09:00:32 host process[pid]: message`,
    /// no level. The host is not kept (a Mac's changes with its network). launchd and
    /// sandboxd put a detail in parentheses after the pid (`sandboxd[129] ([31211]): …`): it
    /// stays in the message. idevicesyslog's `[pid] <Level>:` is not this container.
    static func bsdSyslog(_ b: UnsafeBufferPointer<UInt8>) -> TextLine {
        guard let p = b.baseAddress else { return .other }
        let n = b.count
        guard let stamp = Timestamps.parseSyslogStamp(p, n) else {
            return n > 16 && p[3] == 0x20 && p[6] == 0x20 && pidColon(b, from: 0) != nil ? .badTimestamp : .other
        }
        guard n > 16, p[15] == 0x20 else { return .other }
        var i = 16
        while i < n, p[i] != 0x20 { i += 1 }
        guard i > 16, i + 1 < n else { return .other }
        i += 1
        if startsWith(UnsafeBufferPointer(rebasing: b[i...]), "--- last message repeated") { return .noise }
        guard let (open, close, messageStart) = pidColon(b, from: i), open > i else { return .other }
        let pid = Timestamps.digits(p + open + 1, close - open - 1).map(Int64.init)
        return .record(TextHeader(timeUS: nil, offset: nil, syslogStamp: stamp, process: i..<open,
                                  pid: pid, device: nil, messageStart: messageStart))
    }

    /// The first `[digits]` followed by `: ` or ` (`: its brackets and the message start.
    private static func pidColon(_ b: UnsafeBufferPointer<UInt8>, from: Int) -> (Int, Int, Int)? {
        guard let p = b.baseAddress else { return nil }
        let n = b.count
        var i = from
        while i < n {
            guard let hit = memchr(p + i, Int32(UInt8(ascii: "[")), n - i) else { return nil }
            let open = UnsafePointer<UInt8>(hit.assumingMemoryBound(to: UInt8.self)) - p
            var close = open + 1
            while close < n, p[close] >= 48, p[close] <= 57 { close += 1 }
            if close > open + 1, close + 1 < n, p[close] == UInt8(ascii: "]") {
                if p[close + 1] == UInt8(ascii: ":") {
                    return (open, close, close + 2 < n && p[close + 2] == 0x20 ? close + 3 : close + 2)
                }
                if close + 2 < n, p[close + 1] == 0x20, p[close + 2] == UInt8(ascii: "(") { return (open, close, close + 2) }
                if p[close + 1] == 0x20, close + 2 < n, p[close + 2] == UInt8(ascii: "<") { return nil } // idevicesyslog
            }
            i = open + 1
        }
        return nil
    }

    /// The sysdiagnose MobileInstallation log:
    /// `Mon Apr  7 06:13:34 2025 [234] <notice> (0x16b48f000) -[MIInstaller …]: message`
    /// (device local time, no zone). The process is installd. The message is spelled as
    /// installd's lines in the live log spell it, `0x16b48f000 -[MIInstaller …]: message`:
    /// the parentheses around the thread are left out.
    static func mobileInstallation(_ b: UnsafeBufferPointer<UInt8>) -> TextLine {
        guard let p = b.baseAddress else { return .other }
        let n = b.count
        guard let stamp = LocalTime.ctime(p, n) else {
            return n > 26 && p[3] == 0x20 && p[19] == 0x20 && startsWith(UnsafeBufferPointer(rebasing: b[24...]), " [") ? .badTimestamp : .other
        }
        var i = stamp.length
        guard i + 2 < n, p[i] == 0x20, p[i + 1] == UInt8(ascii: "[") else { return .other }
        let open = i + 1
        i = open + 1
        while i < n, p[i] >= 48, p[i] <= 57 { i += 1 }
        guard i > open + 1, i + 2 < n, p[i] == UInt8(ascii: "]"), p[i + 1] == 0x20, p[i + 2] == UInt8(ascii: "<") else { return .other }
        let pid = Timestamps.digits(p + open + 1, i - open - 1).map(Int64.init)
        i += 3
        while i < n, p[i] != UInt8(ascii: ">"), p[i] != 0x20 { i += 1 }
        guard i < n, p[i] == UInt8(ascii: ">") else { return .other }
        i += 1
        if i < n, p[i] == 0x20 { i += 1 }
        var dropped: Range<Int>? = nil
        if i + 2 < n, p[i] == UInt8(ascii: "("), p[i + 1] == UInt8(ascii: "0"), p[i + 2] == UInt8(ascii: "x") {
            var close = i + 3
            while close < n, close - i < 40, p[close] != UInt8(ascii: ")") { close += 1 }
            if close < n, p[close] == UInt8(ascii: ")") {
                i += 1
                dropped = close..<(close + 1)
            }
        }
        return .record(TextHeader(timeUS: nil, offset: nil, syslogStamp: nil, process: 0..<0, pid: pid, device: nil,
                                  messageStart: i, localUS: stamp.localUS, dropped: dropped))
    }
}
