import Foundation
import Testing
@testable import LocAuditUnitTests

/// The `console` blocks of README.md and of the manual's chapters (docs/*.md), run as a
/// reader would type them.
///
/// A block is `$ COMMAND` lines (a line ending in `\` goes on) each followed by what it
/// prints; `...` stands for any lines. Every shown line must appear, in order, exactly as
/// shown, save the audit's start time. Each block runs in a fresh folder holding the samples.
enum ReadmeConsole {
    struct Expected: Equatable {
        /// 1-based line in README.md.
        var line: Int
        /// The text, or nil for `...`.
        var text: String?
    }

    struct Command {
        var line: Int
        var text: String
        var output: [Expected] = []
    }

    struct Block {
        var line: Int
        var commands: [Command]
    }

    static let readme = packageRoot.appendingPathComponent("README.md")

    /// README.md, then every chapter of docs/ (by name), as paths from the package's root.
    static func documents() throws -> [String] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: packageRoot.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        return ["README.md"] + docs
    }

    static func blocks(_ markdown: String) -> [Block] {
        var blocks: [Block] = []
        var current: Block?
        var continued = false
        for (i, line) in markdown.components(separatedBy: "\n").enumerated() {
            if current == nil {
                if line == "```console" { current = Block(line: i + 1, commands: []) }
                continue
            }
            if line == "```" {
                blocks.append(current!)
                current = nil
            } else if continued {
                current!.commands[current!.commands.count - 1].text += "\n" + line
                continued = line.hasSuffix("\\")
            } else if line.hasPrefix("$ ") {
                current!.commands.append(Command(line: i + 1, text: String(line.dropFirst(2))))
                continued = line.hasSuffix("\\")
            } else if !current!.commands.isEmpty {
                current!.commands[current!.commands.count - 1].output.append(Expected(line: i + 1, text: line == "..." ? nil : line))
            }
        }
        // A blank line before the next command only separates them.
        return blocks.map { block in
            var block = block
            for c in block.commands.indices {
                while block.commands[c].output.last?.text == "" { block.commands[c].output.removeLast() }
            }
            return block
        }
    }

    static let marker = "@@locaudit-readme-command-end@@"

    /// Runs a block's commands in one shell (so that `echo $?` sees the command before it)
    /// and returns each one's output lines.
    static func run(_ block: Block, in shell: ShellFolder) throws -> [[String]] {
        var script = ""
        for command in block.commands {
            script += command.text + "\n__status=$?; printf '\\n\(marker)\\n'; (exit $__status)\n"
        }
        let output = try shell.run(script).output
        var parts = output.components(separatedBy: "\n\(marker)\n")
        parts.removeLast()
        return parts.map { part in
            var lines = part.components(separatedBy: "\n")
            if lines.last == "" { lines.removeLast() }
            return lines
        }
    }

    /// What varies from one run to the next: the audit's start time.
    static func normalised(_ line: String) -> String {
        line.replacing(#/(run \d+ at )\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/#) { $0.output.1 + "TIME" }
    }

    /// The lines of `expected` that `actual` does not show, each as the README line to change
    /// and its new text (or, where nothing like it was printed, what was).
    static func mismatches(_ expected: [Expected], _ actual: [String], command: Command, file: String = "README.md") -> [String] {
        let actual = actual.map(normalised)
        // Runs of shown lines between `...`; the first is anchored at the start unless `...`
        // opens the output, the last at the end unless `...` closes it.
        var runs: [[Expected]] = [[]]
        for e in expected { if e.text == nil { runs.append([]) } else { runs[runs.count - 1].append(e) } }
        let openStart = expected.first?.text == nil, openEnd = expected.last?.text == nil
        var problems: [String] = []
        var cursor = 0
        for (r, run) in runs.enumerated() where !run.isEmpty {
            let lastStart = actual.count - run.count
            let starts: [Int]
            if r == 0 && !openStart {
                starts = [0]
            } else if r == runs.count - 1 && !openEnd {
                starts = lastStart >= cursor ? [lastStart] : []
            } else {
                starts = lastStart >= cursor ? Array(cursor...lastStart) : []
            }
            func score(_ start: Int) -> Int {
                run.indices.filter { start + $0 < actual.count && normalised(run[$0].text!) == actual[start + $0] }.count
            }
            if let exact = starts.first(where: { score($0) == run.count }) {
                cursor = exact + run.count
                continue
            }
            // Not shown as is. A line printed elsewhere lacks a `...` beside it; a line printed
            // with other figures (at the alignment that matches most of the run, else the most
            // alike line of the same shape) is to be replaced.
            let best = starts.max(by: { score($0) < score($1) }).flatMap { score($0) > 0 ? $0 : nil }
            let rest = actual[min(cursor, actual.count)...]
            let shape = { (s: String) in s.replacing(#/\d+/#, with: "#") }
            func alike(_ a: String, _ b: String) -> Int {
                zip(a, b).prefix { $0 == $1 }.count + zip(a.reversed(), b.reversed()).prefix { $0 == $1 }.count
            }
            for (k, e) in run.enumerated() {
                let text = normalised(e.text!)
                if let best, best + k < actual.count, actual[best + k] == text { continue }
                if rest.contains(text) {
                    problems.append("\(file):\(e.line): `\(command.text)` prints this line, but not next to the lines \(file) shows around it: "
                        + "put a `...` line before or after \(file) line \(e.line)")
                } else if let best, best + k < actual.count, shape(actual[best + k]) == shape(text) || score(best) * 2 >= run.count {
                    problems.append("\(file):\(e.line): `\(command.text)` now prints `\(actual[best + k])`; replace \(file) line \(e.line) (`\(e.text!)`) with it")
                } else if let same = rest.filter({ shape($0) == shape(text) }).max(by: { alike($0, text) < alike($1, text) }) {
                    problems.append("\(file):\(e.line): `\(command.text)` now prints `\(same)`; replace \(file) line \(e.line) (`\(e.text!)`) with it")
                } else {
                    problems.append("\(file):\(e.line): `\(command.text)` no longer prints `\(e.text!)` (it printed \(actual.count) lines, "
                        + "the first: \(actual.prefix(3).map { "`\($0)`" }.joined(separator: ", "))); change or remove \(file) line \(e.line)")
                }
            }
            cursor = min(actual.count, (best ?? cursor) + run.count)
        }
        if !openEnd, problems.isEmpty, cursor < actual.count {
            let after = expected.last?.line ?? command.line
            problems.append("\(file):\(after): `\(command.text)` printed more than \(file) shows; add after line \(after) `...` "
                + "or its lines: \(actual[cursor...].prefix(5).map { "`\($0)`" }.joined(separator: ", "))")
        }
        return problems
    }
}

@Suite(.tags(.endToEnd), .ownThreads) struct ReadmeTests {
    @Test("README's and the manual's console blocks are what the commands print: counts, verdict lines and exit codes", .timeLimit(.minutes(5)))
    func consoleBlocks() throws {
        let readme = ReadmeConsole.blocks(try String(contentsOf: ReadmeConsole.readme, encoding: .utf8))
        #expect(readme.count >= 2)
        #expect(readme.flatMap(\.commands).contains { $0.text == "echo $?" }, "the walk-through shows its exit codes")
        var chapters = 0
        for file in try ReadmeConsole.documents() {
            let blocks = ReadmeConsole.blocks(try String(contentsOf: packageRoot.appendingPathComponent(file), encoding: .utf8))
            if file != "README.md", !blocks.isEmpty { chapters += 1 }
            for block in blocks {
                let shell = try ShellFolder()
                let outputs = try ReadmeConsole.run(block, in: shell)
                try #require(outputs.count == block.commands.count, "\(file):\(block.line): the block's commands did not all run")
                var problems: [String] = []
                for (command, output) in zip(block.commands, outputs) {
                    problems += ReadmeConsole.mismatches(command.output, output, command: command, file: file)
                }
                #expect(problems.isEmpty, "\(file)'s console block at line \(block.line) is stale:\n\(problems.joined(separator: "\n"))")
            }
        }
        // The manual's chapters show what their commands print too (ingest, audit, reports, queries...).
        #expect(chapters >= 4, "only \(chapters) chapters of docs/ have console blocks")
    }

    /// The checker itself, on a README line that a change moved.
    @Test("a moved count is reported as the README line to replace and its new text")
    func staleLineIsNamed() {
        let command = ReadmeConsole.Command(line: 10, text: "locaudit ingest samples")
        let expected: [ReadmeConsole.Expected] = [.init(line: 11, text: "ingested a.log"), .init(line: 12, text: nil),
                                                  .init(line: 13, text: "73 ingested, 0 already ingested, 0 failed; 899 events into locaudit.sqlite")]
        let actual = ["ingested a.log", "ingested b.log", "39 ingested, 0 already ingested, 0 failed; 899 events into locaudit.sqlite"]
        #expect(ReadmeConsole.mismatches(expected, actual, command: command) == [
            "README.md:13: `locaudit ingest samples` now prints `39 ingested, 0 already ingested, 0 failed; 899 events into locaudit.sqlite`; "
                + "replace README.md line 13 (`73 ingested, 0 already ingested, 0 failed; 899 events into locaudit.sqlite`) with it"])
        #expect(ReadmeConsole.mismatches(Array(expected.prefix(2)) + [.init(line: 13, text: actual[2])], actual, command: command).isEmpty)
        // The start time of an audit is not compared.
        #expect(ReadmeConsole.mismatches([.init(line: 5, text: "locaudit audit: run 1 at 2026-11-22T00:01:29.295291Z on x")],
                                         ["locaudit audit: run 1 at 2027-01-01T10:00:00.5Z on x"], command: command).isEmpty)
        // An exit code.
        #expect(ReadmeConsole.mismatches([.init(line: 7, text: "1")], ["0"], command: command) == [
            "README.md:7: `locaudit ingest samples` now prints `0`; replace README.md line 7 (`1`) with it"])
    }
}
