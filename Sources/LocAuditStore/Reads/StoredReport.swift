import Foundation
import GRDB
import LocAuditModel
import LocAuditRules

extension AuditReport {
    /// The report of a recorded audit run (default: the latest), rebuilt from the store
    /// without replaying anything: the run's row, its coverage and checks, and the findings
    /// it saw. The findings a run reported are exactly those whose `last_run` is that run
    /// or later and that it had not resolved (before any baseline: a baseline hides findings
    /// from a report, not from the store).
    public static func stored(in store: Store, run: Int64? = nil) throws -> AuditReport {
        let queue = try store.connect(readOnly: true)
        return try queue.read { db in
            let id: Int64
            if let run {
                id = run
            } else if let latest = try Int64.fetchOne(db, sql: "SELECT max(id) FROM audit_runs") {
                id = latest
            } else {
                throw AuditError.noRun(nil)
            }
            guard let row = try Row.fetchOne(db, sql: """
                SELECT started_at, events, fail_on, coverage, checks, checks_pruned_at FROM audit_runs WHERE id = ?
                """, arguments: [id]) else { throw AuditError.noRun(id) }
            let columns = "fingerprint, rule, severity, device_id, bundle_id, pid, session_start, time, message, evidence, time_us, os_version"
            let seen = try Row.fetchAll(db, sql: """
                SELECT \(columns), first_run FROM findings
                WHERE first_run <= ?1 AND last_run >= ?1 AND (resolved_run IS NULL OR resolved_run > ?1)
                """, arguments: [id])
            let findings = seen.map(Finding.init(row:)).sorted(by: Finding.reportOrder)
            let resolved = try Row.fetchAll(db, sql: "SELECT \(columns) FROM findings WHERE resolved_run = ?", arguments: [id])
                .map(Finding.init(row:)).sorted(by: Finding.reportOrder)
            var report = AuditReport(runId: id, startedAt: row["started_at"], database: store.path, events: row["events"],
                                     findings: findings,
                                     new: Set(seen.filter { ($0["first_run"] as Int64) == id }.map { $0["fingerprint"] as String }),
                                     persisting: Set(seen.filter { ($0["first_run"] as Int64) < id }.map { $0["fingerprint"] as String }),
                                     resolved: resolved, hiddenByBaseline: 0,
                                     coverage: (row["coverage"] as JSONColumn<Coverage>?)?.value ?? Coverage(),
                                     failOn: Severity(rawValue: row["fail_on"]) ?? .high)
            let subjects = try String.fetchAll(db, sql: "SELECT checks FROM audit_checks WHERE run_id = ? ORDER BY position", arguments: [id])
            report.checks = CheckLog((subjects.isEmpty ? StoredChecks.decode(row["checks"]) : StoredChecks.decode(subjects: subjects)) ?? [])
            report.checksPrunedAt = row["checks_pruned_at"]
            return report
        }
    }
}

/// A run's rule checks as the store holds them: grouped by subject, a passed check as its
/// rule's name (most checks pass), so a run costs a fraction of its records' bytes. Since
/// migration v18 each subject is a row of `audit_checks`; runs recorded before it hold
/// `{"subjects": [SUBJECT, …]}` in `audit_runs.checks`.
package struct StoredChecks: Codable {
    var subjects: [Subject]

    init(subjects: [Subject]) { self.subjects = subjects }

    struct Subject: Codable {
        var subject: String
        /// Rules evaluated without a finding.
        var passed: [String]?
        /// Rule -> why it was not evaluable.
        var notEvaluable: [String: String]?
        /// Rule -> fingerprints of its findings.
        var findings: [String: [String]]?
    }

    var checks: [RuleCheckRecord] {
        subjects.flatMap { s in
            (s.passed ?? []).map { RuleCheckRecord(subject: s.subject, rule: $0, notEvaluable: nil, findings: []) }
                + (s.notEvaluable ?? [:]).sorted { $0.key < $1.key }.map { RuleCheckRecord(subject: s.subject, rule: $0.key, notEvaluable: $0.value, findings: []) }
                + (s.findings ?? [:]).sorted { $0.key < $1.key }.map { RuleCheckRecord(subject: s.subject, rule: $0.key, notEvaluable: nil, findings: $0.value) }
        }
    }

    /// Each subject's object, as `audit_checks.checks` holds it (`jsonText` of its `Subject`,
    /// byte for byte), written directly from the records: a run of a large store checks tens of
    /// thousands of subjects, and `JSONEncoder` took 4% of the audit (docs/performance.md,
    /// "Audit in bulk"). Subjects in the order they first come, each with all its checks
    /// (checks come subject by subject, so most subjects are one run of records), one text at a
    /// time: the run's checks are never one text ("Audit memory, in rows"). Only for what needs
    /// no escaping and sorts alike under any order (printable ASCII without `"` and `\`; keys of
    /// lower-case letters, digits and `-`, as rule identifiers are): a subject with anything
    /// else goes through `jsonText`.
    static func subjects<Checks: RandomAccessCollection>(_ checks: Checks, _ body: (String) throws -> Void) rethrows
    where Checks.Element == RuleCheckRecord, Checks.Index == Int {
        // Each subject's runs of records: the first in `runs`, any later one in `more`.
        var runs: [Range<Int>] = []
        var more: [Int: [Range<Int>]] = [:]
        var index: [String: Int] = [:]
        var start = checks.startIndex
        while start < checks.endIndex {
            var end = start + 1
            while end < checks.endIndex, checks[end].subject == checks[start].subject { end += 1 }
            if let known = index[checks[start].subject] {
                more[known, default: []].append(start..<end)
            } else {
                index[checks[start].subject] = runs.count
                runs.append(start..<end)
            }
            start = end
        }
        index = [:]
        for (n, run) in runs.enumerated() {
            var passed: [String] = []
            var notEvaluable: [String: String] = [:]
            var findings: [String: [String]] = [:]
            for range in [run] + (more[n] ?? []) {
                for check in checks[range] {
                    if let reason = check.notEvaluable {
                        notEvaluable[check.rule] = reason
                    } else if check.findings.isEmpty {
                        passed.append(check.rule)
                    } else {
                        findings[check.rule, default: []] += check.findings
                    }
                }
            }
            let subject = Subject(subject: checks[run.lowerBound].subject, passed: passed.isEmpty ? nil : passed,
                                  notEvaluable: notEvaluable.isEmpty ? nil : notEvaluable, findings: findings.isEmpty ? nil : findings)
            try body(SubjectView(subject).text ?? jsonText(subject))
        }
    }

    /// A run's checks as one text, `{"subjects":[…]}`, as the central store keeps them: its
    /// `audit_checks` rows joined in order, in a string reserved at their size (SQL's
    /// `group_concat` grows its buffer and copies it: two to three times the text, 16 MB at
    /// 4 GiB of logs); else `audit_runs.checks` (a run before migration v18; NULL once pruned).
    package static func runText(_ run: Int64, in db: Database) throws -> String? {
        guard let size = try Int.fetchOne(db, sql: """
            SELECT sum(length(CAST(checks AS BLOB))) + count(*) FROM audit_checks WHERE run_id = ?
            """, arguments: [run]) else {
            return try String.fetchOne(db, sql: "SELECT checks FROM audit_runs WHERE id = ?", arguments: [run])
        }
        var text = "{\"subjects\":["
        text.reserveCapacity(size + 16)
        let subjects = try String.fetchCursor(db, sql: "SELECT checks FROM audit_checks WHERE run_id = ? ORDER BY position", arguments: [run])
        var first = true
        while let subject = try subjects.next() {
            if !first { text += "," }
            first = false
            text += subject
        }
        text += "]}"
        return text
    }

    /// One subject as the text holds it: its keys' lists sorted by key, nil ones left out.
    private struct SubjectView {
        var subject: String
        var passed: [String]?
        var notEvaluable: [(String, String)]?
        var findings: [(String, [String])]?

        init(_ s: Subject) {
            (subject, passed) = (s.subject, s.passed)
            notEvaluable = s.notEvaluable.map { $0.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } }
            findings = s.findings.map { $0.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } }
        }

        /// The subject's object: its bytes counted, then written into a string of their size;
        /// nil at a string or key it cannot write.
        var text: String? {
            var counted = JSONBytes(into: nil)
            guard write(&counted) else { return nil }
            return String(unsafeUninitializedCapacity: counted.count) { buffer in
                var out = JSONBytes(into: buffer.baseAddress)
                _ = write(&out)
                return out.count
            }
        }

        /// Writes the subject's object; false (stopping there) at a string or key it cannot write.
        private func write(_ out: inout JSONBytes) -> Bool {
            // The keys in sorted order: findings, notEvaluable, passed, subject.
            out.raw("{")
            if let findings {
                out.raw("\"findings\":{")
                for (i, (rule, fingerprints)) in findings.enumerated() {
                    if i > 0 { out.raw(",") }
                    guard out.key(rule) else { return false }
                    out.raw(":[")
                    for (j, fingerprint) in fingerprints.enumerated() {
                        if j > 0 { out.raw(",") }
                        guard out.string(fingerprint) else { return false }
                    }
                    out.raw("]")
                }
                out.raw("},")
            }
            if let notEvaluable {
                out.raw("\"notEvaluable\":{")
                for (i, (rule, reason)) in notEvaluable.enumerated() {
                    if i > 0 { out.raw(",") }
                    guard out.key(rule) else { return false }
                    out.raw(":")
                    guard out.string(reason) else { return false }
                }
                out.raw("},")
            }
            if let passed {
                out.raw("\"passed\":[")
                for (i, rule) in passed.enumerated() {
                    if i > 0 { out.raw(",") }
                    guard out.string(rule) else { return false }
                }
                out.raw("],")
            }
            out.raw("\"subject\":")
            guard out.string(subject) else { return false }
            out.raw("}")
            return true
        }
    }

    /// JSON written as bytes: a string only when it needs no escape (else the caller falls
    /// back). Into `base` (at least `count` bytes, as a counting pass found), or, without
    /// one, only counted.
    fileprivate struct JSONBytes {
        let base: UnsafeMutablePointer<UInt8>?
        private(set) var count = 0
        init(into base: UnsafeMutablePointer<UInt8>?) { self.base = base }

        private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
            if let base, let from = bytes.baseAddress { (base + count).update(from: from, count: bytes.count) }
            count += bytes.count
        }
        private mutating func append(_ byte: UInt8) {
            base?[count] = byte
            count += 1
        }
        mutating func raw(_ s: StaticString) {
            append(UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
        }
        /// `"s"` when `s` is printable ASCII without `"` and `\`; false (nothing written) otherwise.
        mutating func string(_ s: String) -> Bool { quoted(s) { $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C } }
        /// A key that sorts alike under any order: lower-case letters, digits and `-`.
        mutating func key(_ s: String) -> Bool { quoted(s) { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D } }
        private mutating func quoted(_ s: String, _ allowed: (UInt8) -> Bool) -> Bool {
            var s = s
            return s.withUTF8 { b in
                for c in b where !allowed(c) { return false }
                append(0x22)
                append(b)
                append(0x22)
                return true
            }
        }
    }

    /// The checks of a run from its `audit_checks` rows, in order.
    static func decode(subjects texts: [String]) -> [RuleCheckRecord]? {
        let data = Data(("[" + texts.joined(separator: ",") + "]").utf8)
        return (try? JSONDecoder().decode([Subject].self, from: data)).map { StoredChecks(subjects: $0).checks }
    }

    /// The checks of a run recorded before migration v18, from `audit_runs.checks`: this shape,
    /// or the list of records runs stored before it.
    static func decode(_ text: String?) -> [RuleCheckRecord]? {
        guard let data = text.map({ Data($0.utf8) }) else { return nil }
        if let stored = try? JSONDecoder().decode(StoredChecks.self, from: data) { return stored.checks }
        return try? JSONDecoder().decode([RuleCheckRecord].self, from: data)
    }
}

