// swift-tools-version: 6.0
import PackageDescription

// One target a layer, so that an arrow that runs the wrong way does not compile
// (docs/architecture.md): a target imports only the targets listed as its dependencies.
let grdb: Target.Dependency = .product(name: "GRDB", package: "GRDB.swift")

let package = Package(
    name: "locaudit",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "locaudit", targets: ["locaudit"]),
        // Every layer through one import, for programs that use locaudit as a library.
        .library(name: "LocAuditKit", targets: ["LocAuditKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // The project's `.locaudit.yml` (config and suppressions), read with its line numbers.
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    ],
    targets: [
        // System zlib, for streaming gzip (several members, exact byte offsets on errors).
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // ISA-L's igzip: the faster inflate of gzip members (Linux; zlib elsewhere and where ISA-L cannot serve).
        .systemLibrary(
            name: "CIsal",
            pkgConfig: "libisal",
            providers: [.apt(["libisal-dev"])]
        ),
        // scripts/fuzz.sh compiles every Swift file under the folders of LocAuditRead,
        // LocAuditModel and LocAuditNormalise: give them no `path` or `exclude` here.
        // Bytes in and out at the process's edge: files, gzip, tar, thread hand-offs, report
        // files written whole, the progress line.
        .target(name: "LocAuditRead", dependencies: [
            "CZlib", .target(name: "CIsal", condition: .when(platforms: [.linux])),
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        // The vocabulary: domain values, the iOS behaviour table, events, device and app facts,
        // findings and coverage. Pure: no GRDB, no I/O.
        .target(name: "LocAuditModel"),
        // The heart of the tool, in two targets (docs/architecture.md). The replay: sessions
        // and what iOS holds for an app at every step of them, as typed knowledge. Pure.
        .target(name: "LocAuditReplay", dependencies: ["LocAuditModel"]),
        // The rules of docs/rules-model.md over replayed sessions, their examples, the audit's
        // options and report. Pure.
        .target(name: "LocAuditRules", dependencies: ["LocAuditReplay", "LocAuditModel"]),
        // Containers, the message catalog, events: a log's bytes to typed events. No SQL.
        // The built-in catalog is a resource in a user catalog file's format, compiled into the
        // binary (one file to install).
        .target(
            name: "LocAuditNormalise", dependencies: ["LocAuditRead", "LocAuditModel"],
            resources: [.embedInCode("Resources/builtin-catalog.json")]
        ),
        // The SQLite store: schema, migrations, the event writer and every read.
        // The hot loops (the event writers, the events readers) use SQLite's C API through GRDBSQLite.
        .target(
            name: "LocAuditStore",
            dependencies: [
                "LocAuditNormalise", "LocAuditRules", "LocAuditReplay", "LocAuditModel", "LocAuditRead", grdb,
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        // One file or a set of files through read -> normalise -> store, wholly or not at all.
        .target(
            name: "LocAuditIngest",
            dependencies: ["LocAuditRead", "LocAuditNormalise", "LocAuditStore", "LocAuditModel", grdb]
        ),
        // The audit run (replay, rules, findings, baselines) and the nightly run.
        .target(
            name: "LocAuditAudit",
            dependencies: [
                "LocAuditIngest", "LocAuditStore", "LocAuditNormalise", "LocAuditRules", "LocAuditReplay", "LocAuditModel",
                "LocAuditRead", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"), .product(name: "Yams", package: "Yams"),
            ]
        ),
        // Reporters: text, JSON, Markdown, JUnit, CSV, HTML, the fleet pages.
        // Pure functions of values: what they show of the store, the audit layer reads first (ReportInputs).
        .target(name: "LocAuditReport", dependencies: ["LocAuditAudit", "LocAuditRules", "LocAuditReplay", "LocAuditModel", "LocAuditRead"]),
        // The central PostgreSQL store: its migrations, `push` (local store -> central), and the
        // fleet's audit and reports from it (audited as a host's store is), over postgres-nio.
        .target(
            name: "LocAuditCentral",
            dependencies: [
                "LocAuditAudit", "LocAuditRules", "LocAuditReplay", "LocAuditModel", "LocAuditStore", "LocAuditRead", grdb,
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The library product: every layer re-exported.
        .target(
            name: "LocAuditKit",
            dependencies: [
                "LocAuditRead", "LocAuditModel", "LocAuditReplay", "LocAuditRules", "LocAuditNormalise", "LocAuditStore",
                "LocAuditIngest", "LocAuditAudit", "LocAuditReport", "LocAuditCentral",
            ]
        ),
        // The command-line layer: maps flags to library calls.
        .target(
            name: "LocAuditCommands",
            dependencies: [
                // Each layer by name, not through LocAuditKit's re-exports: an incremental build
                // then recompiles the commands when a layer's types change.
                "LocAuditRead", "LocAuditModel", "LocAuditReplay", "LocAuditRules", "LocAuditNormalise", "LocAuditStore",
                "LocAuditIngest", "LocAuditAudit", "LocAuditReport", "LocAuditCentral",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(name: "locaudit", dependencies: ["LocAuditCommands"]),
        // The tests, in two targets (docs/architecture.md, "Tests"). The unit tests: in the test
        // process only, no program started (no `locaudit` binary, shell, gzip, server, browser or
        // fuzzer build): `swift test --filter Unit` runs them (about a minute here). The
        // fixtures and expected outputs they read are LocAuditKitTests' resources, read in place.
        .testTarget(
            name: "LocAuditUnitTests",
            dependencies: [
                // zlib writes the gzip members the tests read (Support.swift's `gzip`), in process.
                "CZlib",
                "LocAuditRead", "LocAuditModel", "LocAuditReplay", "LocAuditRules", "LocAuditNormalise", "LocAuditStore",
                "LocAuditIngest", "LocAuditAudit", "LocAuditReport", "LocAuditCentral", "LocAuditKit", "LocAuditCommands", grdb,
            ]
        ),
        // The end-to-end tests: the real `locaudit` binary, shells, gzip, PostgreSQL, Chromium, the
        // fuzzers (tagged `.endToEnd`, each test on a thread of its own: OwnThreads.swift). They
        // share the unit tests' helpers (Workspace, LogScript, gzip, the paths) through
        // `@testable import LocAuditUnitTests`.
        .testTarget(
            name: "LocAuditKitTests",
            dependencies: [
                "LocAuditUnitTests",
                "LocAuditRead", "LocAuditModel", "LocAuditReplay", "LocAuditRules", "LocAuditNormalise", "LocAuditStore",
                "LocAuditIngest", "LocAuditAudit", "LocAuditReport", "LocAuditCentral", "LocAuditKit", "LocAuditCommands", grdb,
            ],
            // Expected reporter outputs (style.md: reporters are tested against expected files),
            // and the real files from public sources (Fixtures/real, byte for byte).
            resources: [.copy("Expected"), .copy("Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
