import Foundation

/// One Info.plist of an app as ingested (`app_versions`): its facts, where it came from, and
/// from when it is in force.
public struct AppVersion: Sendable, Equatable {
    public var facts: AppFacts
    /// The file it was read from (cited as evidence).
    public var path: String
    public var sha256: String
    /// In force from here: when it was first ingested, or the first line of the logs
    /// ingested with it, whichever is earlier.
    public var firstSeenUS: Int64

    /// How messages name it: `Info.plist 5.0.1 (501)`, else `Info.plist NAME.plist`.
    public var label: String {
        switch (facts.version, facts.build) {
        case let (version?, build?) where version != build: return "Info.plist \(version) (\(build))"
        case let (version?, _): return "Info.plist \(version)"
        case let (nil, build?): return "Info.plist (\(build))"
        case (nil, nil): return "Info.plist \((path as NSString).lastPathComponent)"
        }
    }

    package init(facts: AppFacts, path: String, sha256: String, firstSeenUS: Int64) {
        self.facts = facts
        self.path = path
        self.sha256 = sha256
        self.firstSeenUS = firstSeenUS
    }
}

/// Every Info.plist of one app, oldest first: a session is judged by the one in force when it started.
public struct AppVersions: Sendable {
    public var versions: [AppVersion]

    public init(_ versions: [AppVersion] = []) {
        self.versions = versions.sorted { ($0.firstSeenUS, $0.sha256) < ($1.firstSeenUS, $1.sha256) }
    }

    /// The latest first seen at or before `timeUS`; before any, the earliest (the best the
    /// store knows of the app then). Nil when none was ingested.
    public func inForce(at timeUS: Int64) -> AppVersion? {
        versions.last { $0.firstSeenUS <= timeUS } ?? versions.first
    }
}
