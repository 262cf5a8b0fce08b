import Crypto
import Foundation

/// A finding's stable identity: the same logs give the same fingerprint in any database.
enum Fingerprint {
    static func of(_ identity: String) -> String {
        SHA256.hash(data: Data(identity.utf8)).prefix(12).map { String(format: "%02x", $0) }.joined()
    }
}

/// Findings accepted as known (`--write-baseline`), hidden by later audits (`--baseline`).
public struct Baseline: Codable, Sendable {
    public struct Entry: Codable, Sendable {
        public var fingerprint: String
        public var rule: String
        public var device: String
        public var bundleId: String
        public var message: String
    }

    public var version = 1
    public var findings: [Entry]

    var fingerprints: Set<String> { Set(findings.map(\.fingerprint)) }

    init(findings: [Finding]) {
        self.findings = findings.map {
            Entry(fingerprint: $0.fingerprint, rule: $0.rule, device: $0.device, bundleId: $0.bundleId, message: $0.message)
        }
    }

    static func read(_ path: String) throws -> Baseline {
        do {
            return try JSONDecoder().decode(Baseline.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        } catch let error as DecodingError {
            throw AuditError.unreadableBaseline(path, "not a locaudit baseline (\(error.localizedDescription))")
        } catch {
            throw AuditError.unreadableBaseline(path, error.localizedDescription)
        }
    }

    /// Writes the baseline as reports are written (`Output`): never half a file, never over a device.
    func write(to path: String) throws {
        try Output.write(try Output.json(self, what: "the baseline"), to: path)
    }
}
