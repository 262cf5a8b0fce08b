import LocAuditNormalise
import LocAuditRead

// The parser's events on their way to the writer's thread: batched, one hand-over a batch.

/// What the parser hands on, in order.
enum ParsedItem {
    case event(ParsedEvent)
    case link(bundleId: String, pid: Int64, timeUS: Int64)
    case deviceName(String)
}

/// Collects parsed items into batches for another thread (one hand-over per batch, not per event).
final class ParsedBatches: ParseSink {
    private let out: Handoff<[ParsedItem]>
    private var batch: [ParsedItem] = []
    static let size = 256

    init(_ out: Handoff<[ParsedItem]>) { self.out = out }

    func event(_ e: ParsedEvent) throws { try add(.event(e)) }
    func link(bundleId: String, pid: Int64, timeUS: Int64) throws { try add(.link(bundleId: bundleId, pid: pid, timeUS: timeUS)) }
    func deviceNamed(_ name: String) throws { try add(.deviceName(name)) }

    private func add(_ item: ParsedItem) throws {
        batch.append(item)
        if batch.count >= ParsedBatches.size { try flush() }
    }

    func flush() throws {
        guard !batch.isEmpty else { return }
        try out.put(batch)
        batch = []
        batch.reserveCapacity(ParsedBatches.size)
    }
}

extension ParseSink {
    /// Hands on one item (the writing side of `ParsedBatches`).
    func take(_ item: ParsedItem) throws {
        switch item {
        case .event(let e): try event(e)
        case .link(let bundleId, let pid, let timeUS): try link(bundleId: bundleId, pid: pid, timeUS: timeUS)
        case .deviceName(let name): try deviceNamed(name)
        }
    }
}
