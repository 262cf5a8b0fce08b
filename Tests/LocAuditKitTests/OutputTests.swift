import Foundation
import GRDB
import Testing
@testable import LocAuditUnitTests
@testable import LocAuditRead
@testable import LocAuditStore
#if canImport(Glibc)
import Glibc
#endif

/// A store whose audit has one low finding (delivery-while-paused): exit 0 at the default --fail-on.
private func auditable() throws -> AuditWorkspace {
    let ws = try AuditWorkspace()
    try ws.ingest(LogScript().launch().told("AuthorizedWhenInUse").paused(true).deliver().text, os: "17.5.1", plist: .complete)
    return ws
}

/// The file type bits of what is at `path` (not following a link).
private func fileType(_ path: String) -> mode_t? {
    var st = stat()
    return lstat(path, &st) == 0 ? st.st_mode & S_IFMT : nil
}

private func permissions(_ path: String) -> mode_t? {
    var st = stat()
    return stat(path, &st) == 0 ? st.st_mode & 0o777 : nil
}

private let isRoot = getuid() == 0

/// Listens on a Unix stream socket and collects what one client sends.
private final class SocketListener: @unchecked Sendable {
    private let fd: Int32
    private let done = DispatchSemaphore(value: 0)
    private var data = Data()

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard fd >= 0, bound == 0, listen(fd, 1) == 0 else { throw POSIXError(.EADDRINUSE) }
        Thread { [self] in
            let client = accept(fd, nil, nil)
            var buffer = [UInt8](repeating: 0, count: 65536)
            while client >= 0 {
                let n = read(client, &buffer, buffer.count)
                if n <= 0 { break }
                data.append(contentsOf: buffer[..<n])
            }
            close(client)
            done.signal()
        }.start()
    }

    /// What the client sent, once it closed; nil when none came within the timeout.
    func received(within seconds: Double = 30) -> String? {
        done.wait(timeout: .now() + seconds) == .success ? String(decoding: data, as: UTF8.self) : nil
    }

    deinit { close(fd) }
}

/// Nothing locaudit writes destroys anything, and output never fails silently (issue 8).
@Suite(.tags(.endToEnd), .ownThreads) struct OutputTests {
    // MARK: Report paths that are not regular files

    @Test("a report to a character device writes to it and leaves the device in place", .enabled(if: isRoot, "mknod needs root"))
    func characterDevice() throws {
        let ws = try auditable()
        let null = ws.workspace.dir.appendingPathComponent("null").path
        #expect(try run("/usr/bin/mknod", [null, "c", "1", "3"]).status == 0)
        let result = try run(locauditExecutable, ["audit", "--db", ws.dbPath, "--report", "text:\(null)"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(fileType(null) == S_IFCHR, "the device node must not be replaced by a regular file")
    }

    @Test("a report that fails while writing to a device exits 7, says what was written, and the audit stays recorded",
          .enabled(if: isRoot, "mknod needs root"))
    func deviceWriteFails() throws {
        let ws = try auditable()
        let full = ws.workspace.dir.appendingPathComponent("full").path
        let text = ws.workspace.dir.appendingPathComponent("report.txt").path
        #expect(try run("/usr/bin/mknod", [full, "c", "1", "7"]).status == 0)   // /dev/full's numbers: every write fails, ENOSPC
        let result = try run(locauditExecutable, ["audit", "--db", ws.dbPath, "--report", "json:\(full)", "--report", "text:\(text)"])
        #expect(result.status == 7, "\(result.stderr)")
        #expect(result.stderr.contains("cannot write \(full): No space left on device"), "\(result.stderr)")
        #expect(result.stderr.contains("Written before it: \(text)."), "\(result.stderr)")
        #expect(result.stderr.contains("locaudit report --run 1"), "\(result.stderr)")
        #expect(fileType(full) == S_IFCHR)
        #expect(try String(contentsOfFile: text, encoding: .utf8).contains("LOW delivery-while-paused"))
        #expect(try ws.workspace.count("SELECT count(*) FROM audit_runs") == 1)
        #expect(try ws.workspace.count("SELECT count(*) FROM findings") == 1)
    }

    @Test("a report to a FIFO is written to whoever reads it, and the FIFO stays")
    func fifo() throws {
        let ws = try auditable()
        let fifo = ws.workspace.dir.appendingPathComponent("reports.fifo").path
        #expect(mkfifo(fifo, 0o644) == 0)
        final class Box: @unchecked Sendable { var data = Data() }
        let box = Box(), done = DispatchSemaphore(value: 0)
        Thread {
            if let handle = FileHandle(forReadingAtPath: fifo) { box.data = handle.readDataToEndOfFile() }
            done.signal()
        }.start()
        let result = try run(locauditExecutable, ["audit", "--db", ws.dbPath, "--report", "json:\(fifo)"])
        #expect(result.status == 0, "\(result.stderr)")
        try #require(done.wait(timeout: .now() + 30) == .success, "nothing was written to the FIFO")
        let json = try JSONSerialization.jsonObject(with: box.data) as? [String: Any]
        #expect((json?["findings"] as? [Any])?.count == 1)
        #expect(fileType(fifo) == S_IFIFO)
    }

    @Test("a report to a Unix socket is sent to the listener, and the socket stays")
    func socketPath() throws {
        let ws = try auditable()
        let path = ws.workspace.dir.appendingPathComponent("shipper.sock").path
        let listener = try SocketListener(path: path)
        let result = try run(locauditExecutable, ["audit", "--db", ws.dbPath, "--report", "jsonl:\(path)"])
        #expect(result.status == 0, "\(result.stderr)")
        let sent = try #require(listener.received(), "nothing was sent to the socket")
        #expect(sent.split(separator: "\n").count == 1 && sent.contains("\"rule\":\"delivery-while-paused\""), "\(sent)")
        #expect(fileType(path) == S_IFSOCK)
    }

    @Test("a report to a symbolic link is written to its target (existing or not); the link stays a link")
    func symlink() throws {
        let ws = try auditable()
        let dir = ws.workspace.dir
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("reports"), withIntermediateDirectories: true)
        let target = try ws.workspace.write("reports/2026-11-20.txt", "yesterday\n")
        #expect(chmod(target, 0o640) == 0)
        let link = dir.appendingPathComponent("latest.txt").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "reports/2026-11-20.txt")
        let dangling = dir.appendingPathComponent("findings.jsonl").path
        try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: "reports/findings.jsonl")

        let result = try run(locauditExecutable, ["audit", "--db", ws.dbPath, "--report", "text:\(link)", "--report", "jsonl:\(dangling)"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(fileType(link) == S_IFLNK && fileType(dangling) == S_IFLNK)
        #expect(try String(contentsOfFile: target, encoding: .utf8).contains("LOW delivery-while-paused"))
        #expect(permissions(target) == 0o640, "the replaced file keeps its mode")
        #expect(try String(contentsOfFile: dir.appendingPathComponent("reports/findings.jsonl").path, encoding: .utf8).contains("delivery-while-paused"))
    }

    @Test("a link to an open descriptor (like /dev/stdout) appends to what it holds (a file opened with >>, a pipe), never replaces it")
    func descriptorLink() throws {
        let ws = try auditable()
        // A link of the test's own, not /dev/stdout: the code before this fix replaced what the path named.
        let stdoutLink = ws.workspace.dir.appendingPathComponent("stdout").path
        try FileManager.default.createSymbolicLink(atPath: stdoutLink, withDestinationPath: "/proc/self/fd/1")
        let log = try ws.workspace.write("cron.log", "earlier night\n")
        let appending = try #require(FileHandle(forUpdatingAtPath: log))
        try appending.seekToEnd()
        let toFile = try run(locauditExecutable, ["audit", "--db", ws.dbPath, "--report", "text:\(stdoutLink)"], stdout: appending)
        #expect(toFile.status == 0, "\(toFile.stderr)")
        let text = try String(contentsOfFile: log, encoding: .utf8)
        #expect(text.hasPrefix("earlier night\nlocaudit audit: run 1") && text.contains("LOW delivery-while-paused"), "\(text)")
        let toPipe = try run(locauditExecutable, ["audit", "--db", ws.dbPath, "--report", "markdown:\(stdoutLink)"])
        #expect(toPipe.status == 0, "\(toPipe.stderr)")
        #expect(toPipe.stdout.contains("delivery-while-paused"), "\(toPipe.stdout)")
        #expect(fileType(stdoutLink) == S_IFLNK)
    }

    @Test("another user's link in a sticky shared folder (like /tmp) is not followed: exit 2, its target untouched",
          .enabled(if: isRoot, "needs root to own the link as another user"))
    func foreignLinkInSharedFolder() throws {
        let ws = try auditable()
        let shared = ws.workspace.dir.appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
        #expect(chmod(shared.path, 0o1777) == 0)
        let victim = try ws.workspace.write("victim.conf", "keep me\n")
        let link = shared.appendingPathComponent("report.txt").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: victim)
        #expect(lchown(link, 65534, 65534) == 0)
        let result = try run(locauditExecutable, ["audit", "--db", ws.dbPath, "--report", "text:\(link)"])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("another user's link in a shared folder"), "\(result.stderr)")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "keep me\n")
    }

    @Test("a regular report file is replaced whole with its mode kept, and no temporary file is left beside it")
    func regularFile() throws {
        let ws = try auditable()
        let path = try ws.workspace.write("report.md", "old\n")
        #expect(chmod(path, 0o600) == 0)
        let result = try run(locauditExecutable, ["audit", "--db", ws.dbPath, "--report", "markdown:\(path)"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains("delivery-while-paused"))
        #expect(permissions(path) == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: ws.workspace.dir.path).filter { $0.hasSuffix(".tmp") }.isEmpty)
    }

    // MARK: Report paths that cannot be written: exit 2 before anything is audited

    @Test("a report path that is a folder or in a missing folder: exit 2 with a sentence, nothing audited, no other report written",
          arguments: ["folder", "missing/report.txt"])
    func unwritablePath(_ name: String) throws {
        let ws = try auditable()
        try FileManager.default.createDirectory(at: ws.workspace.dir.appendingPathComponent("folder"), withIntermediateDirectories: true)
        let bad = ws.workspace.dir.appendingPathComponent(name).path
        let good = ws.workspace.dir.appendingPathComponent("good.json").path
        let result = try run(locauditExecutable, ["audit", "--db", ws.dbPath, "--report", "json:\(good)", "--report", "text:\(bad)"])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("cannot write \(bad): "), "\(result.stderr)")
        #expect(result.stderr.contains(name == "folder" ? "it is a folder" : "does not exist; create it first (mkdir -p"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: good))
        #expect(!FileManager.default.fileExists(atPath: ws.workspace.dir.appendingPathComponent("missing").path), "no folder is created")
        #expect(try ws.workspace.count("SELECT count(*) FROM audit_runs") == 0)
    }

    @Test("a report in a folder the user cannot write: exit 2 naming the path, nothing audited",
          .enabled(if: isRoot && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "needs root and setpriv to run as nobody"))
    func noPermission() throws {
        let ws = try auditable()
        let dir = ws.workspace.dir
        #expect(try run("/bin/chown", ["-R", "65534:65534", dir.path]).status == 0)
        let locked = dir.appendingPathComponent("locked")
        try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)   // root's, 0755
        let report = locked.appendingPathComponent("report.txt").path
        let result = try run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", locauditExecutable,
                                                  "audit", "--db", ws.dbPath, "--report", "text:\(report)"])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("cannot write \(report): Permission denied in the folder \(locked.path)"), "\(result.stderr)")
        #expect(!result.stderr.contains("Error Domain") && !result.stderr.contains("NSCocoaErrorDomain"))
        #expect(try ws.workspace.count("SELECT count(*) FROM audit_runs") == 0)
    }

    // MARK: The database is never a report path

    @Test("a report path that is the database or one of its files, however spelled, is refused with exit 2 before anything runs",
          arguments: ["test.sqlite", "./test.sqlite", "sub/../test.sqlite", "ABSOLUTE", "link.sqlite", "hard.sqlite",
                      "test.sqlite-wal", "test.sqlite-shm", "test.sqlite.lock", "test.sqlite-journal"])
    func databaseRefused(_ spelling: String) throws {
        let ws = try auditable()
        let dir = ws.workspace.dir
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("link.sqlite").path, withDestinationPath: "sub/../test.sqlite")
        try FileManager.default.linkItem(atPath: ws.dbPath, toPath: dir.appendingPathComponent("hard.sqlite").path)
        let before = try ws.workspace.contentDump()
        let path = spelling == "ABSOLUTE" ? ws.dbPath : spelling
        let result = try run(locauditExecutable, ["audit", "--db", ws.dbPath, "--report", "text:\(path)"], directory: dir)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("\(path) is the database"), "\(result.stderr)")
        #expect(result.stderr.contains("a report there would destroy it"), "\(result.stderr)")
        #expect(try ws.workspace.contentDump() == before, "nothing audited, nothing overwritten")
        #expect(try ws.workspace.count("SELECT count(*) FROM audit_runs") == 0)
    }

    @Test("every command that writes a report path refuses the database: report --output, run --report, audit --write-baseline, $LOCAUDIT_DB",
          arguments: [["report", "--output", "DB"], ["run", "--inbox", "INBOX", "--report", "json:DB"],
                      ["audit", "--write-baseline", "DB"], ["audit", "--report", "text:test.sqlite", "ENV"]])
    func databaseRefusedEverywhere(_ template: [String]) throws {
        let ws = try auditable()
        _ = try ws.audit()
        let inbox = ws.workspace.dir.appendingPathComponent("inbox")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        let before = try ws.workspace.contentDump()
        let env = template.last == "ENV"
        var arguments = template.filter { $0 != "ENV" }.map { $0 == "DB" ? ws.dbPath : $0 == "INBOX" ? inbox.path : $0.replacingOccurrences(of: ":DB", with: ":" + ws.dbPath) }
        if !env { arguments.insert(contentsOf: ["--db", ws.dbPath], at: 1) }
        let result = try run(locauditExecutable, arguments, environment: env ? ["LOCAUDIT_DB": ws.dbPath] : nil, directory: ws.workspace.dir)
        #expect(result.status == 2, "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains("is the database"), "\(result.stderr)")
        #expect(try ws.workspace.contentDump() == before)
    }

    // MARK: Standard output

    @Test("a failed write to standard output exits 7 with a sentence, for every command that prints",
          arguments: [["audit", "--db", "DB"], ["report", "--db", "DB"], ["run", "--inbox", "INBOX", "--db", "DB"],
                      ["query", "--db", "DB", "--sql", "SELECT 1"], ["query", "--list"],
                      ["stats", "--db", "DB"], ["stats", "--db", "DB", "--json"], ["prune", "--db", "DB", "--older-than", "3650d", "--json"],
                      ["ingest", "--db", "DB", "--json", "LOG"], ["ingest", "--db", "DB", "LOG"],
                      ["rules"], ["rules", "explain", "missing-blue-bar"], ["catalog", "show"], ["catalog", "test"],
                      ["--help"], ["--version"], ["query", "--help"], ["catalog", "coverage", "--db", "DB"]])
    func standardOutputFull(_ template: [String]) throws {
        let ws = try auditable()
        _ = try ws.audit()
        let inbox = ws.workspace.dir.appendingPathComponent("inbox")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        let log = try ws.workspace.write("inbox/other-2026-11-20.log", LogScript().launch().deliver().text + "\n")
        let arguments = template.map { ["DB": ws.dbPath, "INBOX": inbox.path, "LOG": log][$0] ?? $0 }
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let result = try run(locauditExecutable, arguments, stdout: full)
        #expect(result.status == 7, "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains("cannot write to standard output: No space left on device"), "\(arguments): \(result.stderr)")
    }

    @Test("a reader that closes the pipe early (| head) ends the output quietly: no signal, no crash report, the command's own status")
    func closedPipe() throws {
        let pipe = Pipe()
        try pipe.fileHandleForReading.close()
        let result = try run(locauditExecutable, ["rules", "explain", "missing-blue-bar"], stdout: pipe.fileHandleForWriting)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
    }

    // MARK: Non-finite numbers

    @Test("query output is total: infinite numbers are null in JSON and Infinity/-Infinity in table and csv, no row lost")
    func nonFiniteQueryValues() throws {
        let ws = try auditable()
        let sql = "SELECT 1e999 AS up, -1e999 AS down, 0.0/0 AS nan, 1 AS n"
        let result = try QueryRunner.run(sql, store: ws.workspace.store)
        let json = try JSONSerialization.jsonObject(with: Data(try QueryFormat.json.render(result).utf8)) as? [[String: Any]]
        #expect(json?.count == 1)
        #expect(json?.first?["up"] is NSNull && json?.first?["down"] is NSNull && json?.first?["nan"] is NSNull)
        #expect(json?.first?["n"] as? Int == 1)
        #expect(try QueryFormat.csv.render(result) == "up,down,nan,n\r\nInfinity,-Infinity,,1\r\n")
        #expect(try QueryFormat.table.render(result).contains("Infinity  -Infinity"))

        let printed = try run(locauditExecutable, ["query", "--db", ws.dbPath, "--format", "json", "--sql", sql])
        #expect(printed.status == 0, "\(printed.stderr)")
        let rows = try JSONSerialization.jsonObject(with: Data(printed.stdout.utf8)) as? [[String: Any]]
        #expect(rows?.count == 1 && rows?.first?["up"] is NSNull, "\(printed.stdout)")
    }

    @Test("query --format json refuses a result with two columns of one name (a join's two id) instead of dropping one; csv keeps both")
    func duplicateColumnsInJSON() throws {
        let ws = try auditable()
        let sql = "SELECT 1 AS id, 2 AS id, 3 AS other"
        let json = try run(locauditExecutable, ["query", "--db", ws.dbPath, "--format", "json", "--sql", sql])
        #expect(json.status == 1, "\(json.stdout)")
        #expect(json.stdout.isEmpty, "\(json.stdout)")
        #expect(json.stderr.contains("two columns named id"), "\(json.stderr)")
        let csv = try run(locauditExecutable, ["query", "--db", ws.dbPath, "--format", "csv", "--sql", sql])
        #expect(csv.status == 0 && csv.stdout == "id,id,other\r\n1,2,3\r\n", "\(csv.stdout)\(csv.stderr)")
    }

    @Test("the HTML report draws a delivery whose stored accuracy is huge or infinite (a store written before non-finite numbers became NULL) instead of crashing",
          arguments: [("1e300", "±1e+300 m"), ("1e999", "±inf m"), ("-1e999", "±-inf m")])
    func htmlNonFiniteAccuracy(_ value: String, _ shown: String) throws {
        let ws = try auditable()
        try ws.workspace.store.connect().write { try $0.execute(sql: "UPDATE event_rows SET horizontal_accuracy = \(value) WHERE horizontal_accuracy IS NOT NULL") }
        let html = ws.workspace.dir.appendingPathComponent("audit.html").path
        let result = try run(locauditExecutable, ["audit", "--db", ws.dbPath, "--report", "html:\(html)"])
        #expect(result.status == 0, "\(result.stderr)")
        let page = try String(contentsOfFile: html, encoding: .utf8)
        #expect(page.contains(shown), "the delivery's tooltip shows the stored accuracy")
    }

}
