import Foundation
import LocAuditModel
import LocAuditRules
import Yams

/// The project's `.locaudit.yml`, as SwiftLint reads `.swiftlint.yml`: found from the working
/// directory upward, or given by `--config`. Flags on the command line win over it.
///
/// ```yaml
/// fail-on: high
/// skip-rules: [deprecated-usage-key]
/// reduced-accuracy-floor: 1000
/// background-grace: 10
/// reports: ["html:out/audit.html", "sarif:out/locaudit.sarif"]
/// suppressions:
///   - rule: missing-blue-bar
///     app: com.example.runner
///     device: qa-iphone6plus-12      # optional: a name or UDID
///     ios: "13...14"                 # optional: 13, 13.7, 13...14 (bounds included)
///     reason: "FB13579: iOS 13.7 shows no pill on this device model"
///     expires: 2027-06-30            # optional: the last day it holds
/// ```
public struct ProjectConfig: Sendable, Equatable {
    public static let fileName = ".locaudit.yml"
    /// Larger than any real config: a file this big is not one.
    static let maxBytes = 1 << 20

    public var path: String
    public var failOn: Severity?
    public var skipRules: [String] = []
    public var reducedAccuracyFloor: Double?
    public var backgroundGrace: Double?
    /// `FORMAT[:PATH]`, each with the line it is on (the command layer reads the format).
    public var reports: [(text: String, line: Int)] = []
    public var suppressions: [Suppression] = []

    public static func == (a: ProjectConfig, b: ProjectConfig) -> Bool {
        a.path == b.path && a.failOn == b.failOn && a.skipRules == b.skipRules && a.reducedAccuracyFloor == b.reducedAccuracyFloor
            && a.backgroundGrace == b.backgroundGrace && a.reports.map(\.text) == b.reports.map(\.text) && a.suppressions == b.suppressions
    }

    /// The audit options the config sets (skipped rules, rule settings, suppressions), for a
    /// run whose command line sets none of them.
    public var auditOptions: AuditOptions {
        var options = AuditOptions()
        options.skipRules = skipRules
        if let failOn { options.failOn = failOn }
        if let floor = reducedAccuracyFloor { options.settings.reducedAccuracyFloor = floor }
        if let grace = backgroundGrace { options.settings.backgroundGrace = grace }
        options.suppressions = suppressions
        return options
    }

    /// `.locaudit.yml` in `directory` or the nearest folder above it; nil when none has one.
    public static func find(from directory: String = FileManager.default.currentDirectoryPath) -> String? {
        var url = URL(fileURLWithPath: directory).standardizedFileURL
        // A path has finitely many parents: at most as many as it has components.
        for _ in 0...url.pathComponents.count {
            let candidate = url.appendingPathComponent(fileName).path
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
            let parent = url.deletingLastPathComponent()
            if parent.path == url.path { break }
            url = parent
        }
        return nil
    }

    /// Reads the file at `path`: a key, rule or value it does not know is an error naming its line.
    public static func load(_ path: String) throws -> ProjectConfig {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigError(path: path, line: nil, "cannot be read: no such file or not readable.")
        }
        guard data.count <= maxBytes else { throw ConfigError(path: path, line: nil, "is over 1 MB: not a locaudit config.") }
        guard let text = String(data: data, encoding: .utf8) else { throw ConfigError(path: path, line: nil, "is not UTF-8 text.") }
        return try parse(text, path: path)
    }

    static func parse(_ text: String, path: String) throws -> ProjectConfig {
        var config = ProjectConfig(path: path)
        let root: Node?
        do { root = try Yams.compose(yaml: text) } catch let error as YamlError {
            throw ConfigError(path: path, line: ConfigError.line(of: error), "is not YAML: \(error)")
        }
        guard let root else { return config } // an empty file
        guard let mapping = root.mapping else { throw ConfigError(path: path, line: root.mark?.line, "must be a mapping of keys (fail-on:, suppressions:, …).") }
        let rules = Set(RuleRegistry.descriptions.map(\.identifier))
        func fail(_ node: Node, _ message: String) -> ConfigError { ConfigError(path: path, line: node.mark?.line, message) }
        func string(_ node: Node, _ key: String) throws -> String {
            guard let value = node.scalar?.string, !value.isEmpty else { throw fail(node, "\(key) takes a text value.") }
            return value
        }
        func number(_ node: Node, _ key: String, _ valid: ClosedRange<Double>) throws -> Double {
            guard let value = node.scalar.flatMap({ Double($0.string) }), value.isFinite, valid.contains(value) else {
                throw fail(node, "\(key) takes a number from \(valid.lowerBound) to \(valid.upperBound).")
            }
            return value
        }
        func rule(_ node: Node, _ key: String) throws -> String {
            let id = try string(node, key)
            guard rules.contains(id) else { throw fail(node, "unknown rule '\(id)'\(Nearest.suggestion(Nearest.names(to: id, among: Array(rules)))); `locaudit rules` lists them.") }
            return id
        }
        func list(_ node: Node) -> [Node] { node.sequence.map(Array.init) ?? [node] }
        for (keyNode, value) in mapping {
            let key = keyNode.scalar?.string ?? ""
            switch key {
            case "fail-on":
                let text = try string(value, key)
                guard let severity = Severity(rawValue: text) else {
                    throw fail(value, "fail-on takes \(Severity.allCases.map(\.rawValue).joined(separator: ", ")) (got '\(text)').")
                }
                config.failOn = severity
            case "skip-rules":
                config.skipRules = try list(value).map { try rule($0, key) }
            case "reduced-accuracy-floor":
                config.reducedAccuracyFloor = try number(value, key, 0.001...1_000_000)
            case "background-grace":
                config.backgroundGrace = try number(value, key, 0...86_400)
            case "reports":
                config.reports = try list(value).map { (try string($0, key), $0.mark?.line ?? 0) }
            case "suppressions":
                guard let items = value.sequence else { throw fail(value, "suppressions takes a list (- rule: …).") }
                config.suppressions = try items.map { try suppression($0) }
            default:
                let known = ["fail-on", "skip-rules", "reduced-accuracy-floor", "background-grace", "reports", "suppressions"]
                throw fail(keyNode, "unknown key '\(key)'\(Nearest.suggestion(Nearest.names(to: key, among: known))); the keys are \(known.joined(separator: ", ")).")
            }
        }
        return config

        func suppression(_ node: Node) throws -> Suppression {
            guard let fields = node.mapping else { throw fail(node, "a suppression is a mapping (rule:, app:, reason:, …).") }
            var values: [String: Node] = [:]
            let known = ["rule", "app", "device", "ios", "reason", "expires"]
            for (keyNode, value) in fields {
                let key = keyNode.scalar?.string ?? ""
                guard known.contains(key) else {
                    throw fail(keyNode, "unknown key '\(key)' in a suppression\(Nearest.suggestion(Nearest.names(to: key, among: known))); its keys are \(known.joined(separator: ", ")).")
                }
                values[key] = value
            }
            for needed in ["rule", "app", "reason"] where values[needed] == nil {
                throw fail(node, "a suppression needs \(needed): (rule, app and reason are required).")
            }
            var expires: CivilDate? = nil
            if let value = values["expires"] {
                guard let date = CivilDate(try string(value, "expires")) else { throw fail(value, "expires takes a day, YYYY-MM-DD.") }
                expires = date
            }
            var ios: IOSRange? = nil
            if let value = values["ios"] {
                guard let range = IOSRange(try string(value, "ios")) else { throw fail(value, "ios takes a version (17, 17.4) or a range (13...15).") }
                ios = range
            }
            return Suppression(rule: try rule(values["rule"]!, "rule"), app: try string(values["app"]!, "app"),
                               device: try values["device"].map { try string($0, "device") }, ios: ios,
                               reason: try string(values["reason"]!, "reason"), expires: expires,
                               source: "\(path):\(node.mark?.line ?? 0)")
        }
    }
}

/// A config file that cannot be used: a usage error (exit 2) naming the file and line.
public struct ConfigError: Error, CustomStringConvertible, Sendable {
    public var path: String
    public var line: Int?
    public var message: String

    package init(path: String, line: Int?, _ message: String) {
        (self.path, self.line, self.message) = (path, line, message)
    }

    public var description: String { "\(path)\(line.map { ":\($0)" } ?? ""): \(message)" }
    public var exitCode: Int32 { 2 }

    static func line(of error: YamlError) -> Int? {
        switch error {
        case .scanner(_, _, let mark, _), .parser(_, _, let mark, _), .composer(_, _, let mark, _): return mark.line
        default: return nil
        }
    }
}
