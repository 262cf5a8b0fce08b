import Foundation

/// Files an inbox holds that are no log at all: a README, an HTML page, a zip, a PDF, an
/// image. `locaudit run` lists them as ignored, with the reason, instead of failing them
/// every night. Conservative: only a name or first bytes that no log container has decide;
/// a file that might be a log (any `.log`, `.txt`, `.json`, `.gz`, a file with no
/// extension) is read as usual, and fails with its own sentence if it is none.
package enum NotALog {
    /// Why a file is no log, or nil when it may be one.
    package static func reason(_ path: String) -> String? {
        let name = (path as NSString).lastPathComponent.lowercased()
        let ext = (name as NSString).pathExtension
        if let why = byExtension[ext] { return why }
        let stem = (name as NSString).deletingPathExtension
        if ["readme", "license", "licence", "changelog"].contains(stem), ["", "txt", "rst"].contains(ext) {
            return "a document (\((path as NSString).lastPathComponent)), not a log"
        }
        return byContent(path)
    }

    static let byExtension: [String: String] = {
        var table: [String: String] = [:]
        for ext in ["md", "markdown", "rst", "doc", "docx", "odt", "rtf", "pages", "xls", "xlsx", "ods", "numbers", "ppt", "pptx"] {
            table[ext] = "a document (.\(ext)), not a log"
        }
        for ext in ["html", "htm", "xhtml"] { table[ext] = "an HTML page (.\(ext)), not a log" }
        table["pdf"] = "a PDF document, not a log"
        for ext in ["zip", "7z", "rar"] {
            table[ext] = "a .\(ext) archive, which locaudit does not open: unpack its logs into the inbox (a sysdiagnose .tar.gz is read as it is)"
        }
        for ext in ["png", "jpg", "jpeg", "gif", "heic", "webp", "svg", "mov", "mp4"] { table[ext] = "an image or video (.\(ext)), not a log" }
        return table
    }()

    /// The first bytes of formats no log container starts with.
    static func byContent(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: 512), !data.isEmpty else { return nil }
        let head = [UInt8](data)
        func starts(_ magic: [UInt8]) -> Bool { head.count >= magic.count && Array(head.prefix(magic.count)) == magic }
        if starts([0x50, 0x4B, 0x03, 0x04]) || starts([0x50, 0x4B, 0x05, 0x06]) {
            return "a zip archive (by its first bytes), which locaudit does not open: unpack its logs into the inbox"
        }
        if starts(Array("%PDF-".utf8)) { return "a PDF document (by its first bytes), not a log" }
        if starts([0x89, 0x50, 0x4E, 0x47]) { return "a PNG image (by its first bytes), not a log" }
        var text = String(decoding: head, as: UTF8.self)
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        let start = text.drop(while: { $0.isWhitespace }).prefix(20).lowercased()
        if start.hasPrefix("<!doctype html") || start.hasPrefix("<html") {
            return "an HTML page (by its first bytes), not a log"
        }
        return nil
    }
}
