import LocAuditModel

/// A finding the team has accepted for now (`.locaudit.yml`, `suppressions:`): reported as
/// suppressed with its reason, and it does not fail the run until it expires.
public struct Suppression: Sendable, Equatable {
    public var rule: String
    /// The app's bundle id.
    public var app: String
    /// A device id (UDID), or a device name; nil: every device.
    public var device: String?
    /// The iOS versions: nil every version.
    public var ios: IOSRange?
    public var reason: String
    /// The last day it holds (`YYYY-MM-DD`, UTC); nil: no end.
    public var expires: CivilDate?
    /// Where it is written (`.locaudit.yml:12`), for messages.
    public var source: String

    public init(rule: String, app: String, device: String? = nil, ios: IOSRange? = nil, reason: String, expires: CivilDate? = nil, source: String) {
        (self.rule, self.app, self.device, self.ios, self.reason, self.expires, self.source) = (rule, app, device, ios, reason, expires, source)
    }

    /// Whether it has expired on `today` (it holds through its `expires` day).
    public func expired(on today: CivilDate) -> Bool { expires.map { $0.days < today.days } ?? false }

    /// Whether it covers `finding`; `deviceIds` are the ids its `device` designates (its
    /// name resolved by the store), nil when it names none.
    public func covers(_ finding: Finding, deviceIds: Set<String>?) -> Bool {
        guard finding.rule == rule, finding.bundleId == app else { return false }
        if let deviceIds, !deviceIds.contains(finding.device) { return false }
        if let ios {
            guard let version = IOSVersion(finding.osVersion), ios.contains(version) else { return false }
        }
        return true
    }

    /// The text of an expired suppression's warning.
    public var expiredWarning: String {
        "\(source): the suppression of \(rule) for \(app)\(device.map { " on \($0)" } ?? "") expired on \(expires.map { "\($0)" } ?? "?"): its findings count again. Renew it (a new expires:) or remove it."
    }
}

/// `13`, `13.7`, `13...15`, `17.4...17.6.1`: versions by prefix, bounds included (`13...15`
/// holds 13.0 to every 15.x).
public struct IOSRange: Sendable, Equatable, CustomStringConvertible {
    public var lower: [Int]
    public var upper: [Int]
    public var description: String

    public init?(_ text: String) {
        let bounds = text.components(separatedBy: "...")
        guard (1...2).contains(bounds.count) else { return nil }
        func parts(_ s: String) -> [Int]? {
            let trimmed = s.trimmingCharacters(in: .whitespaces)
            guard IOSVersion(trimmed) != nil else { return nil }
            return trimmed.split(separator: ".").compactMap { Int($0) }
        }
        guard let lower = parts(bounds[0]), let upper = parts(bounds.last!) else { return nil }
        guard IOSRange.compare(upper, lower, prefix: upper.count) >= 0 else { return nil }
        (self.lower, self.upper, self.description) = (lower, upper, text)
    }

    public func contains(_ version: IOSVersion) -> Bool {
        let v = [version.major, version.minor, version.patch]
        return IOSRange.compare(v, lower, prefix: lower.count) >= 0 && IOSRange.compare(v, upper, prefix: upper.count) <= 0
    }

    /// Compares the first `prefix` components of `a` with `b`.
    private static func compare(_ a: [Int], _ b: [Int], prefix: Int) -> Int {
        for i in 0..<prefix {
            let x = i < a.count ? a[i] : 0, y = i < b.count ? b[i] : 0
            if x != y { return x < y ? -1 : 1 }
        }
        return 0
    }
}

extension Suppression {
    /// `findings` with those a suppression in force on `today` covers marked suppressed (the
    /// first that covers one names it); expired suppressions mark nothing. `deviceIds` gives,
    /// for each suppression's `device`, the ids it designates.
    public static func mark(_ findings: [Finding], with suppressions: [Suppression], deviceIds: [String: Set<String>], today: CivilDate) -> [Finding] {
        let inForce = suppressions.filter { !$0.expired(on: today) }
        guard !inForce.isEmpty else { return findings }
        return findings.map { finding in
            var finding = finding
            if let s = inForce.first(where: { $0.covers(finding, deviceIds: $0.device.map { deviceIds[$0] ?? [$0] }) }) {
                finding.suppressed = SuppressionNote(reason: s.reason, expires: s.expires?.description, source: s.source)
            }
            return finding
        }
    }
}
