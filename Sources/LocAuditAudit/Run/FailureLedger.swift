import Foundation
import LocAuditIngest
import LocAuditRead

/// The inbox's count of files that fail night after night: `INBOX/.locaudit-failures`, a
/// small JSON file (hidden: never read as a log). A file that fails the same way (the same
/// bytes, the same error) on `FailureLedger.nights` distinct nights is moved to
/// `INBOX/failed/`, with a `.why` text beside it, and stops failing every night.
///
/// Kept in the inbox, not in the store: it is about files the store never held, it goes
/// with the inbox it counts (a new inbox, or one emptied by hand, starts from nothing), it
/// can be read and reset with a text editor (delete it: every count starts again), and it
/// needs no change to the store's schema.
struct FailureLedger: Codable, Equatable {
    struct Entry: Codable, Equatable {
        /// The file's path under the inbox.
        var path: String
        /// Its bytes' SHA-256: a file replaced by a new copy starts its count again.
        var sha256: String
        /// The failure's sentence: a file that fails another way starts its count again.
        var error: String
        /// The local days (yyyy-MM-dd) it failed on, in order, each once.
        var nights: [String]
    }

    var files: [Entry] = []

    static let fileName = ".locaudit-failures"
    /// Nights of the same failure before a file is moved to `failed/`.
    static let nights = 3
    static let folder = "failed"

    /// The local day of a moment, as the ledger writes it.
    static func day(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone.current
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: date)
    }
}

extension NightlyRun {
    /// The inbox's absolute path, without a trailing slash.
    var inboxRoot: String { URL(fileURLWithPath: options.inbox).standardizedFileURL.path }

    /// Whether a path lies in the inbox's `failed/` folder (never read).
    func isQuarantined(_ path: String) -> Bool {
        URL(fileURLWithPath: path).standardizedFileURL.path.hasPrefix(inboxRoot + "/" + FailureLedger.folder + "/")
    }

    /// Counts tonight's failures in the ledger, moves the files that failed the same way on
    /// enough nights to `failed/` (each with a `.why`), and forgets the files that did not fail.
    func countFailures(_ report: inout RunReport, now: Date = Date()) {
        let root = inboxRoot
        let ledgerPath = root + "/" + FailureLedger.fileName
        var ledger = FailureLedger()
        if FileManager.default.fileExists(atPath: ledgerPath) {
            do {
                ledger = try JSONDecoder().decode(FailureLedger.self, from: Data(contentsOf: URL(fileURLWithPath: ledgerPath)))
            } catch {
                log.warning("\(Printable.line(ledgerPath)) cannot be read as locaudit's count of failing files; counting starts again tonight")
            }
        }
        let today = FailureLedger.day(now)
        var next = FailureLedger()
        for file in report.failedFiles {
            let absolute = URL(fileURLWithPath: file.path).standardizedFileURL.path
            // Only regular files of the inbox: not an unreadable folder.
            guard absolute.hasPrefix(root + "/"), FileIdentity(file.path) != nil,
                  let sha256 = try? ByteStream.fileSHA256(path: file.path) else { continue }
            let relative = String(absolute.dropFirst(root.count + 1))
            let error = file.error ?? "unknown error"
            var entry = ledger.files.first(where: { $0.path == relative && $0.sha256 == sha256 && $0.error == error })
                ?? FailureLedger.Entry(path: relative, sha256: sha256, error: error, nights: [])
            if !entry.nights.contains(today) { entry.nights.append(today) }
            guard entry.nights.count >= FailureLedger.nights else {
                next.files.append(entry)
                continue
            }
            if let moved = quarantine(file.path, relative: relative, entry: entry, root: root, today: today) {
                report.quarantined.append((from: file.path, to: moved, nights: entry.nights))
                log.warning("\(Printable.line(file.path)) failed the same way on \(entry.nights.count) nights: moved to \(Printable.line(moved)), with a .why beside it")
            } else {
                next.files.append(entry)
            }
        }
        do {
            if next.files.isEmpty {
                if FileManager.default.fileExists(atPath: ledgerPath) { try FileManager.default.removeItem(atPath: ledgerPath) }
            } else if next != ledger {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                try encoder.encode(next).write(to: URL(fileURLWithPath: ledgerPath), options: .atomic)
            }
        } catch {
            log.warning("cannot write \(Printable.line(ledgerPath)) (\(error.localizedDescription)): failing files are not counted tonight")
        }
    }

    /// Moves a file (and its sidecar) to `failed/` under its inbox path, and writes its `.why`;
    /// nil (logged) when it cannot.
    private func quarantine(_ path: String, relative: String, entry: FailureLedger.Entry, root: String, today: String) -> String? {
        var target = root + "/" + FailureLedger.folder + "/" + relative
        // A file of that name moved there before (and not taken away): this one beside it.
        var n = 1
        while FileManager.default.fileExists(atPath: target) || FileManager.default.fileExists(atPath: target + ".why") {
            guard n < 1000 else { return nil }
            target = root + "/" + FailureLedger.folder + "/" + relative + "." + today + (n > 1 ? "-\(n)" : "")
            n += 1
        }
        let why = """
            locaudit run moved this file here from \(Printable.line(path)) on \(today): it failed the same way \
            on \(entry.nights.count) nights (\(entry.nights.joined(separator: ", "))), and would have failed every night.

            Why it fails: \(entry.error)

            Fix it (or export it again) and put it back in the inbox, or delete it; delete this .why file with it. \
            Nothing under \(FailureLedger.folder)/ is read by locaudit run.

            """
        do {
            try ArchiveMove.makeFolders((target as NSString).deletingLastPathComponent)
            try why.write(toFile: target + ".why", atomically: true, encoding: .utf8)
            try ArchiveMove.move(path, to: target)
            if let sidecar = Ingester.sidecar(of: path) {
                let sidecarTarget = ((target as NSString).deletingLastPathComponent as NSString).appendingPathComponent((sidecar as NSString).lastPathComponent)
                if !FileManager.default.fileExists(atPath: sidecarTarget) { try? ArchiveMove.move(sidecar, to: sidecarTarget) }
            }
            return target
        } catch {
            try? FileManager.default.removeItem(atPath: target + ".why")
            log.warning("\(Printable.line(path)) failed on \(entry.nights.count) nights but cannot be moved to \(Printable.line(target)): \(ArchiveMove.sentence(error, target: target))")
            return nil
        }
    }
}
