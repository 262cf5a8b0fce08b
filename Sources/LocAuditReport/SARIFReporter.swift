import Foundation
import LocAuditModel
import LocAuditRules
import LocAuditRead

/// SARIF 2.1.0 for GitHub code scanning and other SARIF viewers: the rules of the findings
/// in `tool.driver.rules` (what each flags, why, what to do as its help, Apple's first page as
/// its help URI, owner and severity as properties), one result per finding with its evidence
/// lines as locations and its fingerprint as `partialFingerprints["locaudit/v1"]`, so that a
/// viewer knows a finding again from night to night. Valid against the OASIS schema
/// (Tests/LocAuditKitTests/Fixtures/sarif).
public enum SARIFReporter {
    /// The schema's own id: SARIF 2.1.0 with its first errata.
    static let schema = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
    /// A result's locations beyond these are left out (GitHub reads at most 1000, and shows the first).
    static let maxLocations = 1000

    public static func generateReport(_ report: AuditReport, options: ReportOptions = ReportOptions()) throws -> String {
        let rules = ReportText.rules(of: report.findings)
        let index = Dictionary(rules.enumerated().map { ($1.identifier, $0) }, uniquingKeysWith: { a, _ in a })
        let log = Log(runs: [Run(
            tool: Tool(driver: Driver(version: options.version, rules: rules.map(ReportingDescriptor.init))),
            results: report.findings.map { Result($0, ruleIndex: index[$0.rule], report: report) },
            properties: RunProperties(runId: report.runId, startedAt: report.startedAt, verdict: report.verdict.rawValue)
        )])
        return try Output.json(log, what: "the SARIF report") + "\n"
    }

    /// SARIF's level for a severity: critical and high are errors, medium a warning, low and info notes.
    static func level(_ s: Severity) -> String {
        switch s {
        case .critical, .high: return "error"
        case .medium: return "warning"
        case .low, .info: return "note"
        }
    }

    /// A URI reference for a file path: percent-encoded, an absolute path as a `file://` URI.
    static func uri(_ path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: ":;")
        let encoded = path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path
        return path.hasPrefix("/") ? "file://" + encoded : encoded
    }

    struct Log: Encodable {
        var schema = SARIFReporter.schema
        var version = "2.1.0"
        var runs: [Run]
        enum CodingKeys: String, CodingKey { case schema = "$schema", version, runs }
    }

    struct Run: Encodable {
        var tool: Tool
        var results: [Result]
        var columnKind = "unicodeCodePoints"
        var properties: RunProperties
    }

    struct RunProperties: Encodable {
        var runId: Int64
        var startedAt: String
        var verdict: String
    }

    struct Tool: Encodable { var driver: Driver }

    struct Driver: Encodable {
        var name = "locaudit"
        var version: String
        var informationUri = "https://developer.apple.com/documentation/corelocation"
        var rules: [ReportingDescriptor]
    }

    struct Message: Encodable {
        var text: String
        var markdown: String?
    }

    struct ReportingDescriptor: Encodable {
        var id: String
        var name: String
        var shortDescription: Message
        var fullDescription: Message
        var help: Message
        var helpUri: String?
        var defaultConfiguration: Configuration
        var properties: Properties

        struct Configuration: Encodable { var level: String }
        struct Properties: Encodable {
            var owner: String
            var ownerLabel: String
            var severity: String
            var scope: String
            var sources: [String]
            var tags: [String]
        }

        init(_ r: RuleDescription) {
            id = r.identifier
            // `missing-blue-bar` -> `MissingBlueBar`.
            name = r.identifier.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
            shortDescription = Message(text: r.description)
            fullDescription = Message(text: r.rationale.split(whereSeparator: \.isNewline).joined(separator: " "))
            help = Message(text: "Owner: \(r.owner.label). \(r.whatToDo)",
                           markdown: "**Owner:** \(r.owner.label)\n\n**What to do:** \(r.whatToDo)\n\n"
                               + r.sources.map { "- \($0)" }.joined(separator: "\n"))
            helpUri = r.helpURL
            defaultConfiguration = Configuration(level: SARIFReporter.level(r.severity))
            properties = Properties(owner: r.owner.rawValue, ownerLabel: r.owner.label, severity: r.severity.rawValue,
                                    scope: r.scope.rawValue, sources: r.sources, tags: ["location-authorization", "owner-" + r.owner.rawValue])
        }
    }

    struct Result: Encodable {
        var ruleId: String
        var ruleIndex: Int?
        var level: String
        var message: Message
        var locations: [Location]?
        var partialFingerprints: [String: String]
        /// A finding the project's config accepts: an external suppression with its reason.
        var suppressions: [Suppression]?
        var properties: Properties

        struct Suppression: Encodable {
            var kind = "external"
            var justification: String
        }

        struct Properties: Encodable {
            var severity: String
            var device: String
            var deviceName: String?
            var bundleId: String
            var appVersion: String?
            var osVersion: String?
            var pid: Int64?
            var sessionStart: String?
            var time: String
            var change: String
        }

        init(_ f: Finding, ruleIndex: Int?, report: AuditReport) {
            ruleId = f.rule
            self.ruleIndex = ruleIndex
            level = SARIFReporter.level(f.severity)
            let place = f.sessionStart.map { "session pid \(f.pid.map(String.init) ?? "-") from \($0)" } ?? "configuration"
            message = Message(text: "\(f.message) (\(f.bundleId)\(f.appVersionText.map { " " + $0 } ?? "") on \(report.deviceText(f)), "
                + "\(place)\(f.osVersion.map { ", iOS " + $0 } ?? ""))")
            let evidence = f.evidence.prefix(SARIFReporter.maxLocations).map(Location.init)
            locations = evidence.isEmpty ? nil : evidence
            partialFingerprints = ["locaudit/v1": f.fingerprint]
            suppressions = f.suppressed.map { [Suppression(justification: $0.text)] }
            properties = Properties(severity: f.severity.rawValue, device: f.device, deviceName: f.deviceName ?? report.devices[f.device]?.name,
                                    bundleId: f.bundleId, appVersion: f.appVersionText, osVersion: f.osVersion, pid: f.pid,
                                    sessionStart: f.sessionStart, time: f.time, change: ReportText.change(f, in: report))
        }
    }

    struct Location: Encodable {
        var physicalLocation: PhysicalLocation

        struct PhysicalLocation: Encodable {
            var artifactLocation: ArtifactLocation
            var region: Region?
        }
        struct ArtifactLocation: Encodable { var uri: String }
        struct Region: Encodable { var startLine: Int }

        init(_ line: EvidenceLine) {
            physicalLocation = PhysicalLocation(artifactLocation: ArtifactLocation(uri: SARIFReporter.uri(line.file)),
                                                region: line.line.flatMap { $0 >= 1 ? Region(startLine: $0) : nil })
        }
    }
}
