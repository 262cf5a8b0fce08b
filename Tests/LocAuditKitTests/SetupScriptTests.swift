import Foundation
import Testing
@testable import LocAuditUnitTests

/// `scripts/setup.sh`, what the README's first two commands run on a fresh machine. It runs
/// here against fake `dpkg`, `apt-get` and `id` (a PATH of nothing else), so that no test ever
/// installs or removes a real package: the fakes record what the script asked for.
@Suite(.tags(.endToEnd), .ownThreads) struct SetupScriptTests {
    /// A PATH holding only `bash` and the fakes; `installed` are the packages dpkg knows,
    /// `commands` the programs found on PATH.
    struct FakeSystem {
        let workspace: Workspace
        let bin: URL
        var log: URL { workspace.dir.appendingPathComponent("apt-get.log") }

        init(installed: [String], commands: [String], root: Bool = true, dpkg: Bool = true, aptGet: Bool = true,
             aptGetStatus: Int = 0) throws {
            workspace = try Workspace()
            bin = workspace.dir.appendingPathComponent("bin")
            let fm = FileManager.default
            try fm.createDirectory(at: bin, withIntermediateDirectories: true)
            try fm.createSymbolicLink(atPath: bin.appendingPathComponent("bash").path, withDestinationPath: "/bin/bash")
            let packages = try workspace.write("installed", installed.map { $0 + "\n" }.joined())
            func fake(_ name: String, _ body: String) throws {
                let path = try workspace.write("bin/" + name, "#!/bin/sh\n" + body + "\n")
                try fm.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
            }
            try fake("id", "echo \(root ? 0 : 1000)")
            if dpkg {
                try fake("dpkg", "while read p; do [ \"$p\" = \"$2\" ] && exit 0; done < '\(packages)'; exit 1")
            }
            if aptGet { try fake("apt-get", "echo \"$*\" >> '\(log.path)'; exit \(aptGetStatus)") }
            for name in commands { try fake(name, "exit 0") }
        }

        func setup(_ arguments: [String] = []) throws -> (status: Int32, stderr: String, aptGet: [String]) {
            let script = packageRoot.appendingPathComponent("scripts/setup.sh").path
            let result = try run(script, arguments, environment: ["PATH": bin.path])
            let calls = (try? String(contentsOf: log, encoding: .utf8))?.split(separator: "\n").map(String.init) ?? []
            return (result.status, result.stdout + result.stderr, calls)
        }
    }

    static let headers = ["libsqlite3-dev", "zlib1g-dev", "libisal-dev"]

    @Test("nothing missing: quiet, exit 0, apt-get never called")
    func nothingMissing() throws {
        let system = try FakeSystem(installed: Self.headers + ["postgresql"], commands: ["gzip", "python3", "chromium", "openssl"])
        for arguments in [[], ["--test"]] {
            let result = try system.setup(arguments)
            #expect(result.status == 0 && result.stderr.isEmpty && result.aptGet.isEmpty, "\(arguments): \(result)")
        }
    }

    @Test("as root, what is missing is installed with apt-get: the headers for a build, python3, chromium, postgresql and openssl for the tests")
    func installsAsRoot() throws {
        let build = try FakeSystem(installed: [], commands: ["gzip"]).setup()
        #expect(build.status == 0, "\(build.stderr)")
        #expect(build.aptGet == ["update -qq", "install -y -qq libsqlite3-dev zlib1g-dev libisal-dev"])
        #expect(build.stderr.contains("setup: installing libsqlite3-dev zlib1g-dev libisal-dev (apt-get)"))

        let tests = try FakeSystem(installed: Self.headers, commands: ["gzip"]).setup(["--test"])
        #expect(tests.status == 0, "\(tests.stderr)")
        #expect(tests.aptGet == ["update -qq", "install -y -qq postgresql python3 chromium openssl python3-jsonschema"])
    }

    @Test("python3 without the jsonschema module (the SARIF schema test): python3-jsonschema is installed for the tests only")
    func installsJSONSchema() throws {
        let system = try FakeSystem(installed: Self.headers + ["postgresql"], commands: ["gzip", "chromium", "openssl"])
        // A python3 that has no module at all: every import fails.
        let python = try system.workspace.write("bin/python3", "#!/bin/sh\n[ \"$1\" = -c ] && exit 1\nexit 0\n")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: python)
        let build = try system.setup()
        #expect(build.status == 0 && build.aptGet.isEmpty, "a build needs no jsonschema: \(build)")
        let tests = try system.setup(["--test"])
        #expect(tests.status == 0, "\(tests.stderr)")
        #expect(tests.aptGet == ["update -qq", "install -y -qq python3-jsonschema"])
        let elsewhere = try FakeSystem(installed: [], commands: ["gzip", "chromium", "openssl"], dpkg: false, aptGet: false)
        let noApt = try elsewhere.setup(["--test"])
        #expect(noApt.status == 1 && noApt.stderr.contains("missing: python3 python3-jsonschema.") && noApt.stderr.contains("pip3 install jsonschema"), "\(noApt)")
    }

    @Test("not root: exit 1 with the exact apt-get line to run, nothing installed")
    func tellsANonRootUser() throws {
        let result = try FakeSystem(installed: ["zlib1g-dev"], commands: [], root: false).setup(["--test"])
        #expect(result.status == 1)
        #expect(result.aptGet.isEmpty)
        #expect(result.stderr.contains("setup: missing: libsqlite3-dev libisal-dev postgresql gzip python3 chromium openssl python3-jsonschema."))
        #expect(result.stderr.contains("  sudo apt-get update && sudo apt-get install -y libsqlite3-dev libisal-dev postgresql gzip python3 chromium openssl python3-jsonschema\n"))
    }

    @Test("no apt-get: exit 1 naming what to install with the system's own package manager")
    func noAptGet() throws {
        let result = try FakeSystem(installed: [], commands: ["gzip"], aptGet: false).setup()
        #expect(result.status == 1)
        #expect(result.stderr.contains("setup: missing: libsqlite3-dev zlib1g-dev libisal-dev. This system has no apt-get"))
    }

    @Test("no dpkg (macOS: the SDK has the headers): only the commands are checked")
    func noDpkg() throws {
        #expect(try FakeSystem(installed: [], commands: ["gzip"], dpkg: false, aptGet: false).setup().status == 0)
        let tests = try FakeSystem(installed: [], commands: ["gzip"], dpkg: false, aptGet: false).setup(["--test"])
        #expect(tests.status == 1 && tests.stderr.contains("missing: python3 chromium openssl python3-jsonschema."))
    }

    @Test("apt-get failing: exit 1 saying so, never a success")
    func aptGetFails() throws {
        let result = try FakeSystem(installed: [], commands: ["gzip"], aptGetStatus: 100).setup()
        #expect(result.status == 1)
        #expect(result.stderr.contains("setup: apt-get could not install libsqlite3-dev zlib1g-dev libisal-dev"))
    }

    @Test("an unknown argument is a usage error")
    func usage() throws {
        let result = try FakeSystem(installed: Self.headers, commands: ["gzip"]).setup(["--tests"])
        #expect(result.status == 2 && result.stderr.contains("usage: scripts/setup.sh [--test]"))
    }

}
