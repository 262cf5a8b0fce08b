import Foundation
import LocAuditModel

/// The kinds of file locaudit reads, detected from their first bytes.
public enum Container: String, CaseIterable, Codable, Sendable {
    /// libimobiledevice's `idevicesyslog` text.
    case idevicesyslog
    /// `log show` / `log stream` default style.
    case logShow = "log-show"
    /// `log show --style syslog`.
    case logSyslog = "log-syslog"
    /// `log show --style ndjson` (one JSON object a line).
    case logNDJSON = "log-ndjson"
    /// `log show --style json` (one pretty-printed array).
    case logJSON = "log-json"
    /// iOS 15+ App Privacy Report export (`.ndjson`).
    case privacyReport = "privacy-report"
    /// An app's Info.plist (XML or binary).
    case infoPlist = "info-plist"
    /// `ideviceinfo` output: device facts.
    case deviceInfo = "ideviceinfo"
    /// A Console.app or Xcode device-console copy: times of day with an offset, no date, no pid.
    case console
    /// pymobiledevice3 `syslog live` text: the collecting host's local time, no zone.
    case pymobiledevice3
    /// pymobiledevice3 `syslog live --format json`: one object a line.
    case pymobiledevice3JSON = "pymobiledevice3-json"
    /// macOS `/var/log/system.log` (BSD syslog): no level, no year, no zone.
    case bsdSyslog = "bsd-syslog"
    /// The sysdiagnose MobileInstallation log: installs and uninstalls, device local time.
    case mobileInstallation = "mobile-installation"
    /// Messages without any prefix (Console's message column alone): no time, so no events.
    case messageOnly = "message-only"
    /// A sysdiagnose archive (tar, usually gzipped): its MobileInstallation logs are read.
    case sysdiagnose
    /// `log stream --style compact`: `2020-02-03 11:20:31.207 Df locationd[4410:1c2e0] message`,
    /// the host's local time without a zone.
    case logCompact = "log-compact"
    /// Xcode's debug console (an app's NSLog / os_log output as Xcode prints it):
    /// `2023-04-11 16:02:55.081734+0100 Runner[1204:88312] message`, no level.
    case xcodeConsole = "xcode-console"

    /// Whether the file holds log lines (as opposed to facts about a device or an app).
    public var isLog: Bool { self != .infoPlist && self != .deviceInfo }

    /// Whether the times carry their zone (an offset); if not, they are the device's local
    /// time: `--tz`, else the device's zone, else UTC assumed (and said).
    var stampsHaveZone: Bool {
        switch self {
        case .idevicesyslog, .bsdSyslog, .pymobiledevice3, .pymobiledevice3JSON, .mobileInstallation, .sysdiagnose, .logCompact: false
        default: true
        }
    }

    /// Whether the container's lines are text records read by a prefix parser (`TextHeaders`),
    /// so that a test tool can wrap them (`Wrapper`).
    public var isTextLines: Bool {
        switch self {
        case .idevicesyslog, .logShow, .logSyslog, .console, .pymobiledevice3, .bsdSyslog, .mobileInstallation, .logCompact, .xcodeConsole: true
        default: false
        }
    }

    /// Detects the container from the first bytes of the content; nil if none fits. A file
    /// saved by a test tool (`Wrapper`) is the container inside its prefixes.
    public static func detect(_ head: [UInt8]) -> Container? {
        detectWrapped(head)?.container
    }

    /// Detects the container and the test tool's wrapper around its lines, if any.
    public static func detectWrapped(_ head: [UInt8]) -> (container: Container, wrapper: Wrapper?)? {
        if let wrapper = Wrapper.detect(head) {
            return (Wrapper.innerContainer(head, wrapper), wrapper)
        }
        return detectBare(head).map { ($0, nil) }
    }

    /// Detects the container of lines that no test tool wrapped.
    static func detectBare(_ head: [UInt8]) -> Container? {
        if head.starts(with: Array("bplist00".utf8)) { return .infoPlist }
        if isTar(head) { return .sysdiagnose }
        let text = String(decoding: head.prefix(64 * 1024), as: UTF8.self)
        let trimmed = text.drop(while: { $0.isWhitespace || $0 == "\u{FEFF}" })
        if trimmed.hasPrefix("<?xml") || trimmed.hasPrefix("<!DOCTYPE plist") || trimmed.hasPrefix("<plist") {
            return .infoPlist
        }
        if trimmed.hasPrefix("["), let next = trimmed.dropFirst().first(where: { !$0.isWhitespace }), next == "{" || next == "]" {
            return .logJSON
        }
        var keyValueLines = 0
        var sawDeviceKey = false
        var sawSyslogStamp = false
        var sawMessage = false
        for raw in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\0" }).prefix(200) {
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) || LogBanner.isBanner(line) || line.hasPrefix("[connected")
                || line.hasPrefix("[disconnected") || line.hasPrefix("--- last message repeated") { continue }
            if line.hasPrefix("{") {
                if line.contains("\"accessor\"") || line.contains("\"networkActivity\"") || line.contains("\"timeStamp\"") {
                    return .privacyReport
                }
                if line.contains("\"eventMessage\"") || line.contains("\"processImagePath\"") || line.contains("\"finished\"") {
                    return .logNDJSON
                }
                if line.contains("\"mach_timestamp\"") || (line.contains("\"image_name\"") && line.contains("\"filename\"")) {
                    return .pymobiledevice3JSON
                }
                if line.hasPrefix("{\"msg\"") { sawMessage = true }
                continue
            }
            let bytes = Array(line.utf8)
            let isStamp = bytes.withUnsafeBufferPointer { Timestamps.parseISOLike($0) }
            func reads(_ header: (UnsafeBufferPointer<UInt8>) -> TextLine) -> Bool {
                if case .record = bytes.withUnsafeBufferPointer(header) { return true }
                return false
            }
            if let stamp = isStamp {
                // NSLog's `process[pid:thread] message` (Xcode's console) has no host and no `]:`.
                if reads(TextHeaders.xcodeConsole) { return .xcodeConsole }
                let rest = line.utf8.dropFirst(stamp.length).drop(while: { $0 == 0x20 })
                return rest.starts(with: Array("0x".utf8)) ? .logShow : .logSyslog
            }
            if reads(TextHeaders.pymobiledevice3) { return .pymobiledevice3 }
            if reads(TextHeaders.logCompact) { return .logCompact }
            // idevicesyslog and system.log share the stamp; `[pid] <Level>:` or not tells them apart.
            if bytes.count >= 15, bytes.withUnsafeBufferPointer({ Timestamps.parseSyslogStamp($0.baseAddress!, $0.count) }) != nil {
                if reads(TextHeaders.idevicesyslog) { return .idevicesyslog }
                if reads(TextHeaders.bsdSyslog) { return .bsdSyslog }
                sawSyslogStamp = true
                continue
            }
            if reads(TextHeaders.mobileInstallation) { return .mobileInstallation }
            if reads(TextHeaders.console) { return .console }
            if let colon = line.firstIndex(of: ":"), line[line.index(after: colon)...].hasPrefix(" ") || line.index(after: colon) == line.endIndex,
               line[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) {
                keyValueLines += 1
                let key = line[..<colon]
                if key == "UniqueDeviceID" || key == "ProductVersion" || key == "ProductType" { sawDeviceKey = true }
                continue
            }
        }
        // Stamps without a record of either kind: the idevicesyslog parser says what it finds.
        if sawSyslogStamp { return .idevicesyslog }
        if sawDeviceKey && keyValueLines > 0 { return .deviceInfo }
        // CoreLocation's `{"msg":…}` messages with no prefix, in a text file: the message column alone.
        if sawMessage, !head.contains(where: { $0 < 0x20 && $0 != 0x09 && $0 != 0x0a && $0 != 0x0d }) { return .messageOnly }
        return nil
    }

    /// A tar archive: a first header with the ustar magic and a checksum that matches.
    static func isTar(_ head: [UInt8]) -> Bool {
        guard head.count >= 512, head[257..<262].elementsEqual("ustar".utf8) else { return false }
        var sum = 0
        for k in 0..<512 { sum += (148..<156).contains(k) ? 0x20 : Int(head[k]) }
        let field = head[148..<156].filter { $0 >= 48 && $0 <= 55 }
        return !field.isEmpty && field.count <= 8 && field.reduce(0, { $0 * 8 + Int($1 - 48) }) == sum
    }
}

/// The lines `log show` and `log stream` print around the records.
enum LogBanner {
    static func isBanner<S: StringProtocol>(_ line: S) -> Bool {
        line.hasPrefix("Filtering the log data") || line.hasPrefix("Skipping info and debug messages")
            || line.hasPrefix("Timestamp ") || line.hasPrefix("Timestamp\t") || line.hasPrefix("Log      -")
            || line.hasPrefix("Activity - ") || line.hasPrefix("Boundary - ")
            || line.hasPrefix("--------------------") || line.hasPrefix("Getting the log data")
    }

    static let prefixes: [[UInt8]] = ["Filtering the log data", "Skipping info and debug messages", "Timestamp ",
                                      "Timestamp\t", "Log      -", "Activity - ", "Boundary - ", "--------------------", "Getting the log data"].map { Array($0.utf8) }

    @inline(__always)
    static func isBanner(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = line.first, first == UInt8(ascii: "F") || first == UInt8(ascii: "S") || first == UInt8(ascii: "T")
                || first == UInt8(ascii: "L") || first == UInt8(ascii: "-") || first == UInt8(ascii: "G")
                || first == UInt8(ascii: "A") || first == UInt8(ascii: "B") else { return false }
        return prefixes.contains { p in p.count <= line.count && memcmp(line.baseAddress!, p, p.count) == 0 }
    }
}
