import ArgumentParser
import Foundation
import LocAuditReport
import LocAuditRules
import LocAuditStore

/// `--color auto|always|never`: colours on a terminal (auto, unless $NO_COLOR is set), always
/// (a CI log that renders ANSI colours), or never.
enum ColorChoice: String, CaseIterable, ExpressibleByArgument {
    case auto, always, never

    /// Whether standard output gets colours.
    var enabled: Bool {
        switch self {
        case .always: true
        case .never: false
        case .auto: isatty(1) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
        }
    }
}

/// What a shell completes for an option's value (`--generate-completion-script`).
enum Complete {
    /// Rule identifiers (`--rule`, `rules explain`).
    static let rules = CompletionKind.list(RuleRegistry.descriptions.map(\.identifier))
    /// `FORMAT:` for `--report FORMAT[:PATH]`, then the shell's file names.
    static let reports = CompletionKind.list(OutputFormat.allCases.map { $0.rawValue + ":" } + OutputFormat.allCases.map(\.rawValue))
    /// The saved queries found now (`query NAME`), in `--queries DIR` too when the line has it.
    static let queries = CompletionKind.custom { (words: [String], _: Int, _: String) -> [String] in
        let given = words.firstIndex(of: "--queries").map { $0 + 1 }.flatMap { $0 < words.count ? words[$0] : nil }
        return SavedQuery.all(in: SavedQuery.directories(explicit: given)).map(\.name)
    }
    static let database = CompletionKind.file(extensions: ["sqlite"])
    static let config = CompletionKind.file(extensions: ["yml", "yaml"])
}
