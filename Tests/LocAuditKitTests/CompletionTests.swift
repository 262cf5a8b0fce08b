import Foundation
import Testing
@testable import LocAuditUnitTests

/// Shell completion (issue 25): rule ids, saved query names, report formats and file paths,
/// through the bash script `locaudit --generate-completion-script bash` prints, run by bash.
@Suite(.tags(.endToEnd), .ownThreads) struct CompletionTests {
    /// What bash offers for the last of `words` (the word being typed), run in `directory`.
    func complete(_ words: [String], in directory: URL = packageRoot) throws -> [String] {
        let folder = URL(fileURLWithPath: locauditExecutable).deletingLastPathComponent().path
        let quoted = words.map { "'\($0)'" }.joined(separator: " ")
        let script = """
            source <(locaudit --generate-completion-script bash)
            COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1)
            COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}; COMPREPLY=()
            _locaudit locaudit "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let result = try run("/bin/bash", ["-c", script], environment: ["PATH": folder + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "")], directory: directory)
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    @Test("rule ids after --rule, --skip-rule and rules explain")
    func rules() throws {
        #expect(try complete(["locaudit", "audit", "--rule", "missing-b"]) == ["missing-blue-bar"])
        #expect(try complete(["locaudit", "audit", "--skip-rule", "temporary-precise-w"]) == ["temporary-precise-without-authorization"])
        #expect(try complete(["locaudit", "rules", "explain", "allow"]) == ["allow-once-persisting"])
    }

    @Test("report formats after --report, --format")
    func formats() throws {
        #expect(try complete(["locaudit", "audit", "--report", "sa"]).contains("sarif:"))
        #expect(try complete(["locaudit", "report", "--format", "fleet"]).sorted() == ["fleet", "fleet-html"])
    }

    @Test("saved query names, found where query finds them")
    func queries() throws {
        let names = try complete(["locaudit", "query", ""])
        #expect(names.contains("devices-missing-blue-bar") && names.contains("new-findings"), "\(names)")
        #expect(try complete(["locaudit", "query", "new-"]) == ["new-findings"])
    }

    @Test("file paths after --db and ingest; subcommands by prefix")
    func paths() throws {
        #expect(try complete(["locaudit", "ingest", "samples/dev"]).contains("samples/devices"))
        #expect(try complete(["locaudit", "dev"]) == ["devices"])
    }
}
