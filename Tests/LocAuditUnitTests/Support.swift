import CZlib
import Foundation
import GRDB
@testable import LocAuditIngest
@testable import LocAuditStore

/// A temporary directory with its own store, for one test.
final class Workspace: Sendable {
    let dir: URL
    let store: Store

    init() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("locaudit-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        store = try Store(path: dir.appendingPathComponent("test.sqlite").path)
    }

    deinit { try? FileManager.default.removeItem(at: dir) }

    /// Writes a file (bytes or text) and returns its path.
    @discardableResult
    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let url = dir.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
        return url.path
    }

    @discardableResult
    func write(_ name: String, _ text: String) throws -> String { try write(name, Array(text.utf8)) }

    /// Writes `text` gzipped (`gzip`: zlib, in this process).
    @discardableResult
    func writeGzip(_ name: String, _ text: String) throws -> String {
        try write(name, try gzip(Array(text.utf8)))
    }

    func ingest(_ paths: [String], _ configure: (inout IngestOptions) -> Void = { _ in }) throws -> IngestReport {
        var options = IngestOptions(paths: paths)
        options.quiet = true
        configure(&options)
        return try Ingester(store: store, options: options).run()
    }

    func rows(_ sql: String, _ arguments: StatementArguments = []) throws -> [Row] {
        try store.connect(readOnly: true).read { try Row.fetchAll($0, sql: sql, arguments: arguments) }
    }

    func count(_ sql: String, _ arguments: StatementArguments = []) throws -> Int {
        try store.connect(readOnly: true).read { try Int.fetchOne($0, sql: sql, arguments: arguments) ?? 0 }
    }

    /// Every row of every table, as text: "the database's content" for atomicity checks.
    func contentDump() throws -> String {
        try store.connect(readOnly: true).read { db in
            var out = ""
            for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") {
                out += "## \(table)\n"
                out += try Row.fetchAll(db, sql: "SELECT * FROM \"\(table)\"").map { "\($0)\n" }.sorted().joined()
            }
            return out
        }
    }
}

/// `bytes` as one gzip member (no name, no time: what `gzip -c -n` writes), deflated by zlib in
/// this process, so that a unit test starts no program. zlib, not the package's own writer
/// (GzipMemberFile): the reader under test is not checked against its own twin. InflateTests
/// reads what the gzip program writes.
func gzip(_ bytes: [UInt8]) throws -> [UInt8] {
    var stream = z_stream()
    guard locaudit_deflateInit2(&stream, 6, 15 + 16) == Z_OK else { throw GzipFailure(step: "deflateInit2") }
    defer { deflateEnd(&stream) }
    var input = bytes
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    var status = Z_OK
    try input.withUnsafeMutableBufferPointer { inBuffer in
        stream.next_in = inBuffer.baseAddress
        stream.avail_in = uInt(inBuffer.count)
        repeat {
            try chunk.withUnsafeMutableBufferPointer { outBuffer in
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = uInt(outBuffer.count)
                status = deflate(&stream, Z_FINISH)
                guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else { throw GzipFailure(step: "deflate \(status)") }
                out += outBuffer[0..<(outBuffer.count - Int(stream.avail_out))]
            }
        } while status != Z_STREAM_END
    }
    return out
}

struct GzipFailure: Error, CustomStringConvertible {
    let step: String
    var description: String { "zlib failed: \(step)" }
}

/// The package root, found from this file.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The test files of the repository: `Expected/` (reporter outputs) and `Fixtures/` (the real
/// files from public sources, byte for byte as they were published), in LocAuditKitTests'
/// folder (that target also copies them as its resources). Read in place, by both targets.
let testFiles = packageRoot.appendingPathComponent("Tests/LocAuditKitTests")

/// The real files from public sources (`Fixtures/real/`).
let realFixtures = testFiles.appendingPathComponent("Fixtures/real")

/// An idevicesyslog line.
func syslogLine(_ stamp: String, _ process: String, _ pid: Int, _ message: String, device: String = "iPhone") -> String {
    "\(stamp) \(device) \(process)[\(pid)] <Notice>: \(message)"
}

enum Messages {
    static func appState(_ state: String, pid: Int, bundle: String) -> String {
        #"{"msg":"RBS #AppMonitor Post Application State Change Notification", "notification":"\#(state)", "pid":\#(pid), "bundleId":"\#(bundle)"}"#
    }
    static func delivery(accuracy: Double = 5) -> String {
        ##"{"msg":"#CLLocationManager invoking #delegate", "self":"0x1483580a0", "delegate":"0x148270140", "selector":"locationManager:didUpdateLocations:", "location":{"latitude":48.8584, "longitude":2.2945, "horizontalAccuracy":\##(accuracy), "timestamp":810124690.49}}"##
    }
    static let privateDelivery = ##"{"msg":"#CLLocationManager invoking #delegate", "self":"0x1483580a0", "selector":"locationManager:didUpdateLocations:", "location":<private>}"##
    static func call(_ cmd: String) -> String {
        #"{"msg":"CLLocationManager", "event":"activity", "_cmd":"\#(cmd)", "self":"0x1038ead60"}"#
    }
}

/// A deterministic generator (SplitMix64): a failing seed fails the same way every run.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
