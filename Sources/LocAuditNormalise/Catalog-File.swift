import Foundation
import LocAuditModel

// The catalog as files hold it: patterns, samples, provenance; and how files are loaded.

/// Whose process a pattern's message comes from, which decides the session it belongs to.
public enum PatternScope: String, Codable, Sendable {
    /// Logged by the app itself: the line's process and pid are the app's.
    case app
    /// Logged by a system daemon about an app named in the message (`bundleId`, `pid`).
    case system
}

/// A sample message of a pattern and the event it must parse to.
public struct CatalogSample: Codable, Sendable {
    /// The message text, as it stands after the container's prefix.
    public var message: String
    /// The process that logs it, for a pattern with a `process` condition.
    public var process: String?
    /// Column values the event must have (`kind` too); every other column is not checked.
    public var expect: [String: String]
}

/// Where a pattern's wording comes from.
public struct Provenance: Codable, Sendable, Equatable {
    /// How sure the wording is.
    public enum Evidence: String, Codable, Sendable {
        /// Seen in a real log (a public device log, bug report or fixture).
        case real
        /// A format string found in Apple's decompiled binary, rendered as real lines render;
        /// no public device log with it was seen.
        case binary
        /// This project's own shape: never seen in a public log, may not be Apple's wording.
        case reference
    }
    public var evidence: Evidence
    /// Where it was seen (or why it is a reference shape).
    public var source: String
}

/// One way a message is recognised and turned into an event.
///
/// A pattern matches either on the `msg` key of a JSON-like message (`msg`, optionally
/// narrowed by `when`), or on a literal anchor (`contains`) with an optional regular
/// expression whose named groups fill columns. Message keys are matched ignoring case.
public struct CatalogPattern: Codable, Sendable {
    /// Stable identifier; a user catalog entry with the same id replaces the built-in one.
    public var id: String
    public var kind: EventKind
    public var scope: PatternScope
    /// Value of the message's `msg` key.
    public var msg: String?
    /// Literal text the message must contain (for messages that are not JSON-like).
    public var contains: String?
    /// Regular expression (ICU syntax); `fields` maps columns to its named groups.
    public var regex: String?
    /// Required values of message keys: key -> accepted values.
    public var when: [String: [String]]?
    /// Processes whose lines the pattern reads (for wording many daemons print alike);
    /// a line of another process, or of none named, does not match.
    public var process: [String]?
    /// Column -> message key (dotted path for nested objects), or -> regex group name.
    /// `a|b` names alternatives: the first that gives a value wins.
    public var fields: [String: String]?
    /// Column -> the named decoder its message key is read by (`ValueDecoder`: for values
    /// that are a daemon's own code, such as locationd's `authorization-mask`); a column not
    /// named here reads every spelling of its own vocabulary.
    public var decode: [String: String]?
    /// Column -> constant value.
    public var set: [String: String]?
    /// Columns without which the message is no event (a line cut short): it is counted as `incomplete`.
    public var require: [String]?
    /// Sample messages; `locaudit catalog test` checks each parses to its `expect`.
    public var samples: [CatalogSample]
    /// Whether the wording is real or a reference shape, and its source (optional in user files).
    public var provenance: Provenance?
}

/// A catalog file: `{"patterns": [...]}`, optionally `"systemProcesses": [...]`.
public struct CatalogFile: Codable, Sendable {
    public var patterns: [CatalogPattern]
    /// Processes of iOS itself. Some use CLLocationManager as apps do (`routined`,
    /// `contextstored`, ...): their app-side lines are theirs, never an app's session.
    /// A user file's list adds to the built-in one.
    public var systemProcesses: [String]?
}

/// Why a catalog could not be loaded.
public struct CatalogError: Error, CustomStringConvertible {
    public var description: String
}

extension Catalog {
    /// The built-in catalog, overlaid by user files (later files win on equal ids).
    public static func load(userFiles: [String]) throws -> Catalog {
        let builtin = try decode(Data(PackageResources.builtin_catalog_json), origin: "built-in catalog")
        var patterns = builtin.patterns
        var systemProcesses = builtin.systemProcesses ?? []
        for path in userFiles {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CatalogError(description: "\(path): cannot read the catalog file. Check the path, or remove the option.")
            }
            let file = try decode(data, origin: path)
            systemProcesses += file.systemProcesses ?? []
            for pattern in file.patterns {
                if let i = patterns.firstIndex(where: { $0.id == pattern.id }) {
                    patterns[i] = pattern
                } else {
                    // User additions go first so that they can narrow a built-in `msg`.
                    patterns.insert(pattern, at: 0)
                }
            }
        }
        return try Catalog(patterns: patterns, systemProcesses: systemProcesses)
    }

    /// The built-in catalog as JSON text: Sources/LocAuditNormalise/Resources/builtin-catalog.json,
    /// compiled into the binary. `locaudit catalog show` prints it; copy a pattern into your own
    /// file (same `id`) to override it when Apple rewords a message. Every sample runs in the tests.
    public static var builtinJSON: String {
        var text = String(decoding: PackageResources.builtin_catalog_json, as: UTF8.self)
        while text.hasSuffix("\n") { text.removeLast() }
        return text
    }

    /// The built-in catalog, parsed once (its samples are tested; failing here is a programming error).
    public static let builtin: Catalog = try! load(userFiles: [])

    static func decode(_ data: Data, origin: String) throws -> CatalogFile {
        do {
            return try JSONDecoder().decode(CatalogFile.self, from: data)
        } catch let DecodingError.dataCorrupted(context) where context.codingPath.isEmpty {
            throw CatalogError(description: "\(origin): not valid JSON (\(context.debugDescription)). Fix the file; `locaudit catalog show` prints a valid example.")
        } catch let DecodingError.dataCorrupted(context) {
            throw CatalogError(description: "\(origin): wrong value at \(path(context)): \(context.debugDescription). `locaudit catalog show` lists the kinds and columns in use.")
        } catch let DecodingError.keyNotFound(key, context) {
            throw CatalogError(description: "\(origin): missing \"\(key.stringValue)\" at \(path(context)). Every pattern needs id, kind, scope and samples.")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            throw CatalogError(description: "\(origin): wrong value at \(path(context)): \(context.debugDescription)")
        }
    }

    private static func path(_ context: DecodingError.Context) -> String {
        context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }
}
