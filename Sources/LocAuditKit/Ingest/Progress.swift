import Foundation

/// A one-line progress bar on a terminal's stderr: bytes read of the total, MB/s, time left.
public final class ProgressBar: @unchecked Sendable {
    private let lock = NSLock()
    private let total: Int64
    private var done: Int64 = 0
    private var perFile: [String: Int64] = [:]
    private let start = Date()
    private var lastDraw = Date.distantPast
    private var drawn = false
    private let enabled: Bool

    /// Draws only when stderr is a terminal and the user did not ask for quiet.
    public init(totalBytes: Int64, quiet: Bool) {
        total = max(totalBytes, 1)
        enabled = !quiet && isatty(2) == 1
    }

    /// The file at `path` has been read up to `offset` bytes.
    func update(path: String, offset: Int64) {
        guard enabled else { return }
        lock.lock()
        defer { lock.unlock() }
        done += offset - perFile[path, default: 0]
        perFile[path] = offset
        let now = Date()
        guard now.timeIntervalSince(lastDraw) >= 0.2 else { return }
        lastDraw = now
        let elapsed = now.timeIntervalSince(start)
        let rate = Double(done) / max(elapsed, 0.001)
        let left = rate > 0 ? Double(total - done) / rate : 0
        let width = 30
        let filled = Int(Double(width) * Double(done) / Double(total))
        let bar = String(repeating: "█", count: min(filled, width)) + String(repeating: "░", count: max(width - filled, 0))
        let line = String(format: "\r%@ %5.1f%%  %.0f of %.0f MB  %.1f MB/s  %@ left ", bar,
                          100 * Double(done) / Double(total), Double(done) / 1e6, Double(total) / 1e6, rate / 1e6,
                          ProgressBar.duration(left))
        FileHandle.standardError.write(Data(line.utf8))
        drawn = true
    }

    /// Clears the bar so that other output starts on a clean line.
    public func clear() {
        guard enabled else { return }
        lock.lock()
        defer { lock.unlock() }
        if drawn { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)) }
        drawn = false
        lastDraw = .distantPast
    }

    static func duration(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return s >= 60 ? "\(s / 60)m\(String(format: "%02d", s % 60))s" : "\(s)s"
    }
}
