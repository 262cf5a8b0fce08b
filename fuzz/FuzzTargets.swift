// libFuzzer entry point for the parsers that read untrusted bytes.
//
// Not part of the package: scripts/fuzz.sh compiles this file together with the parser
// sources of LocAuditNormalise and what they use (one module, so nothing internal has to be made public) with
// `-parse-as-library -sanitize=fuzzer,address`. LOCAUDIT_FUZZ_TARGET picks the parser;
// the targets and what each calls are in `FuzzTarget`.
import Foundation

enum FuzzTarget: String, CaseIterable {
    // Each container's record parser, with the built-in catalog (text headers, timestamps,
    // the syslog clock, vis decoding, JSON records, the JSON-array splitter, messages).
    case idevicesyslog, logShow = "log-show", logSyslog = "log-syslog", logNDJSON = "log-ndjson", logJSON = "log-json"
    case privacyReport = "privacy-report"
    case console, pymobiledevice3, pymobiledevice3JSON = "pymobiledevice3-json", bsdSyslog = "bsd-syslog"
    case mobileInstallation = "mobile-installation", messageOnly = "message-only"
    case logCompact = "log-compact", xcodeConsole = "xcode-console"
    /// A sysdiagnose archive: the tar reader over the content, then its MobileInstallation members.
    case sysdiagnose
    /// MessageFields on any bytes, the catalog's recognition of a message, and AnchorSet
    /// (held to memmem).
    case messageFields = "message-fields"
    /// The ISO and syslog stamp parsers, the syslog clock and isoUTC.
    case timestamps
    /// idevicesyslog's vis(3) escapes.
    case vis
    /// JSONScan: a string value by key, and the unescaping of a string.
    case jsonUnescape = "json-unescape"
    /// An app's Info.plist (XML or binary).
    case infoPlist = "info-plist"
    /// `ideviceinfo` output.
    case ideviceinfo
    /// Container detection from a file's first bytes, and the quoting of an unknown one.
    case detect
    /// Detection and parsing together (issue 26): the container and test-tool wrapper detected,
    /// and a container and wrapper picked by the first byte (a mis-guess), each parse every
    /// line: read or skipped with a reason, none lost (`linesInRecords + linesSkipped ==
    /// linesRead`, no `unaccounted`), and as many lines as the content has.
    case detectParse = "detect-parse"
    /// ByteStream on gzip bytes: ISA-L (with zlib's restart at a doubt) must hand on exactly
    /// what zlib alone hands on, or fail with the same error; small reads cut members anywhere.
    case gzip
    /// MessageTemplate, the stored form of a message: any text splits into a format and at
    /// most 12 numbers that give it back exactly.
    case messageTemplate = "message-template"
}

/// MessageTemplate's numbers the plain way: a number tried at every position.
func argumentsTryingEveryPosition(_ b: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
    var ranges: [Range<Int>] = []
    var i = 0
    while i < b.count {
        guard let end = MessageTemplate.token(in: b, at: i) else { i += 1; continue }
        if ranges.count == MessageTemplate.maxArguments - 1 { return ranges + [i..<b.count] }
        ranges.append(i..<end)
        i = end
    }
    return ranges
}

/// Reads a file to its end with one inflater: the content, or the error it stopped on.
func inflated(_ path: String, _ inflater: ByteStream.Inflater, readSize: Int) -> (content: [UInt8], error: String?) {
    var content: [UInt8] = []
    do {
        let stream = try ByteStream(path: path, inflater: inflater, readSize: readSize)
        while let chunk = try stream.next() { content += chunk.bytes }
        return (content, nil)
    } catch {
        return ([], "\(error)")
    }
}

let gzipPath = NSTemporaryDirectory() + "/locaudit-fuzz-\(getpid()).gz"

let target: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["LOCAUDIT_FUZZ_TARGET"] ?? ""
    guard let t = FuzzTarget(rawValue: name) else {
        fatalError("LOCAUDIT_FUZZ_TARGET must be one of: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: " ")) (got '\(name)')")
    }
    return t
}()

final class NullSink: ParseSink {
    func event(_ e: ParsedEvent) throws { precondition(Timestamps.validUS.contains(e.timeUS), "event time out of range") }
    func link(bundleId: String, pid: Int64, timeUS: Int64) throws {}
    func deviceNamed(_ name: String) throws {}
}

let catalog = Catalog.builtin
let paris = TimeZone(identifier: "Europe/Paris")
let eventMessageKey = Array("\"eventMessage\"".utf8)

/// The first four bytes as a signed number (years, offsets), else 0.
func int32(_ b: [UInt8]) -> Int {
    b.count < 4 ? 0 : Int(Int32(bitPattern: UInt32(b[0]) << 24 | UInt32(b[1]) << 16 | UInt32(b[2]) << 8 | UInt32(b[3])))
}

/// Parses `content` as `container` in `wrapper`, in two chunks, and checks that every line
/// was read or skipped with a reason.
func everyLineCounted(_ content: [UInt8], _ container: Container, _ wrapper: Wrapper?) {
    let parser = RecordParser(container: container, wrapper: wrapper, catalog: catalog,
                              options: ParseOptions(year: nil, zone: paris, fileDate: Date(timeIntervalSince1970: 1_795_000_000)),
                              sink: NullSink())
    let half = content.count / 2
    do {
        try parser.consume(Array(content[..<half]))
        try parser.consume(Array(content[half...]))
        try parser.finish(complete: true)
    } catch {
        fatalError("\(error)")
    }
    let c = parser.counts
    precondition(c.skipped[SkipReason.unaccounted.rawValue] == nil, "\(container.rawValue) in \(wrapper?.rawValue ?? "no wrapper"): lines lost count of")
    precondition(c.linesInRecords + c.linesSkipped == c.linesRead,
                 "\(container.rawValue): \(c.linesInRecords) read + \(c.linesSkipped) skipped != \(c.linesRead) lines")
    // Without NULs (which idevicesyslog's records may end with), the lines are the newlines
    // and a last line without one.
    if !content.contains(0) {
        let lines = content.reduce(0) { $0 + ($1 == 0x0a ? 1 : 0) } + (content.last.map { $0 == 0x0a ? 0 : 1 } ?? 0)
        precondition(c.linesRead == lines, "\(container.rawValue): \(c.linesRead) lines read of \(lines)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    switch target {
    case .idevicesyslog, .logShow, .logSyslog, .logNDJSON, .logJSON, .privacyReport, .console, .pymobiledevice3,
         .pymobiledevice3JSON, .bsdSyslog, .mobileInstallation, .messageOnly, .sysdiagnose, .logCompact, .xcodeConsole:
        let container = Container(rawValue: target.rawValue)!
        let parser = RecordParser(container: container, catalog: catalog,
                                  options: ParseOptions(year: nil, zone: paris, fileDate: Date(timeIntervalSince1970: 1_795_000_000)),
                                  sink: NullSink())
        // Two chunks, so that a line is also carried over a chunk boundary.
        let half = bytes.count / 2
        do {
            try parser.consume(Array(bytes[..<half]))
            try parser.consume(Array(bytes[half...]))
        } catch is ArchiveError {
            return 0 // a damaged archive is refused as a whole: an error, not a crash
        } catch {
            fatalError("\(error)")
        }
        try? parser.finish(complete: true)
        if let first = parser.counts.firstUS { _ = Timestamps.isoUTC(first) }
        if let last = parser.counts.lastUS { _ = Timestamps.isoUTC(last) }
    case .messageFields:
        _ = MessageFields.parse(bytes: bytes)
        let text = String(decoding: bytes, as: UTF8.self)
        let utf8 = Array(text.utf8)
        _ = utf8.withUnsafeBufferPointer { catalog.isCandidate($0) }
        // AnchorSet finds an anchor exactly when memmem does: anchors cut from the input at
        // 0xff bytes (the last part is the text), and the catalog's own on all of it.
        var parts = bytes.split(separator: 0xff, omittingEmptySubsequences: false).map(Array.init)
        let lastPart = parts.removeLast()
        for (anchors, haystack) in [(parts, lastPart), (catalog.anchors.anchors, bytes)] {
            let expected = anchors.contains { a in
                a.withUnsafeBufferPointer { n in haystack.withUnsafeBufferPointer { memmem($0.baseAddress, $0.count, n.baseAddress, n.count) != nil } }
            }
            let found = haystack.withUnsafeBufferPointer { AnchorSet(anchors).containsAny($0) }
            precondition(found == expected, "AnchorSet and memmem disagree")
        }
        if case .event(let event) = catalog.recognise(text, utf8: utf8, process: "locationd") {
            for (_, value) in event.columns {
                if case .real(let d) = value { precondition(d.isFinite, "a non-finite number in an event") }
            }
        }
    case .timestamps:
        bytes.withUnsafeBufferPointer { b in
            if let t = Timestamps.parseISOLike(b) {
                precondition(Timestamps.validUS.contains(t.us), "an ISO stamp out of range")
                let back = Array(Timestamps.isoUTC(t.us).utf8).withUnsafeBufferPointer { Timestamps.parseISOLike($0) }
                precondition(back?.us == t.us, "isoUTC does not read back")
            }
            if let base = b.baseAddress, let stamp = Timestamps.parseSyslogStamp(base, b.count) {
                // The clock from any first-line year, then one month a byte.
                var clock = SyslogClock(firstLineYear: int32(bytes), fileDate: nil, zone: paris)
                for month in [stamp.month] + bytes.dropFirst(15).map({ Int($0 % 12) + 1 }) {
                    if let placed = clock.place(month: month, day: stamp.day, seconds: stamp.seconds) {
                        _ = Timestamps.isoUTC(clock.utc(local: placed.local).us)
                    }
                }
            }
            if bytes.count >= 8 {
                _ = Timestamps.isoUTC(Int64(bitPattern: bytes.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }))
            }
        }
    case .vis:
        var out: [UInt8] = []
        bytes.withUnsafeBufferPointer { VisDecoding.decode($0, into: &out) }
    case .jsonUnescape:
        var out: [UInt8] = []
        bytes.withUnsafeBufferPointer { b in
            var i = 0
            _ = JSONScan.unescape(b, &i, into: &out)
            precondition(i <= b.count)
            _ = JSONScan.string(key: eventMessageKey, in: b, into: &out)
        }
    case .infoPlist:
        // As the ingest reads one: bounded first (a plist bomb never reaches Foundation).
        if (try? PlistCost.check(bytes)) != nil { _ = try? AppFacts.read(Data(bytes)) }
    case .ideviceinfo:
        _ = IOSVersion(DeviceFacts.parse(ideviceinfo: String(decoding: bytes, as: UTF8.self)).osVersion)
    case .detect:
        _ = Container.detect(bytes)
        _ = Printable.quote(Array(bytes.prefix(256)))
    case .detectParse:
        let content = Array(bytes.dropFirst())
        if let detected = Container.detectWrapped(content), detected.container.isLog {
            everyLineCounted(content, detected.container, detected.wrapper)
        }
        let pick = Int(bytes.first ?? 0)
        let logs = Container.allCases.filter { $0.isLog && $0 != .sysdiagnose }
        everyLineCounted(content, logs[pick % logs.count], [nil, Wrapper.appium, Wrapper.flutter][(pick / logs.count) % 3])
    case .gzip:
        // Always a gzip stream: the magic, then the input (a seed .gz keeps its own).
        let file = bytes.starts(with: [0x1f, 0x8b]) ? bytes : [0x1f, 0x8b] + bytes
        guard FileManager.default.createFile(atPath: gzipPath, contents: Data(file)) else { fatalError("cannot write \(gzipPath)") }
        let zlib = inflated(gzipPath, .zlib, readSize: 1 << 20)
        for readSize in [1 << 20, 1 + (bytes.first.map(Int.init) ?? 0)] {
            let isal = inflated(gzipPath, .isal, readSize: readSize)
            precondition(isal.error == zlib.error, "ISA-L path: \(isal.error ?? "read"), zlib: \(zlib.error ?? "read")")
            precondition(isal.content == zlib.content, "ISA-L path handed on \(isal.content.count) bytes, zlib \(zlib.content.count)")
        }
    case .messageTemplate:
        let message = String(decoding: bytes, as: UTF8.self)
        let template = MessageTemplate(message)
        // The scan that skips to digits finds what trying every position finds.
        var skipping: [Range<Int>] = [], everywhere: [Range<Int>] = []
        var text = message
        text.withUTF8 { b in
            MessageTemplate.arguments(of: b, into: &skipping)
            everywhere = argumentsTryingEveryPosition(b)
        }
        precondition(skipping == everywhere, "\(skipping) against \(everywhere)")
        precondition(template.arguments.count <= MessageTemplate.maxArguments, "\(template.arguments.count) arguments")
        precondition(template.message == message, "the template does not give the message back")
        // The format holds only `%%` and one `%s` per argument (what SQLite's printf reads).
        let f = Array(template.format.utf8)
        var i = 0, conversions = 0
        while i < f.count {
            if f[i] == UInt8(ascii: "%") {
                precondition(i + 1 < f.count && (f[i + 1] == UInt8(ascii: "%") || f[i + 1] == UInt8(ascii: "s")), "a lone % in the format")
                if f[i + 1] == UInt8(ascii: "s") { conversions += 1 }
                i += 2
            } else {
                i += 1
            }
        }
        precondition(conversions == template.arguments.count, "\(conversions) conversions for \(template.arguments.count) arguments")
    }
    return 0
}
