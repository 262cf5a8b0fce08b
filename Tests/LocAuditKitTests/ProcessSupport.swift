import Foundation
@testable import LocAuditUnitTests

// Starting programs: the end-to-end target's (the unit target has neither `run` nor the
// binary's path, and `UnitTargetTests` finds no other way to start one in its files).

/// Runs a real program and returns its exit status and output. `stdout` sends its standard
/// output elsewhere than the returned string (then empty); `directory` is its working folder.
@discardableResult
func run(_ executable: String, _ arguments: [String], stdin: [UInt8]? = nil, environment: [String: String]? = nil,
         stdout: FileHandle? = nil, directory: URL? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
    if let directory { process.currentDirectoryURL = directory }
    let out = Pipe(), err = Pipe(), input = Pipe()
    process.standardOutput = stdout ?? out
    process.standardError = err
    process.standardInput = input
    try process.run()
    if let stdin { input.fileHandleForWriting.write(Data(stdin)) }
    try input.fileHandleForWriting.close()
    if stdout != nil { try out.fileHandleForWriting.close() }
    let o = out.fileHandleForReading.readDataToEndOfFile()
    let e = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
}

/// The `locaudit` executable built alongside the tests, or `$LOCAUDIT_TEST_EXECUTABLE` (to run
/// a test against another build: an older one shows that the test fails without the change).
var locauditExecutable: String {
    if let other = ProcessInfo.processInfo.environment["LOCAUDIT_TEST_EXECUTABLE"], !other.isEmpty { return other }
    let candidates = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent(),
                      URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()]
    for dir in candidates {
        let path = dir.appendingPathComponent("locaudit").path
        if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    return packageRoot.appendingPathComponent(".build/debug/locaudit").path
}
