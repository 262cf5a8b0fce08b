// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "locaudit",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "locaudit", targets: ["locaudit"]),
        .library(name: "LocAuditKit", targets: ["LocAuditKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // System zlib, for streaming gzip (several members, exact byte offsets on errors).
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // read -> normalise -> store: everything the commands do, testable in-process.
        .target(
            name: "LocAuditKit",
            dependencies: [
                "CZlib",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The command-line layer: maps flags to LocAuditKit calls.
        .target(
            name: "LocAuditCommands",
            dependencies: [
                "LocAuditKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(name: "locaudit", dependencies: ["LocAuditCommands"]),
        .testTarget(
            name: "LocAuditKitTests",
            dependencies: ["LocAuditKit", "LocAuditCommands"],
            // Expected reporter outputs (style.md: reporters are tested against expected files).
            resources: [.copy("Expected")]
        ),
    ],
    swiftLanguageModes: [.v5]
)
