import Foundation

/// Reads a tar archive as it streams by (ustar, with GNU long names and pax `path`
/// records), handing on the content of the members it wants and skipping the rest.
///
/// No recursion, no seeking, and every size is bounded: a header is 512 bytes, a long name
/// or a pax header at most 64 KiB, a member's size at most 2^40 bytes; anything else is
/// a damaged archive, said with its byte offset in the (decompressed) archive.
package final class TarReader {
    static let block = 512
    static let maxMetaBytes = 64 << 10
    static let maxMemberBytes: Int64 = 1 << 40

    /// The sysdiagnose parts locaudit reads: `…/logs/MobileInstallation/mobile_installation.log[.N]`.
    package static func isMobileInstallationLog(_ name: String) -> Bool {
        guard let r = name.range(of: "logs/MobileInstallation/mobile_installation.log") else { return false }
        let rest = name[r.upperBound...]
        return rest.isEmpty || (rest.hasPrefix(".") && rest.dropFirst().allSatisfy(\.isNumber) && rest.count > 1)
    }

    private enum State {
        /// Collecting a 512-byte header.
        case header
        /// A member's content: bytes left, then padding to the block.
        case content(left: Int64, padding: Int, wanted: Bool)
        /// A GNU long name (`L`) or a pax header (`x`) for the next member.
        case meta(left: Int, padding: Int, pax: Bool)
        /// Padding after a member.
        case padding(left: Int)
        /// After the two zero blocks that end the archive.
        case end
    }

    private let wanted: (String) -> Bool
    private var state = State.header
    private var header: [UInt8] = []
    private var meta: [UInt8] = []
    /// The name the next member takes from a long-name or pax record.
    private var nextName: String?
    private var zeroBlocks = 0
    private var memberName = ""
    /// Bytes of the archive consumed so far.
    private(set) var offset: Int64 = 0
    /// The names of the members handed on, in archive order.
    package private(set) var membersRead: [String] = []

    package init(wanted: @escaping (String) -> Bool) { self.wanted = wanted }

    /// Reads the next bytes of the archive; `member` receives the wanted members' content,
    /// `memberEnd` is called at the end of each of them.
    package func consume(_ chunk: [UInt8], member: ([UInt8]) throws -> Void, memberEnd: () throws -> Void) throws {
        var i = 0
        while i < chunk.count {
            switch state {
            case .end:
                offset += Int64(chunk.count - i)
                return
            case .header:
                let take = min(TarReader.block - header.count, chunk.count - i)
                header.append(contentsOf: chunk[i..<(i + take)])
                i += take
                offset += Int64(take)
                if header.count == TarReader.block {
                    try readHeader()
                    header.removeAll(keepingCapacity: true)
                    if case .content(0, _, let isWanted) = state {
                        state = .header
                        if isWanted { try memberEnd() }
                    }
                }
            case .content(let left, let padding, let isWanted):
                let take = Int(min(left, Int64(chunk.count - i)))
                if isWanted, take > 0 { try member(Array(chunk[i..<(i + take)])) }
                i += take
                offset += Int64(take)
                if Int64(take) == left {
                    state = padding > 0 ? .padding(left: padding) : .header
                    if isWanted { try memberEnd() }
                } else {
                    state = .content(left: left - Int64(take), padding: padding, wanted: isWanted)
                }
            case .meta(let left, let padding, let pax):
                let take = min(left, chunk.count - i)
                meta.append(contentsOf: chunk[i..<(i + take)])
                i += take
                offset += Int64(take)
                if take == left {
                    nextName = pax ? TarReader.paxPath(meta) ?? nextName : TarReader.text(meta)
                    meta.removeAll(keepingCapacity: true)
                    state = padding > 0 ? .padding(left: padding) : .header
                } else {
                    state = .meta(left: left - take, padding: padding, pax: pax)
                }
            case .padding(let left):
                let take = min(left, chunk.count - i)
                i += take
                offset += Int64(take)
                state = take == left ? .header : .padding(left: left - take)
            }
        }
    }

    /// The end of the content: it must not end inside a member.
    package func finish() throws {
        switch state {
        case .header where header.isEmpty, .end:
            return
        case .header:
            throw damaged("it ends inside a member's header")
        case .content, .meta, .padding:
            throw damaged("it ends inside member \(memberName), cut short")
        }
    }

    private func damaged(_ what: String) -> ArchiveError {
        ArchiveError(description: "the archive is damaged at byte \(offset) of its content: \(what). Copy it again from the device or the share (`tar -tzf FILE` shows the same).")
    }

    private func readHeader() throws {
        if header.allSatisfy({ $0 == 0 }) {
            zeroBlocks += 1
            if zeroBlocks == 2 { state = .end }
            return
        }
        zeroBlocks = 0
        // The checksum: the sum of the header's bytes with its own field read as spaces.
        var sum = 0
        for (k, byte) in header.enumerated() { sum += (148..<156).contains(k) ? 0x20 : Int(byte) }
        guard let stored = TarReader.octal(header[148..<156]), stored == Int64(sum) else {
            throw damaged("a member header's checksum does not match (not a tar archive, or a damaged one)")
        }
        guard let size = TarReader.size(header[124..<136]), size <= TarReader.maxMemberBytes else {
            throw damaged("a member's size is unreadable or over 1 TiB")
        }
        let padding = Int((Int64(TarReader.block) - size % Int64(TarReader.block)) % Int64(TarReader.block))
        var name = TarReader.text(header[0..<100])
        if header[257..<262].elementsEqual("ustar".utf8) {
            let prefix = TarReader.text(header[345..<500])
            if !prefix.isEmpty { name = prefix + "/" + name }
        }
        switch header[156] {
        case UInt8(ascii: "L"), UInt8(ascii: "x"):
            guard size <= Int64(TarReader.maxMetaBytes) else { throw damaged("a long name or pax header over 64 KiB") }
            state = .meta(left: Int(size), padding: padding, pax: header[156] == UInt8(ascii: "x"))
            if size == 0 { state = .header }
            return
        case 0, UInt8(ascii: "0"), UInt8(ascii: "7"):
            memberName = nextName ?? name
            nextName = nil
            let isWanted = wanted(memberName)
            if isWanted { membersRead.append(memberName) }
            state = .content(left: size, padding: padding, wanted: isWanted)
        default:
            // Directories, links, pax globals, devices: nothing to read, only to skip.
            memberName = nextName ?? name
            nextName = nil
            state = .content(left: size, padding: padding, wanted: false)
        }
    }

    /// A NUL-terminated field as text.
    private static func text<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        String(decoding: bytes.prefix(while: { $0 != 0 }), as: UTF8.self)
    }

    /// An octal field (spaces and NULs around it, at most 12 digits: the widest field); nil when it is not one.
    private static func octal(_ field: ArraySlice<UInt8>) -> Int64? {
        var value: Int64 = 0
        var digits = 0
        for c in field {
            if c == 0 || c == 0x20 { if digits > 0 { break } else { continue } }
            guard c >= 48, c <= 55, digits < 12 else { return nil }
            value = value * 8 + Int64(c - 48)
            digits += 1
        }
        return digits > 0 ? value : nil
    }

    /// The size field: octal, or GNU's base-256 for large members (high bit of the first byte).
    private static func size(_ field: ArraySlice<UInt8>) -> Int64? {
        guard let first = field.first else { return nil }
        guard first & 0x80 != 0 else { return octal(field) }
        var value: Int64 = Int64(first & 0x7f)
        for c in field.dropFirst() {
            guard value < (1 << 48) else { return nil }
            value = value << 8 | Int64(c)
        }
        return value
    }

    /// The `path` of a pax extended header (`LEN path=VALUE\n` records).
    private static func paxPath(_ bytes: [UInt8]) -> String? {
        var i = 0
        var path: String?
        while i < bytes.count {
            var length = 0
            var j = i
            while j < bytes.count, bytes[j] >= 48, bytes[j] <= 57, length < maxMetaBytes {
                length = length * 10 + Int(bytes[j] - 48)
                j += 1
            }
            guard j < bytes.count, bytes[j] == 0x20, length > j - i, i + length <= bytes.count else { return path }
            let record = bytes[(j + 1)..<(i + length)]
            if record.starts(with: "path=".utf8) {
                path = String(decoding: record.dropFirst(5).prefix(while: { $0 != 0x0a }), as: UTF8.self)
            }
            i += length
        }
        return path
    }
}

/// Why an archive could not be read: where, and what to do.
package struct ArchiveError: Error, CustomStringConvertible {
    package var description: String
}
