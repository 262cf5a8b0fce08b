import Foundation
import LocAuditModel
import LocAuditRead

/// One event as the parser hands it to the store.
package struct ParsedEvent {
    package var line: Int
    package var timeUS: Int64
    /// The line's UTC offset in seconds; nil when the container has no zone and none was given.
    package var offset: Int32?
    package var process: String?
    package var pid: Int64?
    package var event: Event
    package var message: String
    /// Stable identity of the line across overlapping exports of one device.
    package var fingerprint: Int64
    /// How the bundle id was found, set by the writer.
    package var bundleVia: BundleVia? = nil
}

/// How an event's bundle id was found (`events.bundle_via`).
package enum BundleVia: String, Sendable {
    /// The message names it.
    case message
    /// The line's pid is the process of an app a line named (pid linking).
    case pid
    /// The line's process is the executable of an ingested Info.plist.
    case executable
    /// The process name matches the last part of exactly one known bundle id.
    case name
}

/// Where parsed events go (the store's staging area, or a test's array).
package protocol ParseSink: AnyObject {
    func event(_ e: ParsedEvent) throws
    func link(bundleId: String, pid: Int64, timeUS: Int64) throws
    /// The device's name as the lines give it (idevicesyslog), once, before its events.
    func deviceNamed(_ name: String) throws
}

/// Settings that come from outside the file.
public struct ParseOptions: Sendable {
    /// Year of the first line, for containers without years (`--year`).
    public var year: Int?
    /// Zone of year-less, zone-less stamps (`--tz`); nil means UTC, and the source says it was assumed.
    public var zone: TimeZone?
    /// The file's modification time, to infer the year.
    public var fileDate: Date?
    /// The day of the first line, for containers with times of day only (Console copies):
    /// `--date`, else the date in the file's name.
    public var date: CivilDate?

    public init(year: Int? = nil, zone: TimeZone? = nil, fileDate: Date? = nil, date: CivilDate? = nil) {
        self.year = year
        self.zone = zone
        self.fileDate = fileDate
        self.date = date
    }
}

/// What parsing one file found, for the source row and the summary.
public struct ParseCounts: Sendable, Codable, Equatable {
    package init() {}

    public var linesRead = 0
    /// Lines read as a record, as a line of one (a continuation, a line of a `--style json`
    /// object), or as the container's own structure (the brackets of a `--style json` array).
    /// Every line is read or skipped: `linesInRecords + linesSkipped == linesRead`, checked
    /// at the end of every file (`RecordParser.finish`).
    public var linesInRecords = 0
    /// Lines skipped whole, each counted in `skipped` under its reason. (`skipped` also counts
    /// records that were read but not stored: a `repeat`, a `duplicate`, a message the catalog
    /// finds `incomplete`.)
    public var linesSkipped = 0
    /// Lines not stored, by reason (`noise`, `malformed`, `bad-timestamp`, `incomplete`, `not-location`, `too-long`, `duplicate`, `repeat`,
    /// `no-prefix`, `not-device`, `unaccounted`).
    public var skipped: [String: Int] = [:]
    /// Things repaired or assumed while reading, by kind (`continuation`, `invalid-utf8`, `time-backwards`,
    /// `number-out-of-range`, `non-finite-number`, ...).
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

    mutating func skip(_ reason: SkipReason, line: Int? = nil, count: Int = 1) {
        skipped[reason.rawValue, default: 0] += count
        if let line, firstLine[reason.rawValue] == nil { firstLine[reason.rawValue] = line }
    }

    mutating func note(_ kind: NoteKind, count: Int = 1) { notes[kind.rawValue, default: 0] += count }
}

/// Why a line was not stored: the keys of `ParseCounts.skipped`, of `sources.skipped` and of
/// the ingest summary (docs/schema.md), spelled as they are stored.
package enum SkipReason: String, CaseIterable, Sendable {
    case noise, malformed, incomplete, duplicate
    case badTimestamp = "bad-timestamp"
    case notLocation = "not-location"
    case tooLong = "too-long"
    case noPrefix = "no-prefix"
    case `repeat`
    /// A test tool's own line in a wrapped file (Appium's `[HTTP]`, flutter's build output).
    case notDevice = "not-device"
    /// Lines the reader lost count of: a bug (the end-of-file check found lines neither
    /// read nor skipped); counted so that they are never dropped silently.
    case unaccounted

    /// Reasons that point at a damaged line: the first line skipped for each is kept.
    var marksLine: Bool {
        switch self {
        case .malformed, .badTimestamp, .incomplete, .tooLong, .unaccounted: true
        default: false
        }
    }
}

/// What became of one line: read (as a record, a line of one, or the container's structure),
/// or skipped whole with its reason. Every reader of a line says which (`RecordParser.tally`).
enum LineFate: Equatable {
    case read
    case skipped(SkipReason)
}

/// What was repaired or assumed while reading: the keys of `ParseCounts.notes` and of
/// `sources.notes`, spelled as they are stored.
package enum NoteKind: String, CaseIterable, Sendable {
    case continuation
    case invalidUTF8 = "invalid-utf8"
    case timeBackwards = "time-backwards"
    case messageTruncated = "message-truncated"
    case numberOutOfRange = "number-out-of-range"
    case nonFiniteNumber = "non-finite-number"
    case zoneFromExport = "zone-from-export"
}

/// Turns a file's content, chunk by chunk, into events: splits lines, reads the
/// container's record prefix, filters candidates cheaply, and recognises them with
/// the catalog. One instance per file; not thread-safe.
package final class RecordParser {
    package static let maxLineBytes = 16 << 20
    static let maxMessageBytes = 64 << 10

    // The state every line touches is marked `@exclusivity(unchecked)`: one thread reads a
    // file, no closure the parser hands out reaches it, and the runtime's check of each
    // access (begin, a thread-local lookup, end: about six a line) was 2% of the ingest.

    package let container: Container
    /// The test tool's prefix around each line, if the file was saved through one.
    package let wrapper: Wrapper?
    /// Wrapped files: whether the last line with the tool's prefix was a device line (a line
    /// without the prefix continues it, else the tool's own entry).
    @exclusivity(unchecked) private var inDeviceEntry = false
    /// How the lines read: the container's own, or for an archive that of the members it reads.
    let lines: Container
    /// A sysdiagnose archive: the members it reads are handed to the lines.
    private let archive: TarReader?
    /// The archive members read (a sysdiagnose: its MobileInstallation logs).
    package var membersRead: [String] { archive?.membersRead ?? [] }
    let catalog: Catalog
    let sink: ParseSink
    @exclusivity(unchecked) var clock: SyslogClock
    /// Console copies: the day of each time of day.
    @exclusivity(unchecked) var dayClock: DayClock
    let zone: TimeZone?
    @exclusivity(unchecked) package internal(set) var counts = ParseCounts()

    @exclusivity(unchecked) var lineNumber = 0
    private var carry: [UInt8] = []
    private var carryTooLong = false
    var scratch: [UInt8] = []

    /// The record being assembled (text containers): the number of its first line, nil when
    /// none is; whether it is a candidate, and then its header and message so far in
    /// `candidate`. Not an optional struct of them all: setting and clearing that, twice a
    /// line, destroyed its string and array each time (1.2% of the ingest's instructions),
    /// and a candidate's message was a new array each time, where this one keeps its room.
    @exclusivity(unchecked) var pendingLine: Int?
    @exclusivity(unchecked) var pendingIsCandidate = false
    @exclusivity(unchecked) var candidate = Candidate()
    /// The last candidate's process name, and its bytes (`processName`).
    var lastProcessBytes: [UInt8] = []
    var lastProcessName = ""
    struct Candidate {
        var timeUS: Int64 = 0
        var offset: Int32?
        var process = ""
        var pid: Int64?
        var message: [UInt8] = []
    }

    /// The microseconds of the last year-less stamp (the clock keeps whole seconds).
    @exclusivity(unchecked) var lastMicros = 0
    /// The last zone-less wall-clock time seen (pymobiledevice3, MobileInstallation), for the time span.
    @exclusivity(unchecked) var lastLocalUS: Int64?
    /// For fingerprints: how often each identical line was seen in the current second.
    @exclusivity(unchecked) private var sameSecondCounts: [Int64: Int] = [:]
    @exclusivity(unchecked) private var sameSecond: Int64 = .min
    /// App states and launches: one event per transition.
    private var transitions = Transitions()

    /// JSON-array container: the object being accumulated.
    var jsonDepth = 0
    var jsonInString = false
    var jsonEscape = false
    var jsonObject: [UInt8] = []
    var jsonObjectLine = 0
    /// JSON-array container: whether its first byte that is not blank was read.
    var jsonStarted = false

    /// Lines (or JSON objects) of this container's own shape: records, banners and notices,
    /// the ndjson trailer, the opening of a `--style json` array.
    @exclusivity(unchecked) var recognised = 0
    /// Whether a line with more than blanks was read (a held-back last line is not read).
    @exclusivity(unchecked) package private(set) var sawContent = false
    /// The content has lines but none of this container's shape: the file is of another kind.
    package var recognisesNothing: Bool { recognised == 0 && sawContent }
    /// The object being accumulated has grown over `maxLineBytes`: dropped, counted `too-long` at its end.
    var jsonObjectTooLong = false

    package init(container: Container, wrapper: Wrapper? = nil, catalog: Catalog, options: ParseOptions, sink: ParseSink) {
        self.container = container
        self.wrapper = container.isTextLines ? wrapper : nil
        self.catalog = catalog
        self.sink = sink
        self.zone = options.zone
        self.clock = SyslogClock(firstLineYear: options.year, fileDate: options.fileDate, zone: options.zone)
        self.dayClock = DayClock(firstDay: options.date, reference: options.fileDate)
        self.lines = container == .sysdiagnose ? .mobileInstallation : container
        self.archive = container == .sysdiagnose ? TarReader(wanted: TarReader.isMobileInstallationLog) : nil
        if !container.stampsHaveZone && options.zone == nil { counts.zoneAssumed = true }
    }

    // MARK: Lines

    /// Feeds the next block of content.
    package func consume(_ chunk: [UInt8]) throws {
        guard let archive else { return try consumeLines(chunk) }
        try archive.consume(chunk, member: { try consumeLines($0) }, memberEnd: { try endOfMember() })
    }

    /// The end of an archive member: its last line is whole (the archive says how long it is).
    private func endOfMember() throws {
        if !carry.isEmpty || carryTooLong { try flushCarry() }
        try emitPending()
    }

    private func consumeLines(_ chunk: [UInt8]) throws {
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
                // Empty lines come in runs (a file of nothing else, padding): a run is counted
                // at once, at the cost of the scan that finds its end (per line, the checks and
                // counts of `line(_:)` made a file of newlines cost 84 s a GB).
                if end == start, buf[end] == 0x0a, carry.isEmpty, !carryTooLong {
                    let run = RecordParser.newlines(from: base + start, count: buf.count - start)
                    try blankLines(run)
                    start += run
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

    /// How many bytes from `p` on are newlines (at least one, `p` being one), eight at a time.
    static func newlines(from p: UnsafePointer<UInt8>, count: Int) -> Int {
        let eight: UInt64 = 0x0a0a_0a0a_0a0a_0a0a
        var n = 0
        while count - n >= 8, UnsafeRawPointer(p + n).loadUnaligned(as: UInt64.self) == eight { n += 8 }
        while n < count, p[n] == 0x0a { n += 1 }
        return n
    }

    /// `count` empty lines in a row: what `line(_:)` does with each, done once.
    private func blankLines(_ count: Int) throws {
        lineNumber += count
        counts.linesRead += count
        switch lines {
        case .idevicesyslog, .logShow, .logSyslog, .console, .pymobiledevice3, .bsdSyslog, .mobileInstallation, .logCompact, .xcodeConsole,
             .logNDJSON, .privacyReport, .pymobiledevice3JSON, .messageOnly, .sysdiagnose, .infoPlist, .deviceInfo:
            // Blank lines are no record's lines, not even inside a paste (issue 26).
            tally(.skipped(.noise), count: count)
        case .logJSON:
            tally(blankJSONArrayLines(count), count: count)
        }
    }

    /// Counts what became of `count` lines (the last being `lineNumber`).
    @inline(__always)
    func tally(_ fate: LineFate, count: Int = 1) {
        switch fate {
        case .read:
            counts.linesInRecords += count
        case .skipped(let reason):
            counts.linesSkipped += count
            counts.skip(reason, line: reason.marksLine ? lineNumber - count + 1 : nil, count: count)
        }
    }

    /// A record read but not stored (a `--style json` object): counted under its reason, its
    /// lines read.
    func skipRecord(_ reason: SkipReason, line: Int) {
        counts.skip(reason, line: reason.marksLine ? line : nil)
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
            tally(.skipped(.tooLong))
            carryTooLong = false
            pendingLine = nil
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
    package func finish(complete: Bool) throws {
        try archive?.finish()
        if !carry.isEmpty || carryTooLong {
            if complete || container == .logJSON { try flushCarry() } else { holdBackLastLine() }
        }
        try emitPending()
        try transitions.finish(emit)
        if container == .logJSON, jsonDepth > 0 {
            counts.skip(.incomplete, line: jsonObjectLine)
            if !complete { counts.heldBackFrom = jsonObjectLine }
        }
        checkEveryLineCounted()
        if let latest = clock.latest { counts.lastUS = clock.utc(local: latest).us + Int64(lastMicros) }
        if let local = lastLocalUS { counts.lastUS = LocalTime.utc(localUS: local, zone: zone).us }
    }

    // MARK: A live stream (`locaudit watch`)

    /// Lines read so far (the number of the last one).
    package var linesSoFar: Int { lineNumber }

    /// Continues the numbering of a stream resumed after `lines` lines (a restart of `watch`).
    package func resume(afterLine lines: Int) {
        lineNumber = lines
        counts.linesRead = lines
        counts.linesInRecords = lines
    }

    /// The invariant of issue 26: every line is read or counted as skipped with a reason; a
    /// detection that took a file for the wrong container cannot drop its lines silently.
    /// Lines lost count of are a bug: they stop a debug build, and are counted `unaccounted`.
    private func checkEveryLineCounted() {
        let lost = counts.linesRead - counts.linesInRecords - counts.linesSkipped
        guard lost != 0 else { return }
        assertionFailure("\(lost) lines neither read nor skipped (\(container.rawValue))")
        if lost > 0 {
            counts.linesSkipped += lost
            counts.skip(.unaccounted, line: lineNumber, count: lost)
        }
    }

    /// The earliest line read but not yet handed on (a text record waiting for its
    /// continuation lines, or an app-state change waiting for its repeats: `Transitions`),
    /// and the earliest time of an app-state change held (a record's time is only final
    /// once it is handed on; it comes after the events before it in the file).
    package var oldestHeld: (line: Int, timeUS: Int64?)? {
        let held = transitions.oldestHeld
        var oldest: (line: Int, timeUS: Int64?)? = held.map { ($0.line, $0.timeUS) }
        if let line = pendingLine, oldest.map({ line < $0.line }) ?? true { oldest = (line, held?.timeUS) }
        return oldest
    }

    /// The stream is quiet: the record waiting for continuation lines is whole (a live log
    /// writes a record at once). App-state changes still wait for their window.
    package func settle() throws {
        try emitPending()
    }

    private func holdBackLastLine() {
        lineNumber += 1
        counts.linesRead += 1
        var from = lineNumber
        if let record = pendingLine, carryTooLong || continuesRecord(carry) {
            from = record
            pendingLine = nil
        }
        counts.linesSkipped += 1
        counts.skip(.incomplete, line: from)
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
            if let wrapper {
                switch wrapper.unwrap(b) {
                case .device(let start): b = UnsafeBufferPointer(rebasing: b[min(start, b.count)...])
                case .tool: return false
                case .bare: if !inDeviceEntry { return false }
                }
            }
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
        if let wrapper {
            switch wrapper.unwrap(b) {
            case .device(let start):
                inDeviceEntry = true
                b = UnsafeBufferPointer(rebasing: b[min(start, b.count)...])
            case .tool:
                // The tool's own line: the tool's, counted; it is the wrapper's shape.
                inDeviceEntry = false
                recognised += 1
                return tally(.skipped(.notDevice))
            case .bare:
                // A line without the prefix continues the entry above it: a device line's
                // (read by the container), or the tool's (skipped with it). Blank lines are blank.
                if !inDeviceEntry, b.contains(where: { $0 != 0x20 && $0 != 0x09 }) { return tally(.skipped(.notDevice)) }
            }
        }
        let fate: LineFate
        switch lines {
        case .idevicesyslog, .logShow, .logSyslog, .console, .pymobiledevice3, .bsdSyslog, .mobileInstallation, .logCompact, .xcodeConsole:
            fate = try textLine(b)
        case .logNDJSON: fate = try jsonRecordLine(b)
        case .logJSON: fate = try jsonArrayLine(b)
        case .privacyReport: fate = try privacyReportLine(b)
        case .pymobiledevice3JSON: fate = try pymobiledevice3JSONLine(b)
        case .messageOnly: fate = messageOnlyLine(b)
        case .sysdiagnose, .infoPlist, .deviceInfo: fate = .skipped(.noise) // never parsed as lines
        }
        tally(fate)
    }

    // MARK: Recognition

    func recognise(_ bytes: [UInt8], line: Int, timeUS: Int64, offset: Int32?, process: String?, pid: Int64?) throws {
        var message: String
        var utf8 = bytes
        if let valid = String(validating: bytes, as: UTF8.self) {
            message = valid
        } else {
            counts.note(.invalidUTF8)
            message = String(decoding: bytes, as: UTF8.self)
            utf8 = Array(message.utf8)
        }
        switch catalog.recognise(message, utf8: utf8, process: process) {
        case .nothing:
            return
        case .incomplete:
            counts.skip(.incomplete, line: line)
        case .malformed:
            counts.skip(.malformed, line: line)
        case .link(let bundleId, let linkPid):
            try sink.link(bundleId: bundleId, pid: linkPid, timeUS: timeUS)
        case .event(var event):
            if event.droppedNonFinite { counts.note(.nonFiniteNumber) }
            if event.scope == .app, isSystemProcess(process) {
                // iOS's own CLLocationManager (routined, contextstored, ...): its line, no app's.
                event.scope = .system
                event[.appPid] = nil
                event[.bundleId] = nil
            }
            if event.scope == .app, event[.appPid] == nil, let pid { event[.appPid] = .integer(pid) }
            if message.utf8.count > RecordParser.maxMessageBytes {
                counts.note(.messageTruncated)
                message = String(decoding: message.utf8.prefix(RecordParser.maxMessageBytes), as: UTF8.self) + "…"
            }
            try store(event, message: message, line: line, timeUS: timeUS, offset: offset, process: process, pid: pid)
        }
    }

    func store(_ event: Event, message: String, line: Int, timeUS: Int64, offset: Int32?, process: String?, pid: Int64?) throws {
        if LineFingerprint.second(timeUS) != sameSecond {
            sameSecond = LineFingerprint.second(timeUS)
            sameSecondCounts.removeAll(keepingCapacity: true)
        }
        let base = LineFingerprint.of(process: process, pid: pid, message: message, ordinal: 0)
        let ordinal = sameSecondCounts[base, default: 0]
        sameSecondCounts[base] = ordinal + 1
        let fingerprint = ordinal == 0 ? base : LineFingerprint.of(process: process, pid: pid, message: message, ordinal: ordinal)
        let parsed = ParsedEvent(line: line, timeUS: timeUS, offset: offset, process: process, pid: pid,
                                 event: event, message: message, fingerprint: fingerprint)
        if event.kind == .appState || event.kind == .launch,
           case .integer(let appPid)? = event[.appPid], case .text(let bundle)? = event[.bundleId] {
            // Every line of a transition links its pid, the repeats too.
            try sink.link(bundleId: bundle, pid: appPid, timeUS: timeUS)
        }
        try transitions.take(parsed, rank: rank(of: event.pattern), emit: emit) { _ in
            counts.skip(.`repeat`)
        }
    }

    /// The catalog's answers for the last process and pattern asked about: consecutive
    /// events mostly share them, and comparing beats hashing the string again.
    private var lastProcess: (process: String?, system: Bool)?
    private var lastRank: (pattern: String, rank: Int)?

    private func isSystemProcess(_ process: String?) -> Bool {
        if let last = lastProcess, last.process == process { return last.system }
        let system = catalog.isSystemProcess(process)
        lastProcess = (process, system)
        return system
    }

    private func rank(of pattern: String) -> Int {
        if let last = lastRank, last.pattern == pattern { return last.rank }
        let rank = catalog.rank[pattern] ?? Int.max
        lastRank = (pattern, rank)
        return rank
    }

    /// Hands on an event that is kept.
    private func emit(_ e: ParsedEvent) throws {
        counts.eventsByKind[e.event.kind.rawValue, default: 0] += 1
        try sink.event(e)
    }
}
