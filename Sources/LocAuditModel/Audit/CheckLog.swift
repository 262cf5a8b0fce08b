/// A run's rule checks, held compactly from the audit to its report: a subject's text once,
/// each check as four numbers (its subject, its rule and reason among the few texts they take,
/// its findings), 16 bytes instead of a `RuleCheckRecord`'s 56. A run of a large store checks
/// about 20 rules on each of tens of thousands of sessions (docs/performance.md, "Audit memory,
/// streamed"). Read as the records it holds, in order.
public struct CheckLog: RandomAccessCollection, Sendable {
    private struct Entry: Sendable {
        var subject: Int32
        var rule: Int32
        /// In `texts`; -1: evaluated.
        var reason: Int32
        /// In `findings`; -1: none.
        var findings: Int32
    }

    private var entries: [Entry] = []
    private var subjects: [String] = []
    /// Rules and reasons: a few dozen texts.
    private var texts: [String] = []
    private var textIndex: [String: Int32] = [:]
    private var findings: [[String]] = []

    public init() {}

    public init<Records: Sequence>(_ records: Records) where Records.Element == RuleCheckRecord {
        for record in records { append(record) }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { entries.count }

    public subscript(position: Int) -> RuleCheckRecord {
        let e = entries[position]
        return RuleCheckRecord(subject: subjects[Int(e.subject)], rule: texts[Int(e.rule)],
                               notEvaluable: e.reason < 0 ? nil : texts[Int(e.reason)],
                               findings: e.findings < 0 ? [] : findings[Int(e.findings)])
    }

    /// Adds a check (a subject's checks come together: its text is kept once a run of them).
    public mutating func append(_ check: RuleCheckRecord) {
        if subjects.last != check.subject { subjects.append(check.subject) }
        let subject = Int32(truncatingIfNeeded: subjects.count - 1)
        var finding: Int32 = -1
        if !check.findings.isEmpty {
            finding = Int32(truncatingIfNeeded: findings.count)
            findings.append(check.findings)
        }
        let rule = text(check.rule)
        var reason: Int32 = -1
        if let notEvaluable = check.notEvaluable { reason = text(notEvaluable) }
        entries.append(Entry(subject: subject, rule: rule, reason: reason, findings: finding))
    }

    private mutating func text(_ s: String) -> Int32 {
        if let known = textIndex[s] { return known }
        let i = Int32(truncatingIfNeeded: texts.count)
        texts.append(s)
        textIndex[s] = i
        return i
    }

    /// The findings' fingerprints renamed (found -> stored, `AuditRecorder.keepIdentities`).
    public mutating func rename(_ renamed: [String: String]) {
        guard !renamed.isEmpty else { return }
        for i in findings.indices { findings[i] = findings[i].map { renamed[$0] ?? $0 } }
    }
}
