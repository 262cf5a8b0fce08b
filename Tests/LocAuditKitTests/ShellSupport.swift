import Foundation
@testable import LocAuditUnitTests

/// A folder where documented command lines run as a user types them: `bash -c LINE` with the
/// built `locaudit` first on PATH, the checkout's `samples/` and `queries/` linked in (read
/// only by the commands that run here), and HOME inside the folder.
final class ShellFolder {
    let workspace: Workspace
    var dir: URL { workspace.dir }
    let bin: URL

    init() throws {
        workspace = try Workspace()
        bin = workspace.dir.appendingPathComponent(".bin")
        let fm = FileManager.default
        try fm.createDirectory(at: bin, withIntermediateDirectories: true)
        try fm.createSymbolicLink(atPath: bin.appendingPathComponent("locaudit").path, withDestinationPath: locauditExecutable)
        for name in ["samples", "queries"] {
            try fm.createSymbolicLink(atPath: dir.appendingPathComponent(name).path,
                                      withDestinationPath: packageRoot.appendingPathComponent(name).path)
        }
        try fm.createDirectory(at: dir.appendingPathComponent("home"), withIntermediateDirectories: true)
    }

    /// Runs one command line; its output is standard output and standard error merged, as a
    /// terminal shows them.
    func run(_ line: String, environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
        let env = ["PATH": bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
                   "HOME": dir.appendingPathComponent("home").path, "COLUMNS": "80"].merging(environment) { $1 }
        let script = "unset LOCAUDIT_DB LOCAUDIT_CATALOG LOCAUDIT_QUERIES XDG_CONFIG_HOME\n{ \(line)\n} 2>&1"
        let result = try LocAuditKitTests.run("/bin/bash", ["-o", "pipefail", "-c", script], environment: env, directory: dir)
        return (result.status, result.stdout + result.stderr)
    }
}
