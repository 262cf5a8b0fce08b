import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One line of progress on standard error, redrawn in place, for a person at a terminal:
/// the bytes and files an ingest has read, the events and sessions an audit has got through.
/// Draws nothing when standard error is not a terminal (cron, a pipe, a file) or with `quiet`.
/// Writes go through `Output.standardError`; every method is safe from several threads.
// @unchecked: every mutable field, and `write`, is touched only with `lock` held.
public final class ProgressBar: @unchecked Sendable {
    private let lock = NSLock()
    private let enabled: Bool
    /// Where the line goes: standard error, through `Output` (a failed write is no failure).
    private let write: @Sendable (String) -> Void
    private var lastDraw = Date.distantPast
    private var drawn = false

    /// The step under way: its name, the units done and their total (nil: not known ahead).
    private var step = ""
    private var unit = ""
    private var total: Int64?
    private var done: Int64 = 0
    private var started = Date()
    /// What the step has got through besides its units (`1,234 sessions checked`).
    private var detail = ""

    /// An ingest counts bytes, by file, and the files done.
    private var bytes = false
    private var perFile: [String: Int64] = [:]
    private var files = 0
    private var filesDone = 0

    /// Draws only when `terminal` (standard error is one) and the user did not ask for quiet.
    public init(quiet: Bool, terminal: Bool = isatty(STDERR_FILENO) == 1, write: @escaping @Sendable (String) -> Void = Output.standardError) {
        enabled = !quiet && terminal
        self.write = write
    }

    /// An ingest's bar: bytes read of `totalBytes`, files done of `files`.
    public convenience init(totalBytes: Int64, files: Int, quiet: Bool, terminal: Bool = isatty(STDERR_FILENO) == 1,
                            write: @escaping @Sendable (String) -> Void = Output.standardError) {
        self.init(quiet: quiet, terminal: terminal, write: write)
        bytes = true
        total = max(totalBytes, 1)
        self.files = files
    }

    /// A new step: its name (`checking rules`), the total of its units when known, and what
    /// they are (`sessions`). Draws it at once.
    public func start(_ step: String, total: Int? = nil, unit: String = "") {
        guard enabled else { return }
        lock.lock()
        defer { lock.unlock() }
        self.step = step
        self.total = total.map(Int64.init)
        self.unit = unit
        done = 0
        detail = ""
        started = Date()
        lastDraw = .distantPast
        draw()
    }

    /// The step has got through `done` units.
    public func advance(to done: Int) {
        guard enabled else { return }
        lock.lock()
        defer { lock.unlock() }
        self.done = Int64(done)
        draw()
    }

    /// The step has got through `done` units, and `detail` besides (shown after the units).
    public func advance(to done: Int, detail: String) {
        guard enabled else { return }
        lock.lock()
        defer { lock.unlock() }
        self.done = Int64(done)
        self.detail = detail
        // The step's end is drawn whatever the rate: a fast audit still shows where it got.
        draw(force: Int64(done) == total)
    }

    /// The file at `path` has been read up to `offset` bytes.
    package func update(path: String, offset: Int64) {
        guard enabled else { return }
        lock.lock()
        defer { lock.unlock() }
        done += offset - perFile[path, default: 0]
        perFile[path] = offset
        draw()
    }

    /// One more file is done (ingested, skipped or failed).
    package func fileDone() {
        guard enabled else { return }
        lock.lock()
        defer { lock.unlock() }
        filesDone += 1
    }

    /// Clears the line so that other output starts on a clean one.
    public func clear() {
        guard enabled else { return }
        lock.lock()
        defer { lock.unlock() }
        if drawn { write("\r\u{1B}[2K") }
        drawn = false
        lastDraw = .distantPast
    }

    /// Redraws at most five times a second. Called under the lock.
    private func draw(force: Bool = false) {
        let now = Date()
        guard force || now.timeIntervalSince(lastDraw) >= 0.2 else { return }
        lastDraw = now
        write("\r\u{1B}[2K" + line(elapsed: now.timeIntervalSince(started)))
        drawn = true
    }

    /// The line: under 80 columns, so that a terminal never wraps it.
    func line(elapsed: TimeInterval) -> String {
        var parts: [String] = []
        if !step.isEmpty { parts.append(step) }
        if let total {
            let fraction = min(1, max(0, Double(done) / Double(max(total, 1))))
            // A step with a detail (the audit's sessions) draws a shorter bar to stay under 80 columns.
            let width = detail.isEmpty ? 20 : 12
            let filled = Int((Double(width) * fraction).rounded(.down))
            parts.append(String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
                + String(format: " %5.1f%%", 100 * fraction))
            if bytes {
                parts.append(String(format: "%.0f of %.0f MB", Double(done) / 1e6, Double(total) / 1e6))
                if files > 1 { parts.append("\(filesDone) of \(files) files") }
                parts.append(String(format: "%.1f MB/s", Double(done) / 1e6 / max(elapsed, 0.001)))
            } else if !detail.isEmpty {
                parts.append("\(ProgressBar.grouped(done))/\(ProgressBar.grouped(total)) \(unit)")
                parts.append(detail)
            } else {
                parts.append("\(ProgressBar.grouped(done)) of \(ProgressBar.grouped(total)) \(unit)")
            }
            if done > 0, done < total {
                let rate = Double(done) / max(elapsed, 0.001)
                parts.append(ProgressBar.duration(Double(total - done) / rate) + " left")
            }
        } else if done > 0 {
            parts.append("\(ProgressBar.grouped(done)) \(unit)")
        }
        return parts.joined(separator: "  ")
    }

    /// `1,234,567`.
    package static func grouped(_ n: Int64) -> String {
        let digits = String(n.magnitude)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out += "," }
            out.append(c)
        }
        return (n < 0 ? "-" : "") + out
    }

    static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds < 360_000 else { return "a while" }
        let s = Int(seconds.rounded())
        return s >= 60 ? "\(s / 60)m\(String(format: "%02d", s % 60))s" : "\(s)s"
    }
}
