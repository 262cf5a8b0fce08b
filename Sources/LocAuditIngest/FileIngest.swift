import Foundation
import GRDB
import LocAuditModel
import LocAuditNormalise
import LocAuditRead
import LocAuditStore

/// Ingests one file: the already-ingested check, the reading and parsing threads,
/// and the event writer's single transaction.
struct FileIngest {
    let ingester: Ingester
    let path: String
    let db: DatabaseQueue
    let bar: ProgressBar
    /// Bytes of events held in memory before taking the write lock (0: take it at once).
    let eventBudget: Int

    static let headBytes = 64 * 1024
    static let maxFactsBytes = 16 << 20

    func run(started: Date) throws -> FileReport {
        var fileDate: Date? = nil
        if path != "-" {
            let attributes = try openAttributes()
            if let first = try alreadyIngested(size: attributes.size) {
                return alreadyIngestedReport(sameAs: first, started: started)
            }
            fileDate = attributes.modified
        }
        // Three threads: this one writes; one reads, hashes and inflates; one parses.
        let stream = try ByteStream(path: path)
        let chunks = Handoff<ByteChunk>.producing("locaudit-read", capacity: 4) { out in
            while let chunk = try stream.next() { try out.put(chunk) }
        }
        defer { chunks.cancelAndWait() }
        let head = try detect(chunks)
        let setting = try setting(for: head, fileDate: fileDate)
        let written = try write(head, setting, chunks: chunks, stream: stream)
        var report = report(written, container: head.container, build: setting.build, started: started)
        report.wrapper = report.outcome == .ingested ? head.wrapper?.rawValue : nil
        if report.outcome == .ingested { report.deviceLink = setting.link }
        return report
    }

    /// The first blocks of a file: the container they show, and the blocks read to tell it.
    private struct Head {
        let container: Container
        /// The test tool whose prefix each line has.
        let wrapper: Wrapper?
        let held: [ByteChunk]
        let bytes: [UInt8]
    }

    /// How a file is read: its parse options, its device, the iOS build its name gives.
    private struct Setting {
        var parse: ParseOptions
        var device: DeviceFacts
        var build: (build: String, version: String, exact: Bool)?
        /// How the log was tied to a device the store knows, or why it was not.
        var link: String?
    }

    /// What the file's one transaction left.
    private struct Written {
        let outcome: CommitOutcome
        let device: DeviceFacts
        let appId: String?
        let members: [String]
    }

    /// The file's size and modification time; a file that cannot be opened stops here.
    private func openAttributes() throws -> (size: Int64, modified: Date?) {
        let attributes: [FileAttributeKey: Any]
        do { attributes = try FileManager.default.attributesOfItem(atPath: path) } catch {
            throw IngestError(description: "cannot open: no such file or not readable. Check the path.")
        }
        return ((attributes[.size] as? Int64) ?? 0, attributes[.modificationDate] as? Date)
    }

    /// The first blocks decide the container.
    private func detect(_ chunks: Handoff<ByteChunk>) throws -> Head {
        var held: [ByteChunk] = []
        var head: [UInt8] = []
        while head.count < FileIngest.headBytes, let chunk = try chunks.take() {
            held.append(chunk)
            head += chunk.bytes.prefix(FileIngest.headBytes - head.count)
        }
        let detected = Container.detectWrapped(head)
        // --format names the container; a tool's prefix around its lines is still read.
        let wrapper = detected?.wrapper
        guard let container = ingester.options.format ?? detected?.container else {
            throw IngestError(description: head.isEmpty
                ? "the file is empty; nothing to ingest."
                : "cannot tell which kind of log this is (line 1: \"\(FileIngest.firstLine(head))\"). Name it with --container (\(FileIngest.formats)).")
        }
        return Head(container: container, wrapper: container.isTextLines ? wrapper : nil, held: held, bytes: head)
    }

    /// The parse options and device facts for this file of this container.
    private func setting(for head: Head, fileDate: Date?) throws -> Setting {
        let container = head.container
        var parseOptions = ingester.options.parse
        // The export's date: in its name (fleet files are DEVICE-YYYY-MM-DD...), else its modification time.
        parseOptions.fileDate = parseOptions.fileDate ?? FileIngest.dateInName(path) ?? fileDate
        // Times of day alone: the first line is on --date, else on the day the name gives
        // (else the modification time decides, see DayClock).
        if container == .console, parseOptions.date == nil {
            parseOptions.date = FileIngest.civilDateInName(path)
            parseOptions.fileDate = ingester.options.parse.fileDate ?? fileDate
        }
        var device = ingester.deviceFacts(for: path)
        // Without a UDID, the device the store knows by the name in the lines or the file's name.
        var link: String? = nil
        if container.isLog {
            let lineName = RecordParser.deviceName(inHead: head.bytes, container: container, wrapper: head.wrapper)
            switch try db.read({ try Devices.link(device, lineName: lineName, path: path, in: $0) }) {
            case .linked(let facts, let by):
                device = facts
                link = "device facts of \(facts.id ?? "unknown") (\(facts.name ?? "no name")), linked by \(by)"
            case .ambiguous(let why):
                link = why
            case .none:
                break
            }
        }
        // A sysdiagnose names the iOS build it was taken on.
        var buildVersion: (build: String, version: String, exact: Bool)? = nil
        if container == .sysdiagnose, device.osVersion == nil, let build = IOSBuild.build(inName: path),
           let version = IOSBuild.version(build: build) {
            device.osVersion = version.version
            buildVersion = (build, version.version, version.exact)
        }
        // Zone-less stamps are the device's local time: ingest's --tz, else the device's
        // TimeZone (sidecar, inventory, store), else run's --tz.
        parseOptions.zone = parseOptions.zone ?? device.timeZone.flatMap(TimeZone.init(identifier:)) ?? ingester.options.fallbackZone
        return Setting(parse: parseOptions, device: device, build: buildVersion, link: link)
    }

    /// Parses (a log) or reads (a facts file) the rest of the file and writes it in the file's one transaction.
    private func write(_ head: Head, _ setting: Setting, chunks: Handoff<ByteChunk>, stream: ByteStream) throws -> Written {
        let container = head.container
        let device = setting.device
        let parsedCounts = Locked((counts: ParseCounts(), members: [String]()))
        var appId: String? = nil
        let (outcome, writtenDevice): (CommitOutcome, DeviceFacts) = try db.inDatabase { db in
            let writer = try EventWriter(db: db, device: device, budgetBytes: eventBudget)
            do {
                var factsBytes: [UInt8] = []
                if container.isLog {
                    try parse(head, setting.parse, chunks: chunks, stream: stream, into: writer, counts: parsedCounts)
                } else {
                    factsBytes = try readFacts(head, chunks: chunks)
                }
                switch container {
                case .infoPlist:
                    // Bounded before Foundation reads it: shared references expand (PlistCost).
                    do { try PlistCost.check(factsBytes) } catch let refusal as PlistCost.Refusal {
                        throw IngestError(description: refusal.description)
                    }
                    appId = try AppFacts.read(Data(factsBytes)).bundleId
                case .deviceInfo:
                    writer.device = DeviceFacts.parse(ideviceinfo: String(decoding: factsBytes, as: UTF8.self))
                    guard writer.device.id != nil else {
                        throw IngestError(description: "ideviceinfo output without UniqueDeviceID or DeviceName; run `ideviceinfo` again with the device connected.")
                    }
                default:
                    break
                }
                let counts = parsedCounts.withLock(\.counts)
                let facts = SourceFacts(path: path, fileSHA256: ByteStream.hex(stream.fileHash),
                                        contentSHA256: ByteStream.hex(stream.contentHash), size: stream.fileOffset,
                                        contentSize: stream.contentSize, gzipMembers: stream.gzipMembers, container: container,
                                        wrapper: head.wrapper, device: device, counts: counts)
                let outcome = try writer.commit(facts) { db in
                    if container == .infoPlist {
                        try FactsWriter.upsertApp(try AppFacts.read(Data(factsBytes)), path: path, sha256: facts.contentSHA256, in: db)
                        try BundleLinker.linkAll(in: db)
                    }
                }
                return (outcome, writer.device)
            } catch {
                writer.abandon()
                throw error
            }
        }
        return Written(outcome: outcome, device: writtenDevice, appId: appId, members: parsedCounts.withLock(\.members))
    }

    /// A log: parses it on its own thread and hands each batch of events to the writer.
    private func parse(_ head: Head, _ parseOptions: ParseOptions, chunks: Handoff<ByteChunk>, stream: ByteStream,
                       into writer: EventWriter, counts parsedCounts: Locked<(counts: ParseCounts, members: [String])>) throws {
        let container = head.container
        let parsed = Handoff<[ParsedItem]>.producing("locaudit-parse", capacity: 16) { [held = head.held, head = head.bytes, wrapper = head.wrapper, parseOptions, catalog = ingester.catalog, complete = ingester.options.complete, forced = ingester.options.format != nil, bar, path] out in
            let batches = ParsedBatches(out)
            let parser = RecordParser(container: container, wrapper: wrapper, catalog: catalog, options: parseOptions, sink: batches)
            for chunk in held {
                try parser.consume(chunk.bytes)
                bar.update(path: path, offset: chunk.fileOffset)
            }
            while let chunk = try chunks.take() {
                try parser.consume(chunk.bytes)
                bar.update(path: path, offset: chunk.fileOffset)
            }
            try parser.finish(complete: complete || stream.endedWithTrailer)
            if let error = FileIngest.unread(parser, forced: forced, head: head) { throw error }
            try batches.flush()
            parsedCounts.withLock { $0 = (parser.counts, parser.membersRead) }
        }
        defer { parsed.cancelAndWait() }
        while let batch = try parsed.take() {
            for item in batch { try writer.take(item) }
        }
    }

    /// A facts file (Info.plist, ideviceinfo): its bytes, up to `maxFactsBytes`.
    private func readFacts(_ head: Head, chunks: Handoff<ByteChunk>) throws -> [UInt8] {
        var factsBytes: [UInt8] = []
        for chunk in head.held { factsBytes += chunk.bytes }
        while let chunk = try chunks.take() {
            factsBytes += chunk.bytes
            guard factsBytes.count <= FileIngest.maxFactsBytes else {
                throw IngestError(description: "too large for a \(head.container.rawValue) file (over 16 MB). Check that this is the right file.")
            }
        }
        return factsBytes
    }

    /// A file whose content is already in the store.
    private func alreadyIngestedReport(sameAs first: String, started: Date) -> FileReport {
        var report = FileReport(path: path, outcome: .alreadyIngested, seconds: Date().timeIntervalSince(started))
        report.sameAs = first
        return report
    }

    /// What the ingest of this file says: what was stored, what was skipped, and advice.
    private func report(_ written: Written, container: Container, build: (build: String, version: String, exact: Bool)?, started: Date) -> FileReport {
        let seconds = Date().timeIntervalSince(started)
        switch written.outcome {
        case .alreadyIngested(let first):
            return alreadyIngestedReport(sameAs: first, started: started)
        case .stored(let sourceId, let events, let duplicates, let counts, let zone):
            var report = FileReport(path: path, outcome: .ingested, seconds: seconds)
            report.sourceId = sourceId
            report.container = container.rawValue
            report.app = written.appId
            if container != .infoPlist {
                report.device = written.device.id ?? "unknown"
                report.iosVersion = written.device.osVersion
            }
            if container.isLog {
                report.firstTime = counts.firstUS.map(Timestamps.isoUTC)
                report.lastTime = counts.lastUS.map(Timestamps.isoUTC)
                report.zoneAssumed = counts.zoneAssumed
                report.linesRead = counts.linesRead
                report.events = events
                report.eventsByKind = counts.eventsByKind
                var skipped = counts.skipped
                if duplicates > 0 { skipped[SkipReason.duplicate.rawValue] = duplicates }
                report.skipped = skipped
                report.firstSkippedLine = counts.firstLine.isEmpty ? nil : counts.firstLine
                report.notes = counts.notes
                report.heldBackFrom = counts.heldBackFrom
                if let offset = zone.offset, let from = zone.from {
                    report.zoneFrom = "\(ZoneReconciler.text(offset: offset)), the offset of \(from)"
                }
                report.zoneGivenTo = zone.gaveTo.isEmpty ? nil : zone.gaveTo
                report.advice = FileIngest.advice(container, members: written.members, build: build)
            }
            return report
        }
    }

    /// The path this file's bytes were first ingested from, if they were.
    private func alreadyIngested(size: Int64) throws -> String? {
        try Store.firstIngest(size: size, sha256: { try ByteStream.fileSHA256(path: path) }, in: db)
    }

    /// Why a log of which nothing could be read is not recorded: so that the retry, with the
    /// right `--container` or once the file is whole, is not skipped as already ingested.
    static func unread(_ parser: RecordParser, forced: Bool, head: [UInt8]) -> IngestError? {
        let container = parser.container.rawValue
        if parser.container == .sysdiagnose, parser.membersRead.isEmpty {
            return IngestError(description: "no part of this archive is one locaudit reads (logs/MobileInstallation/mobile_installation.log.*). \(sysdiagnoseAdvice)")
        }
        if parser.recognisesNothing {
            let record = "no line is \(container.hasPrefix("i") ? "an" : "a") \(container) record (line 1: \"\(firstLine(head))\")"
            guard forced else {
                return IngestError(description: "its first lines looked like \(container), but \(record). If it is a device log, name its kind with --container (\(formats)).")
            }
            if let detected = Container.detect(head), detected != parser.container {
                return IngestError(description: "\(record): it is not \(container). Drop --container: the file looks like \(detected.rawValue).")
            }
            return IngestError(description: "\(record): it is not \(container). Drop --container, or name another kind (\(formats)).")
        }
        if !parser.sawContent, parser.counts.heldBackFrom != nil {
            return IngestError(description: "no complete line yet: the file ends without a newline (a copy still under way?). Ingest it once it is whole, or with --complete if it is.")
        }
        return nil
    }

    static var formats: String { Container.allCases.map(\.rawValue).joined(separator: ", ") }

    /// The file's first line (at most 80 bytes), quoted with control bytes escaped.
    static func firstLine(_ head: [UInt8]) -> String {
        Printable.quote(Array(head.prefix(while: { $0 != 0x0a }).prefix(80)))
    }

    /// The last `YYYY-MM-DD` in a file name, as the end of that day (UTC).
    static func dateInName(_ path: String) -> Date? {
        guard let date = civilDateInName(path) else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(date.days * 86_400 + 86_399))
    }

    /// The last `YYYY-MM-DD` in a file name that names a real day.
    static func civilDateInName(_ path: String) -> CivilDate? {
        let name = (path as NSString).lastPathComponent
        guard let regex = try? NSRegularExpression(pattern: "(\\d{4})-(\\d{2})-(\\d{2})"),
              let match = regex.matches(in: name, range: NSRange(name.startIndex..., in: name)).last,
              let range = Range(match.range, in: name) else { return nil }
        return CivilDate(String(name[range]))
    }

    static let sysdiagnoseAdvice = "Its unified log, system_logs.logarchive, must be turned into text on a Mac: `tar -xzf ARCHIVE`, then `log show --archive …/system_logs.logarchive --style ndjson > DEVICE-YYYY-MM-DD.ndjson`, and ingest that."

    /// One or two sentences on what locaudit read of a container that holds more (or less) than it reads.
    static func advice(_ container: Container, members: [String], build: (build: String, version: String, exact: Bool)?) -> String? {
        switch container {
        case .messageOnly:
            return "Bare messages without time or process (Console's message column alone): no line can be placed in time, so none is an event. Copy whole lines from Console (every column), or export with `log show --style ndjson` on a Mac."
        case .sysdiagnose:
            var text = "A sysdiagnose: read its MobileInstallation log\(members.count == 1 ? "" : "s") (\(members.count) member\(members.count == 1 ? "" : "s"), lines numbered through them in archive order). "
            if let build {
                text += "iOS \(build.version) from build \(build.build) in its name\(build.exact ? "" : " (approximate: the minor version is read from the build's letter)"). "
            }
            return text + sysdiagnoseAdvice
        default:
            return nil
        }
    }
}
