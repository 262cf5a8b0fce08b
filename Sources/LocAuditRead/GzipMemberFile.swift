import CZlib
import Foundation
#if canImport(Glibc)
import Glibc
private func systemClose(_ fd: Int32) -> Int32 { Glibc.close(fd) }
private func systemWrite(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int) -> Int { Glibc.write(fd, p, n) }
#else
import Darwin
private func systemClose(_ fd: Int32) -> Int32 { Darwin.close(fd) }
private func systemWrite(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int) -> Int { Darwin.write(fd, p, n) }
#endif

/// A gzip file written as a series of whole members (RFC 1952 allows any number; gzip, zcat
/// and locaudit read them as one stream). Each `append` compresses its bytes into one member
/// and writes it with one `write`; when a write fails (a full disk), the file is cut back to
/// the end of the last whole member, so that what it holds is always a valid gzip file.
package final class GzipMemberFile {
    package let path: String
    private var fd: Int32
    /// Bytes of whole members on disk.
    package private(set) var size: Int64 = 0
    /// Bytes given to `append` and stored (before compression).
    package private(set) var inputBytes: Int64 = 0

    /// Creates the file; an existing one is an error (`O_EXCL`).
    package init(creating path: String) throws {
        self.path = path
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw GzipWriteError(path: path, errno: errno, lost: 0) }
    }

    deinit { if fd >= 0 { _ = systemClose(fd) } }

    /// Writes `bytes` as one member. On failure the file keeps its earlier members (cut back
    /// to them) and stays open; the error names the file and the cause.
    package func append(_ bytes: [UInt8]) throws {
        guard !bytes.isEmpty else { return }
        let member = try GzipMemberFile.member(bytes)
        if let code = GzipMemberFile.writeAll(fd, member) {
            // Whole members only: the part of this one that reached the disk goes.
            _ = ftruncate(fd, off_t(size))
            _ = lseek(fd, off_t(size), SEEK_SET)
            throw GzipWriteError(path: path, errno: code, lost: bytes.count)
        }
        size += Int64(member.count)
        inputBytes += Int64(bytes.count)
    }

    /// Writes all of `bytes` to `fd` (again after an interrupted or short write); nil when
    /// done, else the error (`ENOSPC` for a write that took nothing).
    package static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Int32? {
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { systemWrite(fd, $0.baseAddress! + written, bytes.count - written) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return n < 0 ? errno : ENOSPC }
            written += n
        }
        return nil
    }

    /// Flushes to the disk and closes. Closing twice does nothing.
    package func close() {
        guard fd >= 0 else { return }
        _ = fsync(fd)
        _ = systemClose(fd)
        fd = -1
    }

    /// One gzip member holding `bytes` (no name, no time: the same bytes give the same member).
    package static func member(_ bytes: [UInt8], level: Int32 = 6) throws -> [UInt8] {
        guard bytes.count < Int(UInt32.max / 2) else { throw GzipWriteError(path: "", errno: EFBIG, lost: bytes.count) }
        var stream = z_stream()
        guard locaudit_deflateInit2(&stream, level, 15 + 16) == Z_OK else { throw GzipWriteError(path: "", errno: ENOMEM, lost: bytes.count) }
        defer { deflateEnd(&stream) }
        var input = bytes
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(bytes.count))) + 32)
        let status: Int32 = input.withUnsafeMutableBufferPointer { inBuf in
            output.withUnsafeMutableBufferPointer { outBuf in
                stream.next_in = inBuf.baseAddress
                stream.avail_in = uInt(inBuf.count)
                stream.next_out = outBuf.baseAddress
                stream.avail_out = uInt(outBuf.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { throw GzipWriteError(path: "", errno: EIO, lost: bytes.count) }
        return Array(output.prefix(Int(stream.total_out)))
    }
}

/// A gzip file that could not be created or written.
package struct GzipWriteError: Error, CustomStringConvertible {
    package var path: String
    package var errno: Int32
    /// Bytes (before compression) that were not stored.
    package var lost: Int
    package var isFull: Bool { errno == ENOSPC || errno == EDQUOT }
    package var cause: String { String(cString: strerror(errno)) }
    package var description: String { "\(path): \(cause)" }

    package init(path: String, errno: Int32, lost: Int) {
        self.path = path
        self.errno = errno
        self.lost = lost
    }
}
