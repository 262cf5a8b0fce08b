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
/// members are read as one stream (`inflateReset` at each member end), as `gzip -dc` does.
// @unchecked: one thread at a time: the reader thread reads it, then (Handoff's lock orders them) the parser asks endedWithTrailer.
package final class ByteStream: @unchecked Sendable {
    static let readSize = 1 << 20
    static let outputSize = 1 << 20

    private let fd: Int32
    private let ownsDescriptor: Bool
    private var input = [UInt8](repeating: 0, count: ByteStream.readSize)
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

    package init(path: String) throws {
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
    }

    deinit {
        if inflating { inflateEnd(&zstream) }
        if ownsDescriptor { close(fd) }
    }

    /// Fills the input buffer; returns false at end of file.
    fileprivate func refill() throws -> Bool {
        if inputStart < inputEnd { return true }
        if atEOF { return false }
        let n = input.withUnsafeMutableBytes { read(fd, $0.baseAddress, ByteStream.readSize) }
        if n < 0 {
            throw ReadError(byteOffset: fileOffset, reason: "read failed: \(String(cString: strerror(errno)))",
                            advice: "Check the disk and try again.")
        }
        if n == 0 { atEOF = true; return false }
        input.withUnsafeBytes { fileHash.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        inputStart = 0
        inputEnd = n
        return true
    }

    /// The next block of content, or nil at the end of the file.
    package func next() throws -> ByteChunk? {
        if !sawAnyByte {
            guard try refill() else { return nil }
            sawAnyByte = true
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
        var out = [UInt8](repeating: 0, count: ByteStream.outputSize)
        var produced = 0
        while produced < out.count {
            if !memberOpen {
                // Between members: skip nothing but look for the next member's magic.
                guard try refill() else { break }
                guard input[inputStart] == 0x1f else {
                    throw ReadError(byteOffset: fileOffset,
                                    reason: "bytes after gzip member \(gzipMembers) are not another gzip member",
                                    advice: "The file is damaged after its valid part; re-export it or cut it with `gzip -dc FILE > plain.log` and ingest that.")
                }
                if inflating {
                    inflateReset(&zstream)
                } else {
                    let rc = locaudit_inflateInit2(&zstream, 15 + 16)
                    guard rc == Z_OK else {
                        throw ReadError(byteOffset: fileOffset, reason: "zlib could not start (code \(rc))", advice: "Check the zlib installation.")
                    }
                    inflating = true
                }
                memberOpen = true
                gzipMembers += 1
            }
            guard try refill() else {
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
