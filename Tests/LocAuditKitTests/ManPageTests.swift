import Foundation
import Testing
@testable import LocAuditUnitTests

/// The man pages (issue 25) in docs/man/ are generated from the commands by
/// argument-parser's manual plugin (scripts/man.sh); a page that is behind its command
/// (a command, flag or abstract it does not have) fails here.
@Suite(.tags(.endToEnd), .ownThreads) struct ManPageTests {
    struct Command {
        var path: [String]
        var abstract: String
        var flags: [String]
    }

    /// Every command of `locaudit --experimental-dump-help`, with its long flags.
    static func commands() throws -> [Command] {
        let dump = try run(locauditExecutable, ["--experimental-dump-help"])
        let root = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        var found: [Command] = []
        var stack: [([String], [String: Any])] = [([], try #require(root["command"] as? [String: Any]))]
        while let (parent, command) = stack.popLast() {
            let name = command["commandName"] as? String ?? ""
            let path = parent + [name]
            // `help` has a page of its own, but its arguments are the command path: no flags to check.
            let flags = (command["arguments"] as? [[String: Any]] ?? []).filter { $0["shouldDisplay"] as? Bool != false }
                .flatMap { ($0["names"] as? [[String: Any]] ?? []).filter { $0["kind"] as? String == "long" }.compactMap { $0["name"] as? String } }
            found.append(Command(path: path, abstract: command["abstract"] as? String ?? "", flags: flags))
            for sub in command["subcommands"] as? [[String: Any]] ?? [] { stack.append((path, sub)) }
        }
        return found
    }

    @Test("every command has its page in docs/man, with its abstract and every flag; no page for a command that is gone")
    func pagesAreCurrent() throws {
        let folder = packageRoot.appendingPathComponent("docs/man")
        let commands = try Self.commands()
        #expect(commands.count > 15)
        for command in commands {
            let file = command.path.joined(separator: ".") + ".1"
            guard let page = try? String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8) else {
                Issue.record("docs/man/\(file) is missing: run scripts/man.sh")
                continue
            }
            #expect(page.contains(".Nd \"\(command.abstract)\""), "docs/man/\(file): the abstract changed; run scripts/man.sh")
            for flag in command.flags where flag != "help" && flag != "version" && command.path.last != "help" {
                #expect(page.contains("Fl -\(flag)"), "docs/man/\(file) lacks --\(flag): run scripts/man.sh")
            }
        }
        let pages = Set(try FileManager.default.contentsOfDirectory(atPath: folder.path))
        let expected = Set(commands.map { $0.path.joined(separator: ".") + ".1" })
        #expect(pages.subtracting(expected).isEmpty, "pages of commands that are gone: \(pages.subtracting(expected).sorted())")
    }
}
