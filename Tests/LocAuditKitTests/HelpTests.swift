import ArgumentParser
import Foundation
import Testing
@testable import LocAuditUnitTests
@testable import LocAuditCommands

/// Every command's `--help`, as the built binary prints it on a terminal of `columns` columns.
enum HelpPages {
    static let columns = 80

    /// Each command's words after `locaudit` (`[]` for the root), every subcommand included.
    static let commands: [[String]] = {
        func walk(_ type: ParsableCommand.Type, _ path: [String]) -> [[String]] {
            [path] + type.configuration.subcommands.flatMap { sub in
                walk(sub, path + [sub.configuration.commandName ?? String(describing: sub).lowercased()])
            }
        }
        return walk(LocAudit.self, [])
    }()

    static func help(_ command: [String]) throws -> String {
        let result = try run(locauditExecutable, command + ["--help"], environment: ["COLUMNS": "\(columns)"])
        #expect(result.status == 0, "locaudit \(command.joined(separator: " ")) --help exited \(result.status)")
        return result.stdout
    }

    /// The command lines of the EXAMPLES section: comments left out, lines ending in `\` joined.
    static func examples(in help: String) -> [String] {
        guard let start = help.range(of: "\nEXAMPLES:\n") else { return [] }
        var commands: [String] = []
        var pending = ""
        for line in help[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.isEmpty { break }
            if text.hasPrefix("#") { continue }
            if text.hasSuffix("\\") {
                pending += text.dropLast()
            } else {
                commands.append(pending + text)
                pending = ""
            }
        }
        return commands
    }

    /// Lines that break before they are full, so that a word (or a few) is stranded on a line of
    /// its own: a line of running text that could have held the first word of the line that
    /// continues it. EXAMPLES lines are verbatim and only have to fit.
    static func earlyBreaks(_ help: String) -> [String] {
        let lines = help.components(separatedBy: "\n")
        var problems: [String] = []
        var verbatim = false
        for (i, line) in lines.enumerated() {
            if line.count > columns { problems.append("line \(i + 1) is wider than \(columns) columns: \"\(line)\"") }
            if line == "EXAMPLES:" { verbatim = true }
            if line.isEmpty { verbatim = false }
            guard !verbatim, i + 1 < lines.count, continues(line, lines[i + 1]),
                  let word = lines[i + 1].split(separator: " ").first else { continue }
            if line.count + 1 + word.count < columns {
                problems.append("line \(i + 1) ends early: \"\(line)\" had room for \"\(word)\", which starts the next line")
            }
        }
        return problems
    }

    static func indent(_ line: String) -> Int { line.prefix { $0 == " " }.count }

    /// Where a line's running text starts: after an option's (or subcommand's) label and the
    /// gap that follows it, else at its indentation.
    static func textColumn(_ line: String) -> Int {
        guard let gap = line.range(of: #"^ *\S.*?  +(?=\S)"#, options: .regularExpression) else { return indent(line) }
        return line.distance(from: line.startIndex, to: gap.upperBound)
    }

    /// `next` carries on the text of `line`: a paragraph at the margin, or an option's help in its column.
    static func continues(_ line: String, _ next: String) -> Bool {
        guard !line.isEmpty, !next.isEmpty else { return false }
        if indent(next) == 0 { return indent(line) == 0 && !line.hasSuffix(":") && !next.hasSuffix(":") }
        return indent(next) > 2 && indent(next) == textColumn(line)
    }
}

@Suite(.tags(.endToEnd), .ownThreads) struct HelpTests {
    @Test("no line of a command's --help on an 80-column terminal breaks early and strands words", arguments: HelpPages.commands)
    func wrapsCleanly(_ command: [String]) throws {
        let problems = HelpPages.earlyBreaks(try HelpPages.help(command))
        #expect(problems.isEmpty, "locaudit \(command.joined(separator: " ")) --help:\n\(problems.joined(separator: "\n"))")
    }

    @Test("the checker finds a hard line break inside a paragraph and passes a paragraph left to wrap")
    func checkerCatchesHardBreaks() {
        let stranded = "OVERVIEW: Read logs.\n\nPATH may be a file, a directory (read recursively) or - for standard\ninput;\ngzip or plain text.\n"
        #expect(HelpPages.earlyBreaks(stranded).count == 2)
        let wrapped = "OVERVIEW: Read logs.\n\nPATH may be a file, a directory (read recursively) or - for standard input;\ngzip or plain text.\n"
        #expect(HelpPages.earlyBreaks(wrapped).isEmpty)
        let option = "OPTIONS:\n  --db <path>             The database (default:\n                          $LOCAUDIT_DB, else ./locaudit.sqlite).\n"
        #expect(HelpPages.earlyBreaks(option).count == 1)
    }

    @Test("every command's help has an EXAMPLES section of locaudit command lines", arguments: HelpPages.commands)
    func hasExamples(_ command: [String]) throws {
        let examples = HelpPages.examples(in: try HelpPages.help(command))
        #expect(!examples.isEmpty, "locaudit \(command.joined(separator: " ")) --help has no EXAMPLES section")
        let name = (["locaudit"] + command).joined(separator: " ")
        #expect(examples.contains { $0.contains(name) } || command.isEmpty, "no example of \(name): \(examples)")
    }

    /// Runs every example of every page, in the order of the pages (ingest before audit...),
    /// in a folder holding the samples and a night's inbox.
    @Test("every command line of every EXAMPLES section runs as shown and succeeds", .timeLimit(.minutes(5)))
    func examplesRun() throws {
        let shell = try ShellFolder()
        let inbox = shell.dir.appendingPathComponent("inbox").path
        // `capture`'s examples on a host with libimobiledevice and pymobiledevice3 but no device attached.
        for (tool, body) in [("idevice_id", "exit 0"), ("ideviceinfo", "exit 1"), ("idevicesyslog", "exit 1"), ("pymobiledevice3", "exit 1")] {
            let path = shell.bin.appendingPathComponent(tool).path
            try "#!/bin/sh\n\(body)\n".write(toFile: path, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        }
        func night(_ n: Int) throws {
            try generateFleet(into: inbox, devices: 2, size: "100K", date: "2026-11-2\(n)", seed: n)
            let hourAgo = Date(timeIntervalSinceNow: -3600)
            for name in listing(inbox) { try FileManager.default.setAttributes([.modificationDate: hourAgo], ofItemAtPath: inbox + "/" + name) }
        }
        try "udid,name,product_type,os_version\n".write(to: shell.dir.appendingPathComponent("inventory.csv"), atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(at: shell.dir.appendingPathComponent("reports"), withIntermediateDirectories: true)

        // `push`'s and the central prune's examples use a server of the test's own, named as they say ($LOCAUDIT_CENTRAL).
        let cluster = PostgresCluster.available ? try PostgresCluster() : nil
        defer { cluster?.stop() }
        let central = cluster.map { ["LOCAUDIT_CENTRAL": $0.url(), "PGPASSWORD": $0.password] } ?? [:]

        var ran = 0, nights = 0
        for command in HelpPages.commands {
            for line in HelpPages.examples(in: try HelpPages.help(command)) {
                if line.contains("locaudit run") {
                    // Each run example is another night, with that night's exports in the inbox.
                    nights += 1
                    try night(nights)
                }
                // `push`'s and the central prune's examples need the server.
                let needsServer = line.contains("locaudit push") || line.contains("$LOCAUDIT_CENTRAL")
                if needsServer && cluster == nil { continue }
                let result = try shell.run(line, environment: needsServer ? central : [:])
                // Findings are exit 1 for an audit (the samples break rules on purpose); anything else is 0.
                let findings = line.contains("locaudit audit") || line.contains("locaudit run")
                #expect(result.status == 0 || (findings && result.status == 1),
                        "locaudit \(command.joined(separator: " ")) --help shows `\(line)`, which exits \(result.status):\n\(result.output)")
                ran += 1
            }
        }
        #expect(ran >= HelpPages.commands.count)
        // What the examples say they write.
        for written in ["audit.html", "junit.xml", "baseline.json", "ticket.md", "catalog.json", "demo.sqlite", "reports/latest.txt",
                        "reports/fleet.html", "home/.local/share/bash-completion/completions/locaudit"] {
            #expect(FileManager.default.fileExists(atPath: shell.dir.appendingPathComponent(written).path), "no \(written) after the examples")
        }
        #expect(listing(shell.dir.appendingPathComponent("archive").path).contains { $0.hasSuffix(".log.gz") })
    }

    @Test("locaudit --generate-completion-script prints a script for bash, zsh and fish; bash's parses", arguments: ["bash", "zsh", "fish"])
    func completionScripts(_ shell: String) throws {
        let result = try run(locauditExecutable, ["--generate-completion-script", shell])
        #expect(result.status == 0)
        for word in ["ingest", "audit", "report", "inbox"] {
            #expect(result.stdout.contains(word), "the \(shell) completion does not know \(word)")
        }
        if shell == "bash" {
            let ws = try Workspace()
            let script = try ws.write("locaudit.bash", result.stdout)
            #expect(try run("/bin/bash", ["-n", script]).status == 0)
        }
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let documented = readme.contains("locaudit --generate-completion-script \(shell)")
        #expect(documented, "README.md does not say how to install the \(shell) completion")
    }
}
