#if canImport(CIsal)
import CIsal
#endif
import CZlib
import Crypto
import Foundation

/// A block of decompressed (or plain) bytes and how far into the file it came from.
package struct ByteChunk: Sendable {
    /// The content bytes.
    package var bytes: [UInt8]
    /// Bytes of the file (compressed bytes, for gzip) consumed once this chunk was produced.
    package var fileOffset: Int64
}

/// Why a file could not be read to its end.
public struct ReadError: Error, CustomStringConvertible, Sendable {
    /// Byte offset in the file (compressed bytes for gzip) where reading stopped.
    public var byteOffset: Int64
    /// What went wrong, in the user's terms.
    public var reason: String
    /// What the user can do about it.
    public var advice: String

    public var description: String { "at byte \(byteOffset): \(reason). \(advice)" }
}

/// Reads a file (or standard input) to its end, inflating gzip members as they come,
/// and hashes both the bytes as stored and the content.
///
/// gzip is detected from the magic bytes, never from the name; several concatenated
/// members are read as one stream (a reset at each member end), as `gzip -dc` does.
///
/// Two inflaters: ISA-L (where linked: Linux), about 2.5 times faster, for regular files;
/// zlib for standard input and as the judge. ISA-L reads headers, data and trailers (CRC-32
/// and length checked) but is never the one to refuse a file: at its first doubt (an error,
/// a header flag zlib would refuse, bytes after a member, a cut) the stream starts again from
/// the file's first byte with zlib, skips the content already handed on, and zlib either reads
/// on or names the byte and the reason, exactly as without ISA-L.
// @unchecked: one thread at a time: the reader thread reads it, then (Handoff's lock orders them) the parser asks endedWithTrailer.
package final class ByteStream: @unchecked Sendable {
    static let outputSize = 1 << 20

    /// Which library inflates gzip members.
    package enum Inflater: Sendable {
        case zlib
        case isal

        /// ISA-L where the package links it, else zlib.
        package static var preferred: Inflater {
            #if canImport(CIsal)
            return .isal
            #else
            return .zlib
            #endif
        }
    }

    private let readSize: Int

    private let fd: Int32
    private let ownsDescriptor: Bool
    private var input: [UInt8]
    private(set) var inputStart = 0
    private(set) var inputEnd = 0
    package private(set) var fileOffset: Int64 = 0
    private var atEOF = false
    private var zstream = z_stream()
    private var inflating = false
    private var memberOpen = false
    private var sawAnyByte = false
    private(set) var isGzip = false
    package private(set) var gzipMembers = 0
    /// SHA-256 of the bytes as stored (what `sha256sum FILE` prints).
    package private(set) var fileHash = SHA256()
    /// SHA-256 of the content (decompressed); the same as `fileHash` for plain files.
    package var contentHash: SHA256 { isGzip ? inflatedHash : fileHash }
    private var inflatedHash = SHA256()
    /// Content bytes produced so far.
    package private(set) var contentSize: Int64 = 0
    /// Whether the content is known whole, once `next()` has returned nil: a gzip stream
    /// whose last member ended with its trailer (zlib checks its length and CRC). A plain
    /// file or a pipe has no end marker: it may still be being written.
    package private(set) var endedWithTrailer = false

    /// ISA-L inflates the members (until a doubt hands the file to zlib).
    package private(set) var usingISAL = false
    /// Times zlib started again from the first byte after ISA-L's doubt (0 or 1).
    package private(set) var zlibRestarts = 0
    /// Where the descriptor stood when reading began, and file bytes read (and hashed) since.
    private var baseOffset: off_t = 0
    private var readOffset: Int64 = 0
    private var hashedBytes: Int64 = 0
    /// Content bytes zlib drops after a restart: they were handed on before it.
    private var skipContent: Int64 = 0
    #if canImport(CIsal)
    private var isal: UnsafeMutablePointer<inflate_state>? = nil
    #endif

    /// `inflater`: ISA-L is used only for a regular file (a restart must read it again).
    /// `readSize`: bytes a read asks for (tests make it small to cut members anywhere).
    package init(path: String, inflater: Inflater = .preferred, readSize: Int = 1 << 20) throws {
        self.readSize = max(1, readSize)
        input = [UInt8](repeating: 0, count: max(2, self.readSize))
        if path == "-" {
            fd = 0
            ownsDescriptor = false
        } else {
            fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                throw ReadError(byteOffset: 0, reason: "cannot open: \(String(cString: strerror(errno)))",
                                advice: "Check the path and its permissions.")
            }
            ownsDescriptor = true
        }
        var info = stat()
        let offset = lseek(fd, 0, SEEK_CUR)
        if inflater == .isal, offset >= 0, fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG {
            usingISAL = true
            baseOffset = offset
        }
    }

    deinit {
        if inflating { inflateEnd(&zstream) }
        #if canImport(CIsal)
        isal?.deallocate()
        #endif
        if ownsDescriptor { close(fd) }
    }

    /// Fills the input buffer; returns false at end of file.
    fileprivate func refill() throws -> Bool {
        if inputStart < inputEnd { return true }
        if atEOF { return false }
        let n = try readBlock(at: 0)
        if n == 0 { return false }
        inputStart = 0
        inputEnd = n
        return true
    }

    /// Reads up to `readSize` bytes into the buffer at `start`, hashing each byte once (after a
    /// restart the first bytes come again); 0 at end of file.
    private func readBlock(at start: Int) throws -> Int {
        let n = input.withUnsafeMutableBytes { read(fd, $0.baseAddress! + start, min(readSize, $0.count - start)) }
        if n < 0 {
            throw ReadError(byteOffset: fileOffset, reason: "read failed: \(String(cString: strerror(errno)))",
                            advice: "Check the disk and try again.")
        }
        if n == 0 { atEOF = true; return 0 }
        let fresh = Int(max(0, min(Int64(n), readOffset + Int64(n) - hashedBytes)))
        if fresh > 0 {
            input.withUnsafeBytes { fileHash.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[(start + n - fresh)..<(start + n)])) }
            hashedBytes += Int64(fresh)
        }
        readOffset += Int64(n)
        return n
    }

    /// The next block of content, or nil at the end of the file.
    package func next() throws -> ByteChunk? {
        if !sawAnyByte {
            guard try refill() else { return nil }
            sawAnyByte = true
            // A pipe may hand on gzip's first byte alone: the magic needs both.
            if inputEnd - inputStart == 1, input[inputStart] == 0x1f { inputEnd += try readBlock(at: inputEnd) }
            isGzip = inputEnd - inputStart >= 2 && input[inputStart] == 0x1f && input[inputStart + 1] == 0x8b
        }
        guard let chunk = isGzip ? try nextInflated() : try nextPlain() else {
            endedWithTrailer = isGzip && !memberOpen
            return nil
        }
        return chunk
    }

    private func nextPlain() throws -> ByteChunk? {
        guard try refill() else { return nil }
        let chunk = Array(input[inputStart..<inputEnd])
        fileOffset += Int64(inputEnd - inputStart)
        contentSize += Int64(inputEnd - inputStart)
        inputStart = inputEnd
        return ByteChunk(bytes: chunk, fileOffset: fileOffset)
    }

    private func nextInflated() throws -> ByteChunk? {
        // Not zeroed (a 1 MiB memset a chunk was 1.7% of the ingest): only the bytes the
        // inflater writes, `out[..<produced]`, are ever read; the rest is cut off below.
        var out = [UInt8](unsafeUninitializedCapacity: ByteStream.outputSize) { _, count in count = ByteStream.outputSize }
        var produced = 0
        while produced < out.count {
            if !memberOpen {
                // Between members: skip nothing but look for the next member's magic.
                guard try refill() else { break }
                guard input[inputStart] == 0x1f else {
                    if usingISAL { produced = try restartWithZlib(); continue }
                    throw ReadError(byteOffset: fileOffset,
                                    reason: "bytes after gzip member \(gzipMembers) are not another gzip member",
                                    advice: "The file is damaged after its valid part; re-export it or cut it with `gzip -dc FILE > plain.log` and ingest that.")
                }
                if usingISAL {
                    // zlib refuses reserved header flags; ISA-L would not: let zlib judge.
                    guard inputEnd - inputStart >= 4, input[inputStart + 3] & 0xe0 == 0, startISAL() else {
                        produced = try restartWithZlib(); continue
                    }
                } else {
                    try startZlib()
                }
                memberOpen = true
                gzipMembers += 1
            }
            let more = try refill()
            if usingISAL {
                // At the end of the file ISA-L may still hold output; no progress there is a cut.
                guard let step = isalStep(&out, produced) else { produced = try restartWithZlib(); continue }
                inputStart += step.usedIn
                fileOffset += Int64(step.usedIn)
                produced += step.usedOut
                if step.ended { memberOpen = false }
                continue
            }
            guard more else {
                throw ReadError(byteOffset: fileOffset,
                                reason: "truncated gzip: the file ends inside member \(gzipMembers)",
                                advice: "The export was cut short; copy it again from the device or the fleet share (`gzip -t FILE` shows the same).")
            }
            let availIn = inputEnd - inputStart
            let (rc, usedIn, usedOut) = input.withUnsafeMutableBufferPointer { inBuf in
                out.withUnsafeMutableBufferPointer { outBuf -> (Int32, Int, Int) in
                    zstream.next_in = inBuf.baseAddress! + inputStart
                    zstream.avail_in = UInt32(availIn)
                    zstream.next_out = outBuf.baseAddress! + produced
                    zstream.avail_out = UInt32(outBuf.count - produced)
                    let rc = inflate(&zstream, Z_NO_FLUSH)
                    return (rc, availIn - Int(zstream.avail_in), outBuf.count - produced - Int(zstream.avail_out))
                }
            }
            inputStart += usedIn
            fileOffset += Int64(usedIn)
            produced += usedOut
            if skipContent > 0 { produced = dropSkipped(&out, produced) }
            switch rc {
            case Z_OK, Z_BUF_ERROR:
                continue
            case Z_STREAM_END:
                memberOpen = false
            default:
                let message = zstream.msg.map { String(cString: $0) } ?? "code \(rc)"
                throw ReadError(byteOffset: fileOffset,
                                reason: "corrupt gzip data in member \(gzipMembers) (\(message))",
                                advice: "The file is damaged; copy it again from the source (`gzip -t FILE` confirms).")
            }
        }
        if produced == 0 { return nil }
        out.removeLast(out.count - produced)
        out.withUnsafeBytes { inflatedHash.update(bufferPointer: $0) }
        contentSize += Int64(produced)
        return ByteChunk(bytes: out, fileOffset: fileOffset)
    }

    /// Starts zlib on a member's first byte.
    private func startZlib() throws {
        if inflating {
            inflateReset(&zstream)
        } else {
            let rc = locaudit_inflateInit2(&zstream, 15 + 16)
            guard rc == Z_OK else {
                throw ReadError(byteOffset: fileOffset, reason: "zlib could not start (code \(rc))", advice: "Check the zlib installation.")
            }
            inflating = true
        }
    }

    /// Starts ISA-L on a member's first byte (header, data and trailer); false where it cannot.
    private func startISAL() -> Bool {
        #if canImport(CIsal)
        if isal == nil {
            isal = UnsafeMutablePointer<inflate_state>.allocate(capacity: 1)
            isal_inflate_init(isal!)
        } else {
            isal_inflate_reset(isal!)
        }
        isal!.pointee.crc_flag = UInt32(ISAL_GZIP)
        return true
        #else
        return false
        #endif
    }

    /// One call of ISA-L on the input at hand into `out` after `produced`; nil at a doubt
    /// (an error, or no progress with input and room).
    private func isalStep(_ out: inout [UInt8], _ produced: Int) -> (usedIn: Int, usedOut: Int, ended: Bool)? {
        #if canImport(CIsal)
        let state = isal!
        let availIn = inputEnd - inputStart
        return input.withUnsafeMutableBufferPointer { inBuf in
            out.withUnsafeMutableBufferPointer { outBuf in
                state.pointee.next_in = inBuf.baseAddress! + inputStart
                state.pointee.avail_in = UInt32(availIn)
                state.pointee.next_out = outBuf.baseAddress! + produced
                state.pointee.avail_out = UInt32(outBuf.count - produced)
                let rc = isal_inflate(state)
                let usedIn = availIn - Int(state.pointee.avail_in)
                let usedOut = outBuf.count - produced - Int(state.pointee.avail_out)
                let ended = state.pointee.block_state == ISAL_BLOCK_FINISH
                guard rc == ISAL_DECOMP_OK, ended || usedIn > 0 || usedOut > 0 else { return nil }
                return (usedIn, usedOut, ended)
            }
        }
        #else
        return nil
        #endif
    }

    /// ISA-L had a doubt: zlib reads the file again from its first byte, skipping the content
    /// already handed on (and the chunk being built, which is dropped). Returns the chunk's new fill, 0.
    private func restartWithZlib() throws -> Int {
        guard lseek(fd, baseOffset, SEEK_SET) == baseOffset else {
            throw ReadError(byteOffset: fileOffset, reason: "cannot read the file again: \(String(cString: strerror(errno)))",
                            advice: "Check the disk and try again.")
        }
        usingISAL = false
        zlibRestarts += 1
        skipContent = contentSize
        inputStart = 0
        inputEnd = 0
        readOffset = 0
        atEOF = false
        fileOffset = 0
        gzipMembers = 0
        memberOpen = false
        return 0
    }

    /// Drops, from the front of the chunk being built, content that was handed on before a restart.
    private func dropSkipped(_ out: inout [UInt8], _ produced: Int) -> Int {
        let drop = Int(min(Int64(produced), skipContent))
        out.withUnsafeMutableBytes { buf in
            guard let base = buf.baseAddress, drop > 0 else { return }
            memmove(base, base + drop, produced - drop)
        }
        skipContent -= Int64(drop)
        return produced - drop
    }

    /// Lower-case hex of a digest.
    package static func hex(_ hash: SHA256) -> String {
        hash.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// SHA-256 of a whole file's stored bytes, for the already-ingested check.
    package static func fileSHA256(path: String) throws -> String {
        let stream = try ByteStream(path: path)
        while try stream.refill() { stream.inputStart = stream.inputEnd }
        return hex(stream.fileHash)
    }
}
