import ArgumentParser
import Foundation
import LocAuditKit

/// Where user catalog files are looked for.
enum CatalogLocation {
    /// `--catalog` files, else `$LOCAUDIT_CATALOG`, else `~/.config/locaudit/catalog.json` (or under `$XDG_CONFIG_HOME`) when it exists.
    static func files(explicit: [String]) -> [String] {
        if !explicit.isEmpty { return explicit }
        let env = ProcessInfo.processInfo.environment
        if let path = env["LOCAUDIT_CATALOG"], !path.isEmpty { return [path] }
        let config = env["XDG_CONFIG_HOME"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config")
        let path = config.appendingPathComponent("locaudit/catalog.json").path
        return FileManager.default.fileExists(atPath: path) ? [path] : []
    }
}

struct CatalogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catalog",
        abstract: "Show or test the message catalog.",
        discussion: """
            Which log messages are events, and how their keys map to columns, is data: \
            the built-in catalog, with catalog files laid over it (--catalog of ingest and \
            run, else $LOCAUDIT_CATALOG, else ~/.config/locaudit/catalog.json).

            EXAMPLES:
              # start a catalog file from the built-in one, then test it
              locaudit catalog show > catalog.json
              locaudit catalog test catalog.json
            """,
        subcommands: [Show.self, Test.self]
    )

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the built-in catalog (a valid catalog file to start from).",
            discussion: """
                EXAMPLES:
                  locaudit catalog show > catalog.json
                """)
        func run() throws { try Output.standardOutput(Catalog.builtinJSON + "\n") }
    }

    struct Test: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check that every sample of the catalog parses to the event it claims.",
            discussion: """
                Tests the built-in catalog with FILE (or the default user catalog) laid over \
                it. Exit 0 when every sample passes, 1 otherwise.

                EXAMPLES:
                  # the built-in catalog (and yours, when there is one)
                  locaudit catalog test
                  locaudit catalog test catalog.json
                """
        )

        @Argument(help: ArgumentHelp("A catalog file to test over the built-in one.", valueName: "file"))
        var file: String?

        func run() throws {
            let files = CatalogLocation.files(explicit: file.map { [$0] } ?? [])
            let catalog: Catalog
            do { catalog = try Catalog.load(userFiles: files) } catch {
                printError("\(error)")
                throw ExitCode(1)
            }
            let failures = catalog.checkSamples()
            let samples = catalog.patterns.reduce(0) { $0 + $1.samples.count }
            try Output.standardOutput(failures.map { "FAIL \($0)\n" }.joined()
                + "\(catalog.patterns.count) patterns, \(samples) samples: \(samples - failures.count) passed, \(failures.count) failed"
                + (files.isEmpty ? "" : " (with \(files.joined(separator: ", ")))") + "\n")
            if !failures.isEmpty { throw ExitCode(1) }
        }
    }
}
