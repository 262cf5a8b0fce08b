import Foundation
import GRDB
import Testing
@testable import LocAuditUnitTests

/// The run state of a process (`/proc/PID/stat`'s third field: `T` stopped, `Z` ended).
func processState(_ pid: Int32) -> Character? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return nil }
    return stat[close...].dropFirst().first { $0 != " " }
}

/// Starts the real `locaudit` with `environment` added, its output (both streams) into the
/// file `output`, else discarded.
func startLocaudit(_ arguments: [String], environment: [String: String], output: String? = nil) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: locauditExecutable)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    var sink = FileHandle.nullDevice
    if let output {
        FileManager.default.createFile(atPath: output, contents: nil)
        sink = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
    }
    process.standardOutput = sink
    process.standardError = sink
    try process.run()
    return process
}

/// Waits (at most `seconds`) until the process has stopped itself at a test hook.
func waitUntilStopped(_ process: Process, seconds: Double = 120) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline, process.isRunning {
        if processState(process.processIdentifier) == "T" { return true }
        Thread.sleep(forTimeInterval: 0.05)
    }
    return false
}

/// A `run` killed between its ingest and its audit owes the audit: the next run settles it.
@Suite(.serialized, .tags(.endToEnd), .ownThreads) struct RunOwedAuditTests {
    @Test("a run killed -9 between its ingest and its audit: the next run audits what it stored, as an uninterrupted run would")
    func killedBeforeItsAudit() throws {
        let ws = try Workspace()
        let inbox = ws.dir.appendingPathComponent("inbox").path
        try generateFleet(into: inbox, devices: 2, size: "200K")
        let db = ws.dir.appendingPathComponent("night.sqlite").path
        let arguments = ["run", "--inbox", inbox, "--db", db, "--settle", "0"]
        // The test hook stops the run after its ingest, before its audit: kill -9 there.
        let killed = try startLocaudit(arguments, environment: ["LOCAUDIT_TEST_STOP_BEFORE_AUDIT": "1"])
        let stopped = waitUntilStopped(killed)
        if !stopped, killed.isRunning { killed.terminate() }
        try #require(stopped, "the run never reached the hook between its ingest and its audit")
        kill(killed.processIdentifier, SIGKILL)
        killed.waitUntilExit()
        #expect(killed.terminationReason == .uncaughtSignal && killed.terminationStatus == SIGKILL)
        #expect(try WatchTests.count(db, "SELECT count(*) FROM sources WHERE container = 'idevicesyslog'") == 2, "the ingest was committed")
        #expect(try WatchTests.count(db, "SELECT count(*) FROM audit_runs") == 0, "the kill came before the audit")

        // The next night: nothing new in the inbox, but what the killed run stored is audited first.
        let archive = ws.dir.appendingPathComponent("archive").path
        let next = try run(locauditExecutable, arguments + ["--archive", archive])
        #expect(!next.stdout.contains("Nothing new: nothing audited."), "\(next.stdout)")
        #expect(next.stdout.contains("stopped before its audit"), "\(next.stdout)")
        #expect(try WatchTests.count(db, "SELECT count(*) FROM audit_runs") == 1, "\(next.stderr)")

        // As a run that was never interrupted: the same findings, the same exit code.
        let control = ws.dir.appendingPathComponent("control").path
        try generateFleet(into: control, devices: 2, size: "200K")
        let controlDB = ws.dir.appendingPathComponent("control.sqlite").path
        let uninterrupted = try run(locauditExecutable, ["run", "--inbox", control, "--db", controlDB, "--settle", "0"])
        let findings = "SELECT count(*) FROM findings"
        #expect(try WatchTests.count(controlDB, findings) > 0)
        #expect(try WatchTests.count(db, findings) == WatchTests.count(controlDB, findings))
        #expect(next.status == uninterrupted.status, "\(next.stderr)")
        // Settled once: the run after that has nothing new and owes nothing.
        let third = try run(locauditExecutable, arguments)
        #expect(third.status == 0 && third.stdout.contains("Nothing new: nothing audited."), "\(third.stdout)")
        #expect(try WatchTests.count(db, "SELECT count(*) FROM audit_runs") == 1)
    }
}
