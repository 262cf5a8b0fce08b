import Crypto
import Foundation
import LocAuditModel
import LocAuditRules
import LocAuditRead

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
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            // Said from what the file is, not from Foundation's error.
            var isDirectory: ObjCBool = false
            let why = !FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) ? "no such file"
                : isDirectory.boolValue ? "it is a folder, not a file" : "this user cannot read it"
            throw AuditError.unreadableBaseline(path, why)
        }
        do {
            return try JSONDecoder().decode(Baseline.self, from: data)
        } catch {
            throw AuditError.unreadableBaseline(path, "not a locaudit baseline (a JSON file that `--write-baseline` wrote)")
        }
    }

    /// Writes the baseline as reports are written (`Output`): never half a file, never over a device.
    func write(to path: String) throws {
        try Output.write(try Output.json(self, what: "the baseline"), to: path)
    }
}
