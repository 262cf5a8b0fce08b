import LocAuditRead

/// What happened to one input file.
public struct FileReport: Codable, Sendable {
    public enum Outcome: String, Codable, Sendable {
        /// Stored (a log's events, or a device's or app's facts).
        case ingested
        /// Its content was already in the store; nothing was written.
        case alreadyIngested = "already-ingested"
        /// Nothing of it was stored.
        case failed
    }

    public var path: String
    public var outcome: Outcome
    /// For `ingested`: its row in `sources`.
    public var sourceId: Int64?
    public var container: String?
    /// The test tool whose prefix each line had (`appium`, `flutter`): the lines inside are `container`'s.
    public var wrapper: String?
    public var device: String?
    public var iosVersion: String?
    /// For an Info.plist: the app's bundle id.
    public var app: String?
    public var firstTime: String?
    public var lastTime: String?
    public var zoneAssumed: Bool?
    /// A zone-less log beside a zoned export of the same device and period: the offset it
    /// took, and from which export (`UTC+01:00, the offset of PATH`).
    public var zoneFrom: String?
    /// A zoned log: the zone-less logs of its device and period that took its offset.
    public var zoneGivenTo: [String]?
    public var linesRead: Int?
    public var events: Int?
    public var eventsByKind: [String: Int]?
    public var skipped: [String: Int]?
    /// For reasons that point at a damaged line (`malformed`, `bad-timestamp`, `incomplete`, `too-long`): the first such line.
    public var firstSkippedLine: [String: Int]?
    public var notes: [String: Int]?
    /// The first line held back because the file ended inside it (see `ParseCounts.heldBackFrom`).
    public var heldBackFrom: Int?
    /// What locaudit read of a container that holds more than it reads, or nothing it can
    /// place in time (a sysdiagnose, a file of bare messages), and what to export instead.
    public var advice: String?
    /// How a log without a UDID of its own was tied to a device the store knows (its name in
    /// the lines, its file name), or why it was tied to none (two devices fit).
    public var deviceLink: String?
    /// For `already-ingested`: the path it was first ingested from.
    public var sameAs: String?
    /// For `failed`: what went wrong and what to do.
    public var error: String?
    public var seconds: Double

    init(path: String, outcome: Outcome, seconds: Double) {
        self.path = path
        self.outcome = outcome
        self.seconds = seconds
    }
}

/// The outcome of one `ingest` run.
public struct IngestReport: Codable, Sendable {
    public var database: String
    /// True when this ingest would have created the database and stored nothing: none is left behind.
    public var noDatabaseWritten: Bool?
    public var files: [FileReport]
    /// Symbolic links inside a folder given: not followed, not read (absent when none).
    public var skippedLinks: [String]?

    public var failed: Int { files.filter { $0.outcome == .failed }.count }

    /// Exit status: 0 all stored or already there, 1 some file failed, 3 nothing to read.
    public var exitCode: Int32 {
        if files.isEmpty { return 3 }
        return failed > 0 ? 1 : 0
    }

    /// The summary people read: one block per file, then a total.
    public func text() -> String {
        var out = ""
        for f in files {
            switch f.outcome {
            case .failed:
                out += "FAILED  \(Printable.line(f.path)): \(f.error ?? "unknown error")\n"
            case .alreadyIngested:
                out += "skipped \(Printable.line(f.path)): already ingested" + (f.sameAs.map { $0 == f.path ? "" : " (same content as \(Printable.line($0)))" } ?? "") + "\n"
            case .ingested where f.app != nil:
                out += "ingested \(Printable.line(f.path))\n  info-plist · app \(Printable.line(f.app!))\n"
            case .ingested:
                let device = f.device ?? "unknown device"
                let ios = f.iosVersion.map { "iOS \($0)" } ?? "iOS unknown"
                out += "ingested \(Printable.line(f.path))\n  \(f.container ?? "?")\(f.wrapper.map { " in \($0)'s log" } ?? "") · \(Printable.line(device)) · \(ios)"
                if let a = f.firstTime, let b = f.lastTime { out += " · \(a) … \(b)\(f.zoneAssumed == true ? " (zone assumed UTC)" : "")" }
                out += "\n"
                if let from = f.zoneFrom { out += "  no zone in its lines: read at \(Printable.line(from)), an export of the same device and period\n" }
                for path in f.zoneGivenTo ?? [] { out += "  its offset re-timed \(Printable.line(path)), an export of the same device and period without a zone\n" }
                if let lines = f.linesRead {
                    out += "  \(lines) lines, \(f.events ?? 0) events"
                    if let kinds = f.eventsByKind, !kinds.isEmpty {
                        out += " (" + kinds.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")"
                    }
                    out += "\n"
                }
                if let skipped = f.skipped, !skipped.isEmpty {
                    out += "  skipped: " + skipped.sorted { $0.key < $1.key }.map { reason, n in
                        "\(reason) \(n)" + (f.firstSkippedLine?[reason].map { n == 1 ? " (line \($0))" : " (first at line \($0))" } ?? "")
                    }.joined(separator: ", ") + "\n"
                }
                if let notes = f.notes, !notes.isEmpty {
                    out += "  notes: " + notes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + "\n"
                }
                if let link = f.deviceLink { out += "  \(link)\n" }
                if let advice = f.advice { out += "  \(advice)\n" }
                if let line = f.heldBackFrom {
                    out += "  held back from line \(line): the file ends inside it (a copy still under way?); ingest the file again once it is whole: only what is missing is added\n"
                }
            }
        }
        for link in skippedLinks ?? [] { out += "skipped " + Ingester.linkSkipped(link, inside: "folder") + "\n" }
        let stored = files.filter { $0.outcome == .ingested }.count
        let already = files.filter { $0.outcome == .alreadyIngested }.count
        let events = files.compactMap(\.events).reduce(0, +)
        out += "\(stored) ingested, \(already) already ingested, \(failed) failed; "
            + (noDatabaseWritten == true ? "nothing stored, so no database written at \(database)\n" : "\(events) events into \(database)\n")
        return out
    }
}

