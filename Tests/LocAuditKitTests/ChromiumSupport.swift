import Foundation
import Testing
@testable import LocAuditUnitTests

/// Debian's `chromium`, headless.
struct Chromium {
    let path: String

    /// Chromium, else an error that says how to install it (the tests that call this need a
    /// real browser, and carry `.needsChromium`: this fails only under CI).
    static func required() throws -> Chromium {
        if let chromium = find() { return chromium }
        throw Missing()
    }
    struct Missing: Error, CustomStringConvertible {
        var description: String { "chromium is not installed: scripts/setup.sh --test installs it; this test needs a real browser" }
    }

    /// LOCAUDIT_KEEP_HTML=DIR keeps these files (pages and their screenshots) there, to look
    /// at them, or for the README.
    static func keep(_ files: [URL]) throws {
        guard let keep = ProcessInfo.processInfo.environment["LOCAUDIT_KEEP_HTML"] else { return }
        try FileManager.default.createDirectory(atPath: keep, withIntermediateDirectories: true)
        for file in files {
            let target = URL(fileURLWithPath: keep).appendingPathComponent(file.lastPathComponent)
            try? FileManager.default.removeItem(at: target)
            try FileManager.default.copyItem(at: file, to: target)
        }
    }

    static func find() -> Chromium? {
        let dirs = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        for dir in dirs {
            let path = "\(dir)/chromium"
            if FileManager.default.isExecutableFile(atPath: path) { return Chromium(path: path) }
        }
        return nil
    }

    private func run(_ page: URL, _ arguments: [String], profile: URL) throws -> String {
        let result = try LocAuditKitTests.run(path, ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                                                     "--log-level=3", "--user-data-dir=\(profile.path)"] + arguments + [page.absoluteString])
        guard result.status == 0 else { throw ChromiumError(status: result.status, stderr: result.stderr) }
        return result.stdout
    }

    /// The page's DOM after parsing (and its scripts, if any), serialised; laid out at `width` x `height`.
    func dumpDOM(_ page: URL, profile: URL, width: Int = 1280, height: Int = 2000) throws -> String {
        try run(page, ["--dump-dom", "--window-size=\(width),\(height)"], profile: profile)
    }

    func screenshot(_ page: URL, to png: URL, profile: URL, width: Int = 1280, height: Int = 2000) throws {
        _ = try run(page, ["--screenshot=\(png.path)", "--window-size=\(width),\(height)", "--hide-scrollbars"], profile: profile)
    }
}

struct ChromiumError: Error, CustomStringConvertible {
    let status: Int32
    let stderr: String
    var description: String { "chromium exited with \(status): \(stderr)" }
}

/// Width and height from a PNG's IHDR chunk; nil when the bytes are not a PNG.
func pngSize(_ data: Data) -> (width: Int, height: Int)? {
    let bytes = [UInt8](data.prefix(24))
    guard bytes.count == 24, bytes[0..<8] == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], bytes[12..<16] == Array("IHDR".utf8)[...] else {
        return nil
    }
    func int(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
    return (int(16), int(20))
}

extension Chromium {
    /// Runs `script` (a function body returning JSON-able values) in a copy of `html` laid out
    /// at `width` x `height`, and decodes what it returns. The copy drops the page's
    /// Content-Security-Policy, which forbids scripts: the report itself never runs one.
    func evaluate<T: Decodable>(_ html: String, script: String, in dir: URL, width: Int = 1280, height: Int = 2000) throws -> T {
        let page = html.replacing(#/<meta http-equiv="Content-Security-Policy"[^>]*>/#, with: "")
            .replacingOccurrences(of: "</body>", with: """
                <script>
                try { document.body.dataset.result = JSON.stringify((function () {\n\(script)\n})()); }
                catch (e) { document.body.dataset.result = JSON.stringify({ error: String(e) }); }
                </script>
                </body>
                """)
        let url = dir.appendingPathComponent("measured-\(UUID().uuidString).html")
        try page.write(to: url, atomically: true, encoding: .utf8)
        let dom = try dumpDOM(url, profile: dir.appendingPathComponent("chromium-profile"), width: width, height: height)
        let attribute = try #require(dom.firstMatch(of: #/data-result="([^"]*)"/#)).output.1
        let json = String(attribute).replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(of: "&amp;", with: "&")
        do {
            return try JSONDecoder().decode(T.self, from: Data(json.utf8))
        } catch {
            throw ChromiumError(status: 0, stderr: "the page's script returned \(json.prefix(500)): \(error)")
        }
    }
}

/// Where the tests leave the screenshots people look at: `.build/test-output/screenshots/`
/// of the package (kept after the run, printed as written).
enum TestScreenshots {
    static let folder = packageRoot.appendingPathComponent(".build/test-output/screenshots")

    struct Top: Decodable { var top: Double }

    /// The page `html` (written to `dir` as `NAME.html`) in headless Chromium at 1400 and 760
    /// pixels wide: `NAME-1400.png` and `NAME-760.png`, 900 high, or down to 900 pixels below
    /// the top of `showing` (a CSS selector: headless Chromium's screenshots ignore a URL's
    /// fragment). Each is checked to be a PNG of that size and not blank (larger than a
    /// screenshot of an empty page of the same size).
    @discardableResult
    static func take(_ chromium: Chromium, html: String, name: String, in dir: URL, showing: String? = nil) throws -> [URL] {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let page = dir.appendingPathComponent("\(name).html"), profile = dir.appendingPathComponent("chromium-profile")
        try html.write(to: page, atomically: true, encoding: .utf8)
        let blankPage = dir.appendingPathComponent("blank-\(name).html")
        try "<!DOCTYPE html><html><head><title>blank</title></head><body></body></html>".write(to: blankPage, atomically: true, encoding: .utf8)
        var shots: [URL] = []
        for width in [1400, 760] {
            var height = 900
            if let showing {
                let top: Top = try chromium.evaluate(html, script: "return { top: document.querySelector('\(showing)').getBoundingClientRect().top };",
                                                     in: dir, width: width, height: 900)
                height = max(900, Int(top.top) + 900)
            }
            let shot = folder.appendingPathComponent("\(name)-\(width).png")
            try? FileManager.default.removeItem(at: shot)
            try chromium.screenshot(page, to: shot, profile: profile, width: width, height: height)
            let png = try Data(contentsOf: shot)
            let size = pngSize(png)
            #expect(size?.width == width && size?.height == height, "\(shot.path) is not a \(width)x\(height) PNG: \(String(describing: size))")
            let blankShot = dir.appendingPathComponent("blank-\(name)-\(width).png")
            try chromium.screenshot(blankPage, to: blankShot, profile: profile, width: width, height: height)
            let blank = try Data(contentsOf: blankShot)
            #expect(png.count > 8 * blank.count, "\(shot.path) (\(png.count) bytes) looks blank next to an empty page (\(blank.count) bytes)")
            print("screenshot: \(shot.path)")
            shots.append(shot)
        }
        try Chromium.keep([page] + shots)
        return shots
    }
}
