import Foundation
import GRDB
import LocAuditModel
import LocAuditNormalise
import LocAuditRead
import LocAuditStore

/// What a live log needs besides its bytes (`locaudit watch`).
public struct LiveIngestOptions: Sendable {
    /// `-` (standard input) or a file.
    public var path = "-"
    public var device: DeviceFacts?
    public var parse = ParseOptions()
    public var format: Container?
    public var catalogFiles: [String] = []

    public init() {}
}

/// A live log into the store, one short transaction at a time (`flush`), so that readers
/// see its events while it runs and a crash loses at most what came since the last flush.
///
/// One `sources` row grows (`LiveSourceRow`); only whole lines are read (a partial last
/// line waits for its newline). The row keeps the byte offset after the last line stored
/// with every line before it (a text record waiting for its continuation lines, or an app
/// state waiting for its repeats, is not stored yet: the offset stays before it), so that
/// a restart on the same file (`resumable`) continues there; events an overlapping export
/// already stored are counted `duplicate` by the store.
package final class LiveIngest {
    let db: Database
    let options: LiveIngestOptions
    let catalog: Catalog
    /// Where the next bytes go, once the container is known.
    private var segment: Segment?
    /// Whole lines before the container is known.
    private var head: [UInt8] = []
    /// Bytes after the last newline: a line still being written.
    private var tail: [UInt8] = []
    /// A restart's stored row, taken by the first segment.
    private var resumed: LiveSourceRow?
    private var resumedHash: RunningHash?
    /// Every source this watch wrote into, in order.
    package private(set) var sources: [Int64] = []

    /// Detection reads up to this much before it gives up.
    static let headBytes = 64 * 1024

    package init(db: Database, options: LiveIngestOptions, catalog: Catalog) {
        self.db = db
        self.options = options
        self.catalog = catalog
    }

    /// Where a restart on `options.path` continues: the stored row of that file whose
    /// bytes up to its offset are still the file's, else nil (read from the start).
    package func resume() throws -> Int64 {
        guard options.path != "-", let row = try LiveSourceRow.latest(path: options.path, in: db), row.offset > 0,
              let handle = FileHandle(forReadingAtPath: options.path) else { return 0 }
        defer { try? handle.close() }
        var hash = RunningHash()
        var left = row.offset
        while left > 0 {
            guard let data = try handle.read(upToCount: Int(min(left, 1 << 20))), !data.isEmpty else { return 0 }
            hash.update(data)
            left -= Int64(data.count)
        }
        guard hash.hex == row.prefixSHA256 else { return 0 }
        resumed = row
        resumedHash = hash
        return row.offset
    }

    /// Takes the next bytes of the current file.
    package func take(_ bytes: [UInt8]) throws {
        tail += bytes
        guard let newline = tail.lastIndex(of: 0x0a) else {
            // A line longer than the parser keeps is the parser's to count (`too-long`).
            if tail.count > RecordParser.maxLineBytes { try lines(tail); tail = [] }
            return
        }
        let whole = Array(tail[...newline])
        tail.removeSubrange(...newline)
        try lines(whole)
    }

    private func lines(_ bytes: [UInt8]) throws {
        if let segment { return try segment.feed(bytes) }
        head += bytes
        if options.format != nil || resumed != nil || head.count >= LiveIngest.headBytes { try start(final: false) }
    }

    /// Names the container from the lines so far and starts the segment; `final`: no more
    /// lines will come, so an unknown kind is an error now.
    private func start(final: Bool) throws {
        guard segment == nil, !head.isEmpty else { return }
        let container: Container
        var wrapper: Wrapper? = nil
        if let resumed {
            (container, wrapper) = (resumed.container, resumed.wrapper)
        } else if let known = options.format {
            container = known
            wrapper = Container.detectWrapped(head)?.wrapper
        } else if let detected = Container.detectWrapped(head), detected.container.isLog {
            (container, wrapper) = detected
        } else {
            guard final || head.count >= LiveIngest.headBytes else { return }
            throw IngestError(description: "cannot tell which kind of log this is (line 1: \"\(FileIngest.firstLine(head))\"). Name it with --container (\(FileIngest.formats)).")
        }
        var device = options.device ?? DeviceFacts()
        if options.path != "-", let sidecar = Ingester.sidecar(of: options.path), let text = try? String(contentsOfFile: sidecar, encoding: .utf8) {
            device = device.filling(from: DeviceFacts.parse(ideviceinfo: text))
        }
        var parse = options.parse
        // Year-less stamps: of the day a file's name gives (as ingest reads it), else of now;
        // zone-less ones of the device's zone.
        parse.fileDate = parse.fileDate ?? (options.path == "-" ? nil : FileIngest.dateInName(options.path)) ?? Date()
        parse.zone = parse.zone ?? device.timeZone.flatMap(TimeZone.init(identifier:))
        if container == .console, parse.date == nil { parse.date = FileIngest.civilDateInName(options.path) }
        let segment = try Segment(db: db, path: options.path, container: container, wrapper: wrapper, device: device, parse: parse,
                                  catalog: catalog, resumed: resumed, hash: resumedHash)
        resumed = nil
        resumedHash = nil
        self.segment = segment
        let held = head
        head = []
        try segment.feed(held)
    }

    /// Another file's content follows (rotation, truncation): the current one is stored as it
    /// stands (its partial last line held back) and the next bytes start a new source.
    package func newFile() throws -> LiveFlush {
        let flushed = try finish()
        segment = nil
        head = []
        tail = []
        return flushed
    }

    /// Stores what was read since the last flush; `settle`: the input is quiet, so a text
    /// record waiting for continuation lines is whole.
    package func flush(settle: Bool) throws -> LiveFlush {
        try start(final: false)
        guard let segment else { return LiveFlush() }
        let flushed = try segment.commit(settle: settle, finish: false)
        note(segment)
        return flushed
    }

    /// The end of the input: stores everything but a partial last line (held back: a
    /// restart reads it once it is whole).
    package func finish() throws -> LiveFlush {
        try start(final: true)
        guard let segment else { return LiveFlush() }
        var flushed = try segment.commit(settle: true, finish: true)
        flushed.heldBack = tail.count
        note(segment)
        return flushed
    }

    private func note(_ segment: Segment) {
        if let id = segment.sourceId, sources.last != id { sources.append(id) }
    }
}

/// What a flush stored.
package struct LiveFlush {
    /// The devices and apps that got events.
    package var groups: [(deviceId: String, bundleId: String)] = []
    /// The time up to which the stored events are final: no line read later than them can
    /// still be stored with an earlier time (nil: no event yet).
    package var settledUS: Int64?
    /// The latest time of an event stored.
    package var latestUS: Int64?
    /// Bytes of a partial last line held back at the end.
    package var heldBack = 0
    /// Events stored in this source so far, and lines read.
    package var events = 0
}

/// One file's content (or standard input) into one live source row.
private final class Segment {
    let db: Database
    let path: String
    let container: Container
    let wrapper: Wrapper?
    let parser: RecordParser
    let writer: EventWriter
    let times: TimeTracker
    var hash: RunningHash
    /// Bytes of whole lines fed (from the file's start).
    var offset: Int64
    /// After each block fed: the lines and bytes so far and the hash of those bytes.
    var boundaries: [(line: Int, offset: Int64, hash: RunningHash)] = []
    let marker = LiveSourceRow.marker()
    var base = ParseCounts()
    var sourceId: Int64?
    var lastEventId: Int64 = 0

    init(db: Database, path: String, container: Container, wrapper: Wrapper?, device: DeviceFacts, parse: ParseOptions,
         catalog: Catalog, resumed: LiveSourceRow?, hash: RunningHash?) throws {
        self.db = db
        self.path = path
        self.container = container
        self.wrapper = container.isTextLines ? wrapper : nil
        let writer = try EventWriter(db: db, device: device, budgetBytes: .max, live: true,
                                     continuing: resumed.map { ($0.id, $0.events, $0.duplicates) })
        self.writer = writer
        times = TimeTracker(writer)
        parser = RecordParser(container: container, wrapper: wrapper, catalog: catalog, options: parse, sink: times)
        self.hash = hash ?? RunningHash()
        offset = resumed?.offset ?? 0
        if let resumed {
            parser.resume(afterLine: resumed.lines)
            base = resumed.counts
            base.linesRead = 0
            sourceId = resumed.id
            lastEventId = try Store.lastEventId(in: db)
        }
        boundaries = [(parser.linesSoFar, offset, self.hash)]
    }

    func feed(_ bytes: [UInt8]) throws {
        try parser.consume(bytes)
        hash.update(bytes)
        offset += Int64(bytes.count)
        boundaries.append((parser.linesSoFar, offset, hash))
    }

    func commit(settle: Bool, finish: Bool) throws -> LiveFlush {
        if finish { try parser.finish(complete: false) } else if settle { try parser.settle() }
        // The resume point: the last block boundary before every line still held.
        let held = finish ? nil : parser.oldestHeld
        let at = held.flatMap { h in boundaries.lastIndex { $0.line < h.line } } ?? boundaries.count - 1
        let point = boundaries[at]
        boundaries.removeFirst(at)
        var counts = parser.counts
        counts.linesRead = point.line
        for (k, v) in base.skipped { counts.skipped[k, default: 0] += v }
        for (k, v) in base.notes { counts.notes[k, default: 0] += v }
        counts.firstUS = [base.firstUS, times.firstUS].compactMap { $0 }.min()
        counts.lastUS = [base.lastUS, times.lastUS].compactMap { $0 }.max()
        let facts = SourceFacts(path: path, fileSHA256: point.hash.hex, contentSHA256: marker,
                                size: point.offset, contentSize: point.offset, gzipMembers: 0, container: container, wrapper: wrapper,
                                device: writer.device, counts: counts)
        guard case .stored(let id, let events, _, _, _) = try writer.commit(facts) else {
            throw IngestError(description: "the live source could not be stored (its row was taken by another content).")
        }
        // Its row gone (deleted by hand, or by a prune that could not see the watch's lock):
        // the events would stand under no source, and the end audit would not see them.
        guard try LiveSourceRow.exists(id, in: db) else {
            throw IngestError(description: "its live source (sources.id \(id)) was deleted while the watch wrote into it (a prune, or by hand); the lines since then stand under no source and the end audit cannot see them. Start the watch again to store them anew.")
        }
        sourceId = id
        let written = try LiveSourceRow.written(source: id, afterId: lastEventId, in: db)
        lastEventId = written.lastId
        let settled = held?.timeUS.map { $0 - 1 } ?? times.lastUS
        return LiveFlush(groups: written.groups, settledUS: settled.map { min($0, times.lastUS ?? $0) },
                         latestUS: times.lastUS, events: events)
    }
}

/// Passes the parser's events on to the writer, noting their times.
private final class TimeTracker: ParseSink {
    let next: ParseSink
    var firstUS: Int64?
    var lastUS: Int64?

    init(_ next: ParseSink) { self.next = next }

    func event(_ e: ParsedEvent) throws {
        if firstUS.map({ e.timeUS < $0 }) ?? true { firstUS = e.timeUS }
        if lastUS.map({ e.timeUS > $0 }) ?? true { lastUS = e.timeUS }
        try next.event(e)
    }

    func link(bundleId: String, pid: Int64, timeUS: Int64) throws { try next.link(bundleId: bundleId, pid: pid, timeUS: timeUS) }
    func deviceNamed(_ name: String) throws { try next.deviceNamed(name) }
}
