import Foundation
import LocAuditRules

/// Which build of locaudit is running: its ELF build id (`.note.gnu.build-id`, which the
/// linker derives from the binary's contents), else its version, size and modification time.
/// A checkpoint of the fleet's audit holds the build that judged the sessions before it: any
/// other build (a rule changed, or anything else) judges them again.
enum BuildIdentity {
    static let current: String = buildID(of: "/proc/self/exe") ?? fallback()

    /// The GNU build id of the ELF file at `path`, in hex; nil when it has none or is no 64-bit
    /// little-endian ELF file. Every offset and size is checked against the bytes read.
    static func buildID(of path: String) -> String? {
        guard let file = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? file.close() }
        guard let header = try? file.read(upToCount: 64), header.count == 64,
              header.prefix(4) == Data([0x7F, 0x45, 0x4C, 0x46]), header[4] == 2, header[5] == 1 else { return nil }
        let bytes = [UInt8](header)
        let phoff = le(bytes, 0x20, 8), phentsize = le(bytes, 0x36, 2), phnum = le(bytes, 0x38, 2)
        guard phentsize >= 56, phnum > 0, phnum < 256 else { return nil }
        guard (try? file.seek(toOffset: phoff)) != nil, let table = try? file.read(upToCount: Int(phentsize * phnum)),
              table.count == Int(phentsize * phnum) else { return nil }
        let headers = [UInt8](table)
        for i in 0..<Int(phnum) {
            let at = i * Int(phentsize)
            guard le(headers, at, 4) == 4 else { continue } // PT_NOTE
            let offset = le(headers, at + 8, 8), size = le(headers, at + 32, 8)
            guard size > 0, size < 1 << 16, (try? file.seek(toOffset: offset)) != nil,
                  let notes = try? file.read(upToCount: Int(size)), notes.count == Int(size) else { continue }
            if let id = gnuBuildID(in: [UInt8](notes)) { return id }
        }
        return nil
    }

    /// The NT_GNU_BUILD_ID note's bytes in hex, from a PT_NOTE segment.
    static func gnuBuildID(in notes: [UInt8]) -> String? {
        var at = 0
        func aligned(_ n: UInt64) -> Int { Int((n + 3) & ~3) }
        while at + 12 <= notes.count {
            let nameSize = le(notes, at, 4), descSize = le(notes, at + 4, 4), type = le(notes, at + 8, 4)
            guard nameSize < 1 << 12, descSize < 1 << 12 else { return nil }
            let name = at + 12, desc = name + aligned(nameSize), next = desc + aligned(descSize)
            guard next <= notes.count else { return nil }
            if type == 3, nameSize == 4, notes[name..<name + 4] == [0x47, 0x4E, 0x55, 0] { // "GNU\0"
                return notes[desc..<desc + Int(descSize)].map { String(format: "%02x", $0) }.joined()
            }
            at = next
        }
        return nil
    }

    /// A little-endian unsigned integer of `count` bytes at `at` (the caller has checked the bounds).
    private static func le(_ bytes: [UInt8], _ at: Int, _ count: Int) -> UInt64 {
        guard at >= 0, at + count <= bytes.count else { return 0 }
        var value: UInt64 = 0
        for i in (0..<count).reversed() { value = value << 8 | UInt64(bytes[at + i]) }
        return value
    }

    private static func fallback() -> String {
        let path = ProcessInfo.processInfo.arguments.first ?? ""
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        let size = (attributes?[.size] as? Int64).map(String.init) ?? "?"
        let modified = (attributes?[.modificationDate] as? Date).map { String($0.timeIntervalSince1970) } ?? "?"
        return "locaudit \(LocAuditVersion.current) \(size) \(modified)"
    }
}
