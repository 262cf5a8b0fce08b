import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import LocAuditUnitTests
@testable import LocAuditRead
@testable import LocAuditStore

/// Runs a real program whose standard error is a pseudo-terminal (standard output a pipe):
/// what a person at a terminal sees of its progress. With `hangUp`, the terminal goes away
/// (its window closed) once the program has written to it: every later write fails.
func runOnTerminal(_ executable: String, _ arguments: [String], directory: URL? = nil, hangUp: Bool = false) throws
    -> (status: Int32, terminal: String, stdout: String) {
    // openpty(3), which Swift's Glibc module does not declare: glibc has it since 2.34.
    typealias OpenPty = @convention(c) (UnsafeMutablePointer<Int32>, UnsafeMutablePointer<Int32>, UnsafeMutablePointer<CChar>?,
                                        UnsafeRawPointer?, UnsafeRawPointer?) -> Int32
    let symbol = try #require(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "openpty"), "no openpty in this libc")
    var master: Int32 = -1, slave: Int32 = -1
    try #require(unsafeBitCast(symbol, to: OpenPty.self)(&master, &slave, nil, nil, nil) == 0, "no pseudo-terminal")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
    process.standardInput = FileHandle(fileDescriptor: open("/dev/null", O_RDONLY), closeOnDealloc: true)
    // The terminal's side, read as the program writes (a terminal holds only a few KB).
    final class Screen: @unchecked Sendable { var bytes: [UInt8] = [] }
    let screen = Screen(), terminal = master
    let reader = Thread {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(terminal, &buffer, buffer.count)
            if n <= 0 { break }
            screen.bytes += buffer[0..<n]
            if hangUp {
                close(terminal)
                break
            }
        }
    }
    reader.start()
    try process.run()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    close(slave)   // the reader now gets EIO: everything written has been read
    while reader.isExecuting { usleep(10_000) }
    if !hangUp || screen.bytes.isEmpty { close(master) }
    return (process.terminationStatus, String(decoding: screen.bytes, as: UTF8.self), String(decoding: stdout, as: UTF8.self))
}

/// Progress bars of `ingest`, `audit` and `run`: on a terminal only.
@Suite(.tags(.endToEnd), .ownThreads) struct ProgressTests {
    /// A store holding the samples, and a night's inbox of two generated devices.
    static func store() throws -> Workspace {
        let ws = try Workspace()
        _ = try ws.ingest([packageRoot.appendingPathComponent("samples/logs").path, packageRoot.appendingPathComponent("samples/apps").path])
        return ws
    }

    @Test("audit on a terminal shows its steps and the sessions checked, then clears the line")
    func auditOnATerminal() throws {
        let ws = try Self.store()
        let result = try runOnTerminal(locauditExecutable, ["audit", "--db", ws.store.path])
        #expect(result.status == 1)
        for step in ["auditing", "recording findings"] {
            #expect(result.terminal.contains(step), "no \(step) on the terminal: \(result.terminal.debugDescription)")
        }
        // The share is of the apps on devices in scope, known ahead: it ends at 100%, with every session counted.
        let apps = try ws.count("SELECT count(*) FROM (SELECT DISTINCT device_id, bundle_id FROM sessions)")
        let sessions = try ws.count("SELECT count(*) FROM sessions")
        #expect(result.terminal.contains("100.0%"), "\(result.terminal.debugDescription)")
        #expect(!result.terminal.contains("  0.0%  0/"), "a bar stuck at 0%: \(result.terminal.debugDescription)")
        #expect(result.terminal.contains("\(apps)/\(apps) apps  \(sessions) sessions"), "\(result.terminal.debugDescription)")
        #expect(result.terminal.hasSuffix("\r\u{1B}[2K"), "the bar is not cleared at the end")
        #expect(result.stdout.contains("FAIL: "), "the report still goes to standard output")
        #expect(!result.stdout.contains("\r"), "progress went to standard output")
    }

    @Test("audit --quiet, and audit with standard error not a terminal, draw no progress")
    func auditNotOnATerminal() throws {
        let ws = try Self.store()
        let quiet = try runOnTerminal(locauditExecutable, ["audit", "--quiet", "--db", ws.store.path])
        #expect(quiet.status == 1)
        #expect(!quiet.terminal.contains("auditing") && !quiet.terminal.contains("\r"), "\(quiet.terminal.debugDescription)")
        let piped = try run(locauditExecutable, ["audit", "--db", ws.store.path])
        #expect(piped.status == 1)
        #expect(!piped.stderr.contains("\r") && !piped.stderr.contains("auditing"), "\(piped.stderr.debugDescription)")
    }

    @Test("run on a terminal shows the files read, then the sessions audited; with --quiet, none")
    func runOnATerminal() throws {
        let ws = try Workspace()
        let inbox = ws.dir.appendingPathComponent("inbox").path
        try generateFleet(into: inbox, devices: 2, size: "200K")
        let db = ws.dir.appendingPathComponent("fleet.sqlite").path
        let result = try runOnTerminal(locauditExecutable, ["run", "--inbox", inbox, "--db", db, "--settle", "0"])
        #expect(result.status == 0 || result.status == 1, "\(result.terminal)")
        #expect(result.terminal.contains(" files  "), "no files count on the terminal: \(result.terminal.debugDescription)")
        #expect(result.terminal.contains("auditing") && result.terminal.contains(" sessions"), "\(result.terminal.debugDescription)")

        try generateFleet(into: inbox, devices: 2, size: "200K", date: "2026-11-21", seed: 2)
        let quiet = try runOnTerminal(locauditExecutable, ["run", "--quiet", "--inbox", inbox, "--db", db, "--settle", "0"])
        #expect(quiet.status == 0 || quiet.status == 1)
        #expect(!quiet.terminal.contains("\r"), "\(quiet.terminal.debugDescription)")
    }

    @Test("a terminal closed under an ingest (every write to it failing) does not stop it: the files are stored")
    func terminalGone() throws {
        let ws = try Workspace()
        let db = ws.dir.appendingPathComponent("store.sqlite").path
        let result = try runOnTerminal(locauditExecutable, ["ingest", "--db", db, packageRoot.appendingPathComponent("samples/logs").path],
                                       hangUp: true)
        #expect(!result.terminal.isEmpty, "the ingest wrote nothing to the terminal before it went")
        #expect(result.status == 0)
        #expect(result.stdout.contains(" ingested, 0 already ingested, 0 failed"))
        #expect(try Store(path: db, access: .read).connect(readOnly: true).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM sources") } ?? 0 > 10)
    }

}
