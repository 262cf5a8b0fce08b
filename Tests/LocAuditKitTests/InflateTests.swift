import Foundation
import Testing
@testable import LocAuditUnitTests
import LocAuditRead

/// ISA-L inflates gzip members where it is linked; at its first doubt zlib starts again from the
/// first byte and judges (same byte, same reason as before ISA-L); zlib reads what cannot be read twice.
@Suite(.enabled(if: ByteStream.Inflater.preferred == .isal, "ISA-L is linked on Linux only"), .tags(.endToEnd), .ownThreads)
struct InflateTests {
    /// What a reading of a whole file gave: its facts, or the error it stopped on. (The
    /// content is kept apart: a failing `==` on megabytes has the test library diff them for minutes.)
    struct Reading: Equatable, CustomStringConvertible {
        var contentSHA256 = ""
        var fileSHA256 = ""
        var members = 0
        var fileOffset: Int64 = 0
        var contentSize: Int64 = 0
        var endedWithTrailer = false
        var error: String? = nil

        var description: String {
            error ?? "\(contentSize) bytes, \(members) members, \(fileOffset) file bytes, trailer \(endedWithTrailer)"
        }
    }

    /// Reads `path` to its end (or its error) with `inflater`; the content (empty after an
    /// error) and the stream, for its counters, come with it.
    static func read(_ path: String, _ inflater: ByteStream.Inflater, readSize: Int = 1 << 20) throws -> (Reading, [UInt8], ByteStream) {
        let stream = try ByteStream(path: path, inflater: inflater, readSize: readSize)
        var reading = Reading()
        var content: [UInt8] = []
        do {
            while let chunk = try stream.next() { content += chunk.bytes }
            reading.contentSHA256 = ByteStream.hex(stream.contentHash)
            reading.fileSHA256 = ByteStream.hex(stream.fileHash)
            reading.members = stream.gzipMembers
            reading.fileOffset = stream.fileOffset
            reading.contentSize = stream.contentSize
            reading.endedWithTrailer = stream.endedWithTrailer
        } catch let error as ReadError {
            // Only the error is compared: what was handed on before it is thrown away with the file.
            return (Reading(error: error.description), [], stream)
        }
        return (reading, content, stream)
    }

    /// Deterministic bytes: log lines (compress well) or noise (deflate stores them).
    static func lines(_ count: Int, seed: Int) -> [UInt8] {
        var text = ""
        for i in 0..<count {
            let stamp = String(format: "Nov 12 %02d:%02d:%02d", (i / 3600) % 24, (i / 60) % 60, i % 60)
            let state = i % 3 == 0 ? "ForegroundRunning" : "BackgroundRunning"
            let message = Messages.appState(state, pid: 100 + (i * 7919 + seed) % 5000, bundle: "com.example.app\((i * seed) % 13)")
            text += syslogLine(stamp, "locationd", 64 + (i * seed) % 997, message) + "\n"
        }
        return Array(text.utf8)
    }

    static func noise(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            // splitmix64
            state &+= 0x9e37_79b9_7f4a_7c15
            var z = state
            z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
            z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
            return UInt8(truncatingIfNeeded: z ^ (z >> 31))
        }
    }

    @Test("ISA-L inflates every member, across the 1 MiB reads, to the content, hashes and counts of zlib and gzip -dc")
    func isalReadsWhatZlibReads() throws {
        let ws = try Workspace()
        // Members of every shape: empty, one byte, larger than a read, stored (noise), and
        // one whose header carries the original name and time (`gzip -c FILE`).
        let named = try ws.write("named.log", Self.lines(900, seed: 5))
        let namedMember = try #require(Data(base64Encoded: try run("/bin/sh", ["-c", "gzip -c '\(named)' | base64 -w0"]).stdout))
        #expect(namedMember[3] & 0x08 != 0, "the member's header names its file")
        let members: [[UInt8]] = [
            try gzip([]), try gzip([0x0a]), try gzip(Self.lines(20_000, seed: 3)),
            try gzip(Self.noise(1_500_000, seed: 7)), try gzip(Self.lines(300, seed: 11)), Array(namedMember),
        ]
        let path = try ws.write("members.log.gz", Array(members.joined()))

        let (isal, isalContent, isalStream) = try Self.read(path, .isal)
        let (zlib, zlibContent, zlibStream) = try Self.read(path, .zlib)
        #expect(isal.error == nil)
        #expect(isal == zlib)
        let same = isalContent.elementsEqual(zlibContent)
        #expect(same)
        #expect(isal.members == members.count)
        #expect(isal.fileOffset == Int64(try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int))
        let gunzipped = Array(Data(base64Encoded: try run("/bin/sh", ["-c", "gzip -dc '\(path)' | base64 -w0"]).stdout) ?? Data())
        let asGzip = isalContent.elementsEqual(gunzipped)
        #expect(asGzip, "\(isalContent.count) bytes against gzip -dc's \(gunzipped.count)")
        #expect(isalStream.usingISAL && isalStream.zlibRestarts == 0, "ISA-L read it all, without a restart")
        #expect(!zlibStream.usingISAL)
    }

    @Test("a damaged member fails at the byte and with the reason zlib names: zlib starts again where ISA-L doubts")
    func errorsAreZlibs() throws {
        let ws = try Workspace()
        // The first member's content is larger than a chunk: damage in the second is found
        // after content was handed on, and damage late in the first after a whole chunk.
        let first = try gzip(Self.lines(9_000, seed: 3))
        let second = try gzip(Self.lines(2_000, seed: 17))
        let whole = first + second
        var cases = 0, rereads = 0, errors = 0
        for position in stride(from: 0, to: whole.count, by: max(1, whole.count / 60)) {
            for flip in [UInt8(0xff), UInt8(1) << UInt8(position % 8)] {
                var bytes = whole
                bytes[position] ^= flip
                if flip == 0xff, position + 1 < bytes.count { bytes[position + 1] ^= 0xff }
                let path = try ws.write("damaged.log.gz", bytes)
                let (isal, isalContent, stream) = try Self.read(path, .isal)
                let (zlib, zlibContent, _) = try Self.read(path, .zlib)
                let same = isal == zlib && isalContent.elementsEqual(zlibContent)
                #expect(same, "byte \(position) ^ \(flip): ISA-L path said \(isal), zlib \(zlib)")
                cases += 1
                rereads += stream.zlibRestarts
                if isal.error != nil { errors += 1 }
            }
        }
        // Most damage is found by ISA-L first (the header's by zlib): the rereads were exercised.
        #expect(errors > cases / 2)
        #expect(rereads > cases / 2)
    }

    @Test("a header zlib refuses (a reserved flag bit) is refused with ISA-L too, which would not check it")
    func headersAreZlibs() throws {
        let ws = try Workspace()
        var second = try gzip(Self.lines(50, seed: 2))
        second[3] |= 0x20
        let first = try gzip(Self.lines(50, seed: 1))
        let path = try ws.write("flags.log.gz", first + second)
        let (isal, _, _) = try Self.read(path, .isal)
        let (zlib, _, _) = try Self.read(path, .zlib)
        #expect(isal.error == "at byte \(first.count + 4): corrupt gzip data in member 2 (unknown header flags set). The file is damaged; copy it again from the source (`gzip -t FILE` confirms).")
        #expect(isal == zlib)
    }

    @Test("after a restart zlib hands on exactly the content still to come, whatever the reads cut",
          arguments: [1, 2, 3, 5, 7, 4096, 65_537])
    func restartGoesOnWhereISALStopped(readSize: Int) throws {
        let ws = try Workspace()
        // More than a chunk of content in three members; small reads cut headers, data and
        // trailers anywhere (a header cut before its flags byte makes ISA-L hand the file to zlib).
        let parts = [Self.lines(9_000, seed: 3), Self.lines(10_000, seed: 4), Self.lines(40, seed: 5)]
        let path = try ws.write("three.log.gz", Array(try parts.map(gzip).joined()))
        let (isal, content, stream) = try Self.read(path, .isal, readSize: readSize)
        let (zlib, _, _) = try Self.read(path, .zlib)
        #expect(isal == zlib)
        let same = content.elementsEqual(parts.joined())
        #expect(same, "\(content.count) bytes against \(parts.map(\.count).reduce(0, +))")
        #expect(stream.zlibRestarts <= 1)
        if readSize < 4 { #expect(stream.zlibRestarts == 1, "a header cut before its flags byte: zlib took over") }
        if readSize >= 4096 { #expect(stream.usingISAL && stream.zlibRestarts == 0, "whole headers: ISA-L to the end") }
    }

    @Test("input that cannot be read twice (a pipe) is inflated by zlib alone, with the same content and errors")
    func pipesAreZlibs() throws {
        let ws = try Workspace()
        let good = try gzip(Self.lines(3_000, seed: 9))
        var damaged = good
        damaged[damaged.count / 2] ^= 0x10
        for bytes in [good, damaged] {
            let file = try ws.write("file.log.gz", bytes)
            let fifo = ws.dir.appendingPathComponent("pipe.log.gz").path
            try? FileManager.default.removeItem(atPath: fifo)
            #expect(mkfifo(fifo, 0o600) == 0)
            let writer = Process()
            writer.executableURL = URL(fileURLWithPath: "/bin/sh")
            writer.arguments = ["-c", "cat '\(file)' > '\(fifo)'"]
            try writer.run()
            let (piped, pipedContent, stream) = try Self.read(fifo, .isal)
            writer.waitUntilExit()
            #expect(!stream.usingISAL)
            let (fromFile, fileContent, _) = try Self.read(file, .isal)
            let same = piped == fromFile && pipedContent.elementsEqual(fileContent)
            #expect(same)
        }
    }
}
