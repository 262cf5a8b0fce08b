import ArgumentParser
import Foundation
import LocAuditAudit
import LocAuditModel
import LocAuditStore

/// `--config`: the project's `.locaudit.yml` (else the one found from the working directory
/// upward), which `audit`, `run` and `report` read. Flags given on the command line win.
struct ConfigOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The project's config (default: .locaudit.yml in this folder or the nearest above it).", valueName: "file"), completion: Complete.config)
    var config: String?

    @Flag(help: "Read no config file.")
    var noConfig = false

    func validate() throws {
        try requirePath(config, "--config", "a file (.locaudit.yml)")
        if noConfig, config != nil { throw ValidationError("--no-config and --config exclude each other.") }
    }

    /// The config, or nil without one; a config that cannot be used is exit 2 naming its line.
    /// Expired suppressions are warned about on standard error (their findings count again).
    func load() throws -> ProjectConfig? {
        guard !noConfig, let path = config ?? ProjectConfig.find() else { return nil }
        let loaded = try withConfig { try ProjectConfig.load(path) }
        let today = CivilDate(String(Clock.nowISO().prefix(10)))
        for s in loaded.suppressions where today.map(s.expired) ?? false { printError("warning: " + s.expiredWarning) }
        return loaded
    }
}

/// `--fail-on`, one declaration for `audit`, `run` and `watch`: the flag, else the config's
/// `fail-on` (not `watch`, which reads no config), else `high`.
struct FailOnOption: ParsableArguments {
    @Option(help: ArgumentHelp("Exit 1 when a finding is at or above this severity (default: high).", valueName: "severity"))
    var failOn: Severity?

    func severity(_ config: ProjectConfig? = nil) -> Severity { failOn ?? config?.failOn ?? .high }
}

/// Runs `body`; a config that cannot be used is told in one sentence, exit 2.
func withConfig<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch let error as ConfigError {
        printError(error.description)
        throw ExitCode(error.exitCode)
    }
}
