import ArgumentParser
import Foundation
import LocAuditModel
import LocAuditRules
import LocAuditNormalise
import LocAuditRead
import LocAuditStore

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
        abstract: "Show or test the message catalog, or see which of its families a store's logs contain.",
        discussion: """
            Which log messages are events, and how their keys map to columns, is data: \
            the built-in catalog, with catalog files laid over it (--catalog of ingest and \
            run, else $LOCAUDIT_CATALOG, else ~/.config/locaudit/catalog.json).

            EXAMPLES:
              # start a catalog file from the built-in one, then test it
              locaudit catalog show > catalog.json
              locaudit catalog test catalog.json
            """,
        subcommands: [Show.self, Test.self, Coverage.self]
    )

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the built-in catalog (a valid catalog file to start from).",
            discussion: """
                Each pattern's "provenance" says whether its wording is real (seen in a real \
                log), binary (a format string found in Apple's decompiled binary, rendered as \
                real lines render; no public device log seen) or a reference shape of this \
                project, and where it comes from.

                EXAMPLES:
                  locaudit catalog show > catalog.json
                """)
        func run() throws { try Output.standardOutput(Catalog.builtinJSON + "\n") }
    }

    struct Coverage: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Which message families the stored logs contain, per device, and so what the audit can judge.",
            discussion: """
                Families: app (the app's own CoreLocation lines), app-state (app states and \
                launches), daemon (locationd's status and accuracy changes, location \
                subscriptions), indicator (the blue bar), prompts, installs, privacy-report, and \
                system (iOS's own CLLocationManager lines, never an app's). A family with no line \
                on a device says nothing about it: the audit cannot judge what needs it there. \
                Each family with lines also says how many of its events real, binary and \
                reference patterns recognised (see catalog show): a family read only in \
                reference shapes is this project's wording, not Apple's.

                Exit codes: 0 printed, 1 a catalog file cannot be read, 2 usage error, 3 no \
                database, 6 the store cannot be used (cannot open it, not a locaudit store, \
                damaged), 7 standard output could not be written.

                EXAMPLES:
                  # which families the audited samples hold, per device
                  locaudit catalog coverage
                  # the same for a script
                  locaudit catalog coverage --json
                """
        )

        @OptionGroup var store: StoreOptions

        @Option(name: .customLong("catalog"), help: ArgumentHelp("A catalog file laid over the built-in one, to name its patterns' families (repeatable).", valueName: "file"))
        var catalogFiles: [String] = []

        @Flag(help: "Print the coverage as JSON.")
        var json = false

        func run() throws {
            let catalog: Catalog
            do { catalog = try Catalog.load(userFiles: CatalogLocation.files(explicit: catalogFiles)) } catch {
                printError("\(error)")
                throw ExitCode(1)
            }
            let coverage = try withStore(store.path) { try MessageCoverage.read(database: store.path, catalog: catalog) }
            try Output.standardOutput(json ? try Output.json(coverage, what: "the coverage") + "\n" : coverage.text)
        }
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
