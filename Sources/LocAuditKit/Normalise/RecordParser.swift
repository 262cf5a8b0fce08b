import Foundation

/// One event as the parser hands it to the store.
struct ParsedEvent {
    var line: Int
    var timeUS: Int64
    /// The line's UTC offset in seconds; nil when the container has no zone and none was given.
    var offset: Int32?
    var process: String?
    var pid: Int64?
    var event: Event
    var message: String
    /// Stable identity of the line across overlapping exports of one device.
    var fingerprint: Int64
    /// How the bundle id was found (`message`, `pid`, `executable`), set by the writer.
    var bundleVia: String? = nil
}

/// Where parsed events go (the store's staging area, or a test's array).
protocol ParseSink: AnyObject {
    func event(_ e: ParsedEvent) throws
    func link(bundleId: String, pid: Int64, timeUS: Int64) throws
    /// The device's name as the lines give it (idevicesyslog), once, before its events.
    func deviceNamed(_ name: String) throws
}

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

/// Settings that come from outside the file.
public struct ParseOptions: Sendable {
    /// Year of the first line, for containers without years (`--year`).
    public var year: Int?
    /// Zone of year-less, zone-less stamps (`--tz`); nil means UTC, and the source says it was assumed.
    public var zone: TimeZone?
    /// The file's modification time, to infer the year.
    public var fileDate: Date?

    public init(year: Int? = nil, zone: TimeZone? = nil, fileDate: Date? = nil) {
        self.year = year
        self.zone = zone
        self.fileDate = fileDate
    }
}

/// What parsing one file found, for the source row and the summary.
public struct ParseCounts: Sendable, Codable, Equatable {
    public var linesRead = 0
    /// Lines not stored, by reason (`noise`, `malformed`, `bad-timestamp`, `incomplete`, `not-location`, `too-long`, `duplicate`, `repeat`).
    public var skipped: [String: Int] = [:]
    /// Things repaired or assumed while reading, by kind (`continuation`, `invalid-utf8`, `time-backwards`, ...).
    public var notes: [String: Int] = [:]
    public var eventsByKind: [String: Int] = [:]
    public var firstUS: Int64?
    public var lastUS: Int64?
    /// Device name found in the lines (idevicesyslog), when no device facts were given.
    public var deviceName: String?
    /// Whether times had no zone and UTC was assumed.
    public var zoneAssumed = false
    /// The first line skipped for each reason that points at a damaged line, so a person can open it.
    public var firstLine: [String: Int] = [:]
    /// The line from which the end of the content was held back: the file ended inside a
    /// line (or a `--style json` object) and was not known complete.
    public var heldBackFrom: Int?

    mutating func skip(_ reason: String, line: Int? = nil) {
        skipped[reason, default: 0] += 1
        if let line, firstLine[reason] == nil { firstLine[reason] = line }
    }

    mutating func note(_ kind: String) { notes[kind, default: 0] += 1 }
}

/// Turns a file's content, chunk by chunk, into events: splits lines, reads the
/// container's record prefix, filters candidates cheaply, and recognises them with
/// the catalog. One instance per file; not thread-safe.
final class RecordParser {
    static let maxLineBytes = 16 << 20
    static let maxMessageBytes = 64 << 10

    let container: Container
    private let catalog: Catalog
    private let sink: ParseSink
    private var clock: SyslogClock
    private let zone: TimeZone?
    private(set) var counts = ParseCounts()

    private var lineNumber = 0
    private var carry: [UInt8] = []
    private var carryTooLong = false
    private var scratch: [UInt8] = []

    /// The record being assembled (text containers): its header and message so far.
    private var pending: Pending?
    private struct Pending {
        var line: Int
        var timeUS: Int64
        var offset: Int32?
        var process: String
        var pid: Int64?
        var message: [UInt8]
        var isCandidate: Bool
    }

    /// The last year-less stamp seen, to compute the end of the time span once.
    private var lastStamp: (month: Int, day: Int, seconds: Int)?
    /// For fingerprints: how often each identical (time, line content) was seen at the current time.
    private var sameTimeCounts: [UInt64: Int] = [:]
    private var sameTimeUS: Int64 = .min
    /// App states and launches: one event per transition.
    private var transitions = Transitions()

    /// JSON-array container: the object being accumulated.
    private var jsonDepth = 0
    private var jsonInString = false
    private var jsonEscape = false
    private var jsonObject: [UInt8] = []
    private var jsonObjectLine = 0
    /// JSON-array container: whether its first byte that is not blank was read.
    private var jsonStarted = false

    /// Lines (or JSON objects) of this container's own shape: records, banners and notices,
    /// the ndjson trailer, the opening of a `--style json` array.
    private var recognised = 0
    /// Whether a line with more than blanks was read (a held-back last line is not read).
    private(set) var sawContent = false
    /// The content has lines but none of this container's shape: the file is of another kind.
    var recognisesNothing: Bool { recognised == 0 && sawContent }

    init(container: Container, catalog: Catalog, options: ParseOptions, sink: ParseSink) {
        self.container = container
        self.catalog = catalog
        self.sink = sink
        self.zone = options.zone
        self.clock = SyslogClock(firstLineYear: options.year, fileDate: options.fileDate, zone: options.zone)
        if container == .idevicesyslog && options.zone == nil { counts.zoneAssumed = true }
    }

    // MARK: Lines

    /// Feeds the next block of content.
    func consume(_ chunk: [UInt8]) throws {
        try chunk.withUnsafeBufferPointer { buf in
            guard let base = buf.baseAddress, buf.count > 0 else { return }
            let hasNUL = memchr(base, 0, buf.count) != nil
            var start = 0
            while start < buf.count {
                let end: Int
                if hasNUL {
                    var i = start
                    while i < buf.count, buf[i] != 0x0a, buf[i] != 0 { i += 1 }
                    end = i
                } else if let hit = memchr(base + start, 0x0a, buf.count - start) {
                    end = UnsafePointer<UInt8>(hit.assumingMemoryBound(to: UInt8.self)) - base
                } else {
                    end = buf.count
                }
                if end == buf.count {
                    appendCarry(UnsafeBufferPointer(rebasing: buf[start..<end]))
                    return
                }
                // idevicesyslog ends records with "\n\0": the NUL after a line end is no line.
                if buf[end] == 0, end == start, carry.isEmpty, !carryTooLong {
                    start = end + 1
                    continue
                }
                if carry.isEmpty && !carryTooLong {
                    try line(UnsafeBufferPointer(rebasing: buf[start..<end]))
                } else {
                    appendCarry(UnsafeBufferPointer(rebasing: buf[start..<end]))
                    try flushCarry()
                }
                start = end + 1
            }
        }
    }

    private func appendCarry(_ part: UnsafeBufferPointer<UInt8>) {
        if carryTooLong { return }
        if carry.count + part.count > RecordParser.maxLineBytes {
            carryTooLong = true
            carry = []
            return
        }
        carry.append(contentsOf: part)
    }

    private func flushCarry() throws {
        if carryTooLong {
            lineNumber += 1
            counts.linesRead += 1
            counts.skip("too-long", line: lineNumber)
            carryTooLong = false
            pending = nil
        } else {
            let held = carry
            carry.removeAll(keepingCapacity: false)
            try held.withUnsafeBufferPointer { try line($0) }
        }
    }

    /// Ends the content: the last line without a newline, the last record.
    ///
    /// A file still being written (or copied) ends inside a line. Unless the content is
    /// known `complete`, a last line without its newline is held back: counted `incomplete`,
    /// never read, and so is the text record it would continue; the grown file, ingested
    /// again, adds it (its other lines are duplicates by fingerprint). A `--style json`
    /// array needs no such rule: an object is read when its closing brace is, and one still
    /// open at the end is held back.
    func finish(complete: Bool) throws {
        if !carry.isEmpty || carryTooLong {
            if complete || container == .logJSON { try flushCarry() } else { holdBackLastLine() }
        }
        try emitPending()
        try transitions.finish(emit)
        if container == .logJSON, jsonDepth > 0 {
            counts.skip("incomplete", line: jsonObjectLine)
            if !complete { counts.heldBackFrom = jsonObjectLine }
        }
        if container == .idevicesyslog, let s = lastStamp {
            counts.lastUS = clock.utc(month: s.month, day: s.day, seconds: s.seconds).us
        }
    }

    private func holdBackLastLine() {
        lineNumber += 1
        counts.linesRead += 1
        var from = lineNumber
        if let record = pending, carryTooLong || continuesRecord(carry) {
            from = record.line
            pending = nil
        }
        counts.skip("incomplete", line: from)
        counts.heldBackFrom = from
        carry = []
        carryTooLong = false
    }

    /// Whether a text line would be read as part of the record before it.
    private func continuesRecord(_ line: [UInt8]) -> Bool {
        line.withUnsafeBufferPointer { raw in
            var b = raw
            if let last = b.last, last == 0x0d { b = UnsafeBufferPointer(rebasing: b.dropLast()) }
            if b.isEmpty { return true }
            if case .other = textHeader(b) { return true }
            return false
        }
    }

    private func line(_ raw: UnsafeBufferPointer<UInt8>) throws {
        lineNumber += 1
        counts.linesRead += 1
        var b = raw
        if let last = b.last, last == 0x0d { b = UnsafeBufferPointer(rebasing: b.dropLast()) }
        if !sawContent { sawContent = b.contains { $0 != 0x20 && $0 != 0x09 } }
        switch container {
        case .idevicesyslog, .logShow, .logSyslog: try textLine(b)
        case .logNDJSON: try jsonRecordLine(b)
        case .logJSON: try jsonArrayLine(b)
        case .privacyReport: try privacyReportLine(b)
        case .infoPlist, .deviceInfo: break
        }
    }

    // MARK: Text containers

    private func textLine(_ b: UnsafeBufferPointer<UInt8>) throws {
        if b.isEmpty {
            // Blank lines inside a record are part of it; between records they are noise.
            if pending != nil { counts.note("continuation"); appendContinuation(b) } else { counts.skip("noise") }
            return
        }
        switch textHeader(b) {
        case .record(let h):
            recognised += 1
            try emitPending()
            try startRecord(h, b)
        case .noise:
            recognised += 1
            try emitPending()
            counts.skip("noise")
        case .badTimestamp:
            try emitPending()
            counts.skip("bad-timestamp", line: lineNumber)
        case .other:
            if pending != nil {
                counts.note("continuation")
                appendContinuation(b)
            } else {
                counts.skip("malformed", line: lineNumber)
            }
        }
    }

    private func textHeader(_ b: UnsafeBufferPointer<UInt8>) -> TextLine {
        switch container {
        case .idevicesyslog: TextHeaders.idevicesyslog(b)
        case .logShow: TextHeaders.logShow(b)
        default: TextHeaders.logSyslog(b)
        }
    }

    private func startRecord(_ h: TextHeader, _ b: UnsafeBufferPointer<UInt8>) throws {
        var timeUS: Int64
        var offset: Int32? = h.offset
        if let stamp = h.syslogStamp {
            clock.observe(month: stamp.month)
            if let last = lastStamp, last.month == stamp.month,
               (stamp.day, stamp.seconds) < (last.day, last.seconds) { counts.note("time-backwards") }
            lastStamp = stamp
            if counts.firstUS == nil { counts.firstUS = clock.utc(month: stamp.month, day: stamp.day, seconds: stamp.seconds).us }
            timeUS = 0 // resolved below, only for candidates
        } else {
            timeUS = h.timeUS ?? 0
            if let last = counts.lastUS, timeUS < last { counts.note("time-backwards") }
            if counts.firstUS == nil { counts.firstUS = timeUS }
            counts.lastUS = max(counts.lastUS ?? timeUS, timeUS)
        }
        if counts.deviceName == nil, let d = h.device, !d.isEmpty {
            counts.deviceName = String(decoding: UnsafeBufferPointer(rebasing: b[d]), as: UTF8.self)
            try sink.deviceNamed(counts.deviceName!)
        }
        let message = UnsafeBufferPointer(rebasing: b[min(h.messageStart, b.count)...])
        guard catalog.isCandidate(message) else {
            pending = Pending(line: lineNumber, timeUS: 0, offset: nil, process: "", pid: nil, message: [], isCandidate: false)
            return
        }
        if let stamp = h.syslogStamp {
            let utc = clock.utc(month: stamp.month, day: stamp.day, seconds: stamp.seconds)
            timeUS = utc.us
            offset = zone == nil ? nil : utc.offset
        }
        pending = Pending(line: lineNumber, timeUS: timeUS, offset: offset,
                          process: String(decoding: UnsafeBufferPointer(rebasing: b[h.process]), as: UTF8.self),
                          pid: h.pid, message: Array(message), isCandidate: true)
    }

    private func appendContinuation(_ b: UnsafeBufferPointer<UInt8>) {
        guard pending?.isCandidate == true else { return }
        if pending!.message.count + b.count + 1 > RecordParser.maxLineBytes { return }
        pending!.message.append(0x0a)
        pending!.message.append(contentsOf: b)
    }

    private func emitPending() throws {
        guard let p = pending else { return }
        pending = nil
        guard p.isCandidate else { return }
        var bytes = p.message
        if container == .idevicesyslog, bytes.contains(UInt8(ascii: "\\")) {
            bytes.withUnsafeBufferPointer { VisDecoding.decode($0, into: &scratch) }
            bytes = scratch
        }
        try recognise(bytes, line: p.line, timeUS: p.timeUS, offset: p.offset, process: p.process, pid: p.pid)
    }

    // MARK: Recognition

    private func recognise(_ bytes: [UInt8], line: Int, timeUS: Int64, offset: Int32?, process: String?, pid: Int64?) throws {
        var message: String
        var utf8 = bytes
        if let valid = String(validating: bytes, as: UTF8.self) {
            message = valid
        } else {
            counts.note("invalid-utf8")
            message = String(decoding: bytes, as: UTF8.self)
            utf8 = Array(message.utf8)
        }
        switch catalog.recognise(message, utf8: utf8, process: process) {
        case .nothing:
            return
        case .incomplete:
            counts.skip("incomplete", line: line)
        case .link(let bundleId, let linkPid):
            try sink.link(bundleId: bundleId, pid: linkPid, timeUS: timeUS)
        case .event(var event):
            if event.scope == .app, catalog.isSystemProcess(process) {
                // iOS's own CLLocationManager (routined, contextstored, ...): its line, no app's.
                event.scope = .system
                event[.appPid] = nil
                event[.bundleId] = nil
            }
            if event.scope == .app, event[.appPid] == nil, let pid { event[.appPid] = .integer(pid) }
            if message.utf8.count > RecordParser.maxMessageBytes {
                counts.note("message-truncated")
                message = String(decoding: message.utf8.prefix(RecordParser.maxMessageBytes), as: UTF8.self) + "…"
            }
            try store(event, message: message, line: line, timeUS: timeUS, offset: offset, process: process, pid: pid)
        }
    }

    private func store(_ event: Event, message: String, line: Int, timeUS: Int64, offset: Int32?, process: String?, pid: Int64?) throws {
        if timeUS != sameTimeUS {
            sameTimeUS = timeUS
            sameTimeCounts.removeAll(keepingCapacity: true)
        }
        var seed = UInt64(bitPattern: timeUS) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(bitPattern: pid ?? -1)
        seed = fnv1a((process ?? "").utf8, seed: seed)
        let base = fnv1a(message.utf8, seed: seed)
        let ordinal = sameTimeCounts[base, default: 0]
        sameTimeCounts[base] = ordinal + 1
        let fingerprint = Int64(bitPattern: ordinal == 0 ? base : fnv1a(String(ordinal).utf8, seed: base))
        let parsed = ParsedEvent(line: line, timeUS: timeUS, offset: offset, process: process, pid: pid,
                                 event: event, message: message, fingerprint: fingerprint)
        if event.kind == .appState || event.kind == .launch,
           case .integer(let appPid)? = event[.appPid], case .text(let bundle)? = event[.bundleId] {
            // Every line of a transition links its pid, the repeats too.
            try sink.link(bundleId: bundle, pid: appPid, timeUS: timeUS)
        }
        try transitions.take(parsed, rank: catalog.rank[event.pattern] ?? Int.max, emit: emit) { _ in
            counts.skip("repeat")
        }
    }

    /// Hands on an event that is kept.
    private func emit(_ e: ParsedEvent) throws {
        counts.eventsByKind[e.event.kind.rawValue, default: 0] += 1
        try sink.event(e)
    }

    // MARK: JSON containers

    private static let eventMessageKey = Array("\"eventMessage\"".utf8)
    private static let finishedKey = Array("\"finished\"".utf8)

    private func jsonRecordLine(_ b: UnsafeBufferPointer<UInt8>) throws {
        var i = 0
        while i < b.count, b[i] == 0x20 || b[i] == 0x09 { i += 1 }
        if i == b.count { counts.skip("noise"); return }
        guard b[i] == UInt8(ascii: "{") else {
            if LogBanner.isBanner(UnsafeBufferPointer(rebasing: b[i...])) {
                recognised += 1
                counts.skip("noise")
            } else {
                counts.skip("malformed", line: lineNumber)
            }
            return
        }
        try jsonRecord(UnsafeBufferPointer(rebasing: b[i...]), line: lineNumber)
    }

    /// One `log show --style ndjson|json` record.
    private func jsonRecord(_ b: UnsafeBufferPointer<UInt8>, line: Int) throws {
        guard JSONScan.string(key: RecordParser.eventMessageKey, in: b, into: &scratch) else {
            // The trailer {"count":N,"finished":1}, or an object with no message.
            if RecordParser.finishedKey.withUnsafeBufferPointer({ memmem(b.baseAddress, b.count, $0.baseAddress, $0.count) }) != nil {
                recognised += 1
            }
            counts.skip("noise")
            return
        }
        recognised += 1
        let isCandidate = scratch.withUnsafeBufferPointer { catalog.isCandidate($0) }
        let text = String(decoding: b, as: UTF8.self)
        guard let fields = MessageFields.parse(text) else { counts.skip("malformed", line: line); return }
        var timeUS: Int64 = 0
        var offset: Int32? = nil
        if case .string(let stamp)? = fields["timestamp"] {
            let parsed = Array(stamp.utf8).withUnsafeBufferPointer { Timestamps.parseISOLike($0) }
            guard let parsed else { counts.skip("bad-timestamp", line: line); return }
            timeUS = parsed.us
            offset = parsed.offset
        } else {
            counts.skip("bad-timestamp", line: line)
            return
        }
        if let last = counts.lastUS, timeUS < last { counts.note("time-backwards") }
        if counts.firstUS == nil { counts.firstUS = timeUS }
        counts.lastUS = max(counts.lastUS ?? timeUS, timeUS)
        guard isCandidate else { return }
        var process: String? = nil
        if case .string(let path)? = fields["processImagePath"] {
            process = path.split(separator: "/").last.map(String.init) ?? path
        }
        var pid: Int64? = nil
        if case .number(let n)? = fields["processID"] { pid = Int64(n) }
        try recognise(scratch, line: line, timeUS: timeUS, offset: offset, process: process, pid: pid)
    }

    /// `--style json`: objects spread over lines inside one array.
    private func jsonArrayLine(_ b: UnsafeBufferPointer<UInt8>) throws {
        if !jsonStarted, let first = b.first(where: { $0 != 0x20 && $0 != 0x09 }) {
            jsonStarted = true
            if first == UInt8(ascii: "[") { recognised += 1 }
        }
        var objectStart: Int? = nil
        for i in 0..<b.count {
            let c = b[i]
            if jsonInString {
                if jsonEscape { jsonEscape = false } else if c == UInt8(ascii: "\\") { jsonEscape = true } else if c == UInt8(ascii: "\"") { jsonInString = false }
                continue
            }
            switch c {
            case UInt8(ascii: "\""): jsonInString = true
            case UInt8(ascii: "{"):
                if jsonDepth == 0 { objectStart = i; jsonObjectLine = lineNumber; jsonObject.removeAll(keepingCapacity: true) }
                jsonDepth += 1
            case UInt8(ascii: "}"):
                jsonDepth -= 1
                if jsonDepth == 0 {
                    jsonObject.append(contentsOf: UnsafeBufferPointer(rebasing: b[(objectStart ?? 0)...i]))
                    jsonObject.append(0x0a)
                    objectStart = nil
                    let object = jsonObject
                    try object.withUnsafeBufferPointer { try jsonRecord($0, line: jsonObjectLine) }
                    jsonObject.removeAll(keepingCapacity: true)
                } else if jsonDepth < 0 {
                    jsonDepth = 0
                    counts.skip("malformed", line: lineNumber)
                }
            default: break
            }
        }
        if jsonDepth > 0 {
            jsonObject.append(contentsOf: UnsafeBufferPointer(rebasing: b[(objectStart ?? 0)...]))
            jsonObject.append(0x0a)
        }
    }

    // MARK: App Privacy Report

    private func privacyReportLine(_ b: UnsafeBufferPointer<UInt8>) throws {
        let text = String(decoding: b, as: UTF8.self)
        if text.allSatisfy({ $0 == " " || $0 == "\t" }) { counts.skip("noise"); return }
        guard let fields = MessageFields.parse(text) else { counts.skip("malformed", line: lineNumber); return }
        if case .string? = fields["type"] { recognised += 1 }
        guard case .string("access")? = fields["type"], case .string("location")? = fields["category"] else {
            counts.skip("not-location")
            return
        }
        guard case .string(let stamp)? = fields["timeStamp"],
              let time = Array(stamp.utf8).withUnsafeBufferPointer({ Timestamps.parseISOLike($0) }) else {
            counts.skip("bad-timestamp", line: lineNumber)
            return
        }
        let kind: EventKind
        switch fields["kind"] {
        case .string("intervalBegin")?: kind = .accessBegin
        case .string("intervalEnd")?: kind = .accessEnd
        default: counts.skip("malformed", line: lineNumber); return
        }
        var event = Event(kind: kind, pattern: "privacy-report.location")
        event[.bundleId] = Normaliser.value(MessageFields.lookup("accessor.identifier", in: fields), for: .bundleId)
        event[.value] = Normaliser.value(fields["identifier"], for: .value)
        if counts.firstUS == nil || time.us < counts.firstUS! { counts.firstUS = time.us }
        if counts.lastUS == nil || time.us > counts.lastUS! { counts.lastUS = time.us }
        try store(event, message: text, line: lineNumber, timeUS: time.us, offset: time.offset, process: nil, pid: nil)
    }
}
