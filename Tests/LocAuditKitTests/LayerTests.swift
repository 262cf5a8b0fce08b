import Foundation
import Testing
@testable import LocAuditUnitTests

/// The layers of docs/architecture.md as the package declares them: a target may import
/// only what Package.swift lists as its dependencies, so an arrow that runs the wrong way
/// (a lower layer importing a higher one) is caught here even where an incremental
/// `swift build` would find the higher module already built.
@Suite(.tags(.endToEnd), .ownThreads) struct LayerTests {
    /// Every target's declared dependencies (targets and products), as SwiftPM reads Package.swift.
    static func declaredDependencies() throws -> [String: Set<String>] {
        // A scratch path of its own: `swift test` holds the lock on .build while the tests run.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("locaudit-layers-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let result = try run("/usr/bin/env", ["swift", "package", "--scratch-path", scratch.path, "dump-package"], directory: packageRoot)
        #expect(result.status == 0, "swift package dump-package: \(result.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] ?? [:]
        var dependencies: [String: Set<String>] = [:]
        for target in json["targets"] as? [[String: Any]] ?? [] {
            guard let name = target["name"] as? String else { continue }
            var names = Set<String>()
            for dependency in target["dependencies"] as? [[String: Any]] ?? [] {
                // {"byName": [NAME, …]}, {"target": [NAME, …]} or {"product": [NAME, PACKAGE, …]}
                for value in dependency.values { if let first = (value as? [Any])?.first as? String { names.insert(first) } }
            }
            dependencies[name] = names
        }
        return dependencies
    }

    /// The modules `file` imports (`import X`, `@testable import X`, `@_exported import X`).
    static func imports(of file: URL) throws -> [String] {
        try String(contentsOf: file, encoding: .utf8).split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ")
            guard let i = words.firstIndex(of: "import"), words[..<i].allSatisfy({ $0.hasPrefix("@") }), i + 1 < words.count else { return nil }
            return String(words[i + 1])
        }
    }

    @Test("every source file imports only the package targets and products its target declares: no layer imports a higher one")
    func importsFollowTheLayers() throws {
        let declared = try Self.declaredDependencies()
        // The package's own modules and the products its targets use: what a file could import by mistake.
        let known = Set(declared.keys).union(declared.values.joined())
        #expect(declared["LocAuditModel"] != nil && declared["LocAuditCommands"] != nil)
        var checked = 0
        for (target, allowed) in declared {
            let dir = packageRoot.appendingPathComponent("Sources/\(target)")
            guard let files = FileManager.default.enumerator(at: dir, includingPropertiesForKeys: nil) else { continue }
            for case let file as URL in files where file.pathExtension == "swift" {
                for module in try Self.imports(of: file) where known.contains(module) && module != target {
                    #expect(allowed.contains(module), "\(target)/\(file.lastPathComponent) imports \(module), which \(target) does not declare")
                    checked += 1
                }
            }
        }
        #expect(checked > 50)
    }

    @Test("the model, the replay and the rules are pure: no package or product dependency, no file, process or clock access")
    func modelIsPure() throws {
        let declared = try Self.declaredDependencies()
        #expect(declared["LocAuditModel"] == [])
        #expect(declared["LocAuditReplay"] == ["LocAuditModel"])
        #expect(declared["LocAuditRules"] == ["LocAuditModel", "LocAuditReplay"])
        for target in ["LocAuditModel", "LocAuditReplay", "LocAuditRules"] {
            let files = Self.files(of: target)
            #expect(!files.isEmpty, "\(target) has no Swift file")
            for (path, text) in files {
                for io in ["FileManager", "FileHandle", "contentsOfFile", "contentsOf:", "Process(", "write(to", "fopen(", "Date()"] {
                    #expect(!text.contains(io), "\(target)/\(path) uses \(io)")
                }
            }
        }
    }

    /// The Swift files of a target, relative to its folder (`Reads/EventReads.swift`).
    static func files(of target: String) -> [(path: String, text: String)] {
        let dir = packageRoot.appendingPathComponent("Sources/\(target)")
        let urls = FileManager.default.enumerator(at: dir, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        return urls.filter { $0.pathExtension == "swift" }.compactMap { url in
            guard let text = try? String(contentsOf: url, encoding: .utf8) else { return nil }
            return (String(url.standardizedFileURL.path.dropFirst(dir.standardizedFileURL.path.count + 1)), text)
        }
    }

    /// The two hot loops (docs/architecture.md), which alone use SQLite's C API and positional columns.
    static let hotFiles: Set<String> = ["EventWriter.swift", "Reads/EventReads.swift"]

    @Test("SQLite's C API (GRDBSQLite) is imported only by the store's two hot loops and the query runner, which binds a user's named parameters")
    func rawSQLiteOnlyInTheHotLoops() throws {
        let declared = try Self.declaredDependencies()
        #expect(declared["LocAuditStore"]?.contains("GRDBSQLite") == true)
        var importers: Set<String> = []
        for target in declared.keys where target != "LocAuditStore" {
            for file in Self.files(of: target) where try Self.imports(of: packageRoot.appendingPathComponent("Sources/\(target)/\(file.path)")).contains("GRDBSQLite") {
                importers.insert("\(target)/\(file.path)")
            }
        }
        for file in Self.files(of: "LocAuditStore")
        where try Self.imports(of: packageRoot.appendingPathComponent("Sources/LocAuditStore/\(file.path)")).contains("GRDBSQLite") {
            importers.insert(file.path)
        }
        #expect(importers == Self.hotFiles.union(["Query/QueryRunner.swift"]))
    }

    @Test("the store reads rows by column name or as records outside its two hot loops: no positional row[0]")
    func noPositionalColumnsOutsideTheHotLoops() throws {
        let positional = try Regex(#"(\brow|\$0|\?)\[[0-9]+\]"#)
        let files = Self.files(of: "LocAuditStore")
        #expect(files.count > 10)
        for file in files where !Self.hotFiles.contains(file.path) {
            for (n, line) in file.text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where line.contains(positional) {
                Issue.record("LocAuditStore/\(file.path):\(n + 1) reads a column by position: \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
    }

    @Test("the reporters are pure functions of values: LocAuditReport neither declares nor imports the store")
    func reportersDoNotReadTheStore() throws {
        let declared = try Self.declaredDependencies()
        #expect(declared["LocAuditReport"] != nil)
        #expect(declared["LocAuditReport"]?.contains("LocAuditStore") == false)
        for file in Self.files(of: "LocAuditReport") {
            #expect(!(try Self.imports(of: packageRoot.appendingPathComponent("Sources/LocAuditReport/\(file.path)")).contains("LocAuditStore")),
                    "LocAuditReport/\(file.path) imports LocAuditStore")
            let takesStore = file.text.contains("store: Store")
            #expect(!takesStore, "LocAuditReport/\(file.path) takes a Store")
        }
    }
}
