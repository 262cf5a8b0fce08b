import Foundation
import Testing

/// README's two commands and .ci/run (from SetupScriptTests.swift, in the test process).
@Suite struct ReadmeCommandTests {
    /// README.md's first block: the run command and the test command, each set up first; CI
    /// runs the same test command.
    @Test("README's first two commands set the machine up first, and .ci/run runs README's test command")
    func readmeCommands() throws {
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let block = try #require(readme.firstMatch(of: #/```sh\n(?<body>(?:.*\n)*?)```/#)).output.body
        let commands = block.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
        #expect(commands.count == 2)
        let run = try #require(commands.first), test = try #require(commands.last)
        #expect(run.hasPrefix("scripts/setup.sh && swift run locaudit "), "README's run command: \(run)")
        #expect(test == "scripts/setup.sh --test && swift test", "README's test command: \(test)")
        let ci = try String(contentsOf: packageRoot.appendingPathComponent(".ci/run"), encoding: .utf8)
        #expect(ci.split(separator: "\n").contains { $0 == test }, ".ci/run does not run README's test command")
        #expect(FileManager.default.isExecutableFile(atPath: packageRoot.appendingPathComponent("scripts/setup.sh").path))
    }
}
