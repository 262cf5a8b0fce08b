import Foundation

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

    /// Whether the file holds log lines (as opposed to facts about a device or an app).
    public var isLog: Bool { self != .infoPlist && self != .deviceInfo }

    /// Detects the container from the first bytes of the content; nil if none fits.
    public static func detect(_ head: [UInt8]) -> Container? {
        if head.starts(with: Array("bplist00".utf8)) { return .infoPlist }
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
        for raw in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\0" }).prefix(200) {
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
                continue
            }
            let bytes = Array(line.utf8)
            let isStamp = bytes.withUnsafeBufferPointer { Timestamps.parseISOLike($0) }
            if let stamp = isStamp {
                let rest = line.utf8.dropFirst(stamp.length).drop(while: { $0 == 0x20 })
                return rest.starts(with: Array("0x".utf8)) ? .logShow : .logSyslog
            }
            if bytes.withUnsafeBufferPointer({ Timestamps.parseSyslogStamp($0.baseAddress!, $0.count) }) != nil {
                return .idevicesyslog
            }
            if let colon = line.firstIndex(of: ":"), line[line.index(after: colon)...].hasPrefix(" ") || line.index(after: colon) == line.endIndex,
               line[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) {
                keyValueLines += 1
                let key = line[..<colon]
                if key == "UniqueDeviceID" || key == "ProductVersion" || key == "ProductType" { sawDeviceKey = true }
                continue
            }
        }
        if sawDeviceKey && keyValueLines > 0 { return .deviceInfo }
        return nil
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
