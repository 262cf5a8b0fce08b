import ArgumentParser
import Foundation
import Testing
@testable import LocAuditCommands
@testable import LocAuditModel
@testable import LocAuditRules
@testable import LocAuditStore

/// Options that make no sense are usage errors (exit 2 through `LocAudit.runMain`) with a
/// sentence naming the option, found when the command line is parsed: never a trap, never
/// silently accepted.
@Suite struct OptionValidationTests {
    static let refused: [(arguments: [String], says: String)] = [
        (["ingest", "--os", "abc", "x.log"], "--os 'abc' is not an iOS version"),
        (["ingest", "--os", "", "x.log"], "--os '' is not an iOS version"),
        (["ingest", "--os", "1000", "x.log"], "--os '1000' is not an iOS version"),
        (["ingest", "--device", "", "x.log"], "--device"),
        (["ingest", "--device", "  ", "x.log"], "--device"),
        (["ingest", "--year", "0", "x.log"], "--year takes 1970 to 2100"),
        (["ingest", "--year", "99999", "x.log"], "--year takes 1970 to 2100"),
        (["ingest", "--tz", "Nowhere/Zone", "x.log"], "Unknown time zone 'Nowhere/Zone'"),
        (["ingest", "--tz", "", "x.log"], "Unknown time zone ''"),
        (["ingest", "--jobs", "0", "x.log"], "--jobs must be at least 1"),
        (["ingest", "--db", "", "x.log"], "--db"),
        (["audit", "--reduced-accuracy-floor", "nan"], "--reduced-accuracy-floor takes a positive number of metres"),
        (["audit", "--reduced-accuracy-floor", "inf"], "--reduced-accuracy-floor takes a positive number of metres"),
        (["audit", "--reduced-accuracy-floor=-5"], "--reduced-accuracy-floor takes a positive number of metres"),
        (["audit", "--device", ""], "--device"),
        (["audit", "--app", ""], "--app"),
        (["audit", "--db", ""], "--db"),
        (["report", "--run", "0"], "--run takes an audit run's id"),
        (["query", "--db", "", "--sql", "SELECT 1"], "--db"),
        (["stats", "--db", ""], "--db"),
        (["run", "--inbox", "in", "--jobs", "0"], "--jobs must be at least 1"),
        (["run", "--inbox", "in", "--wait=-1"], "--wait takes 0 to 86400 seconds"),
        (["run", "--inbox", "in", "--wait", "nan"], "--wait takes 0 to 86400 seconds"),
        (["run", "--inbox", "in", "--wait", "inf"], "--wait takes 0 to 86400 seconds"),
        (["run", "--inbox", "in", "--wait", "1e300"], "--wait takes 0 to 86400 seconds"),
        (["prune", "--older-than", "30d", "--wait", "nan"], "--wait takes 0 to 86400 seconds"),
        (["prune", "--older-than", "99999999999999999999d"], "the largest accepted age is 36500d"),
        (["prune", "--older-than", "999999999w"], "the largest accepted age is 36500d"),
        (["prune", "--older-than", "36501d"], "the largest accepted age is 36500d"),
        (["prune", "--older-than", "infd"], "--older-than 'infd' is not an age"),
        (["prune", "--older-than", "nand"], "--older-than 'nand' is not an age"),
        (["prune", "--older-than", "1e400d"], "--older-than '1e400d' is not an age"),
        (["prune", "--older-than=-1d"], "--older-than '-1d' is not an age"),
        (["prune", "--older-than", "30"], "--older-than '30' is not an age"),
        // An empty path is never "the current folder": `run --archive ''` moved the inbox's files there.
        (["run", "--inbox", ""], "--inbox needs a folder"),
        (["run", "--inbox", "in", "--archive", ""], "--archive needs a folder"),
        (["run", "--inbox", "in", "--inventory", ""], "--inventory needs a file"),
        (["run", "--inbox", "in", "--catalog", ""], "--catalog needs a file"),
        (["ingest", "--catalog", "", "x.log"], "--catalog needs a file"),
        (["ingest", "--device-info", "", "x.log"], "--device-info needs a file"),
        (["ingest", "--info-plist", "", "x.log"], "--info-plist needs a file"),
        (["ingest", "x.log", ""], "a PATH to ingest cannot be empty"),
        (["audit", "--baseline", ""], "--baseline needs a file"),
        (["query", "--sql", "SELECT :x", "--param", "=x"], "--param takes KEY=VALUE"),
    ]

    @Test("an option that makes no sense is a usage error with a sentence", arguments: refused)
    func refusedOption(arguments: [String], says sentence: String) {
        do {
            _ = try LocAudit.parseAsRoot(arguments)
            Issue.record("accepted: \(arguments)")
        } catch {
            #expect(LocAudit.exitCode(for: error) == .validationFailure, "\(arguments)")
            #expect(LocAudit.message(for: error).contains(sentence), "\(arguments): \(LocAudit.message(for: error))")
        }
    }

    static let accepted: [[String]] = [
        ["ingest", "--os", "17.5.1", "x.log"],
        ["ingest", "--os", "7", "x.log"],
        ["ingest", "--os", "26.0", "x.log"],
        ["ingest", "--year", "2026", "--tz", "Europe/Paris", "x.log"],
        ["audit", "--reduced-accuracy-floor", "0.5"],
        ["report", "--run", "1"],
        ["run", "--inbox", "in", "--wait", "0"],
        ["prune", "--older-than", "36500d"],
        ["prune", "--older-than", "876000h"],
        ["prune", "--older-than", "5214w"],
        ["prune", "--older-than", "0.5d"],
        ["prune", "--older-than", "0d"],
    ]

    @Test("the sensible values of the same options are accepted", arguments: accepted)
    func acceptedOption(arguments: [String]) throws {
        _ = try LocAudit.parseAsRoot(arguments)
    }

    @Test("ages: hours, days and weeks up to 100 years, in seconds")
    func ages() throws {
        #expect(try Maintenance.parseAge("30d") == TimeInterval(30 * 86_400))
        #expect(try Maintenance.parseAge("12h") == TimeInterval(12 * 3600))
        #expect(try Maintenance.parseAge("2w") == TimeInterval(14 * 86_400))
        #expect(try Maintenance.parseAge("1.5d") == TimeInterval(36 * 3600))
        #expect(try Maintenance.parseAge("36500d") == Maintenance.maxAge)
        for bad in ["30", "d", "", "1e3d", "+1d", " 1d", "1.d", "99999999999999999999999999999w"] {
            #expect(throws: AgeError.self, "\(bad)") { try Maintenance.parseAge(bad) }
        }
    }
}
