import ArgumentParser
import Foundation

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
