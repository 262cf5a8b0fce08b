import Foundation
import LocAuditStore
import PostgresNIO

/// Rows in the text format of `COPY … FROM STDIN` (PostgreSQL's manual, COPY, "Text Format"):
/// a row a line, its columns separated by a tab, NULL as `\N`. In a value, a backslash, tab,
/// newline and carriage return are escaped by a backslash (so no value reads as `\N` or as
/// the end marker `\.`); every other byte is itself. PostgreSQL's text holds no NUL: one is
/// sent as U+FFFD, and bytes that are not UTF-8 as U+FFFD each, as Swift's `String` reads them.
/// A double is written as Swift prints it, the shortest digits that read back to the same bits
/// (PostgreSQL's `float8in` rounds correctly), so -0.0 stays negative and nothing is lost;
/// infinities as `Infinity` and `-Infinity`.
struct CopyText: RawRowSink {
    private(set) var buffer: ByteBuffer
    /// Whether the next value is its row's first (no tab before it).
    private var rowStart = true

    init(capacity: Int = 1 << 16) {
        buffer = ByteBufferAllocator().buffer(capacity: capacity)
    }

    /// The rows written so far, handed over; the encoder starts again empty (its storage reused
    /// when the caller let go of the last one).
    mutating func take() -> ByteBuffer {
        let out = buffer
        buffer.clear()
        return out
    }

    mutating func endRow() {
        buffer.writeInteger(UInt8(ascii: "\n"))
        rowStart = true
    }

    mutating func null() {
        separate()
        buffer.writeStaticString("\\N")
    }

    mutating func int(_ value: Int64) {
        separate()
        // Digits from the right, in a stack buffer: no allocation.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var n = value.magnitude, i = digits.count
            repeat {
                i -= 1
                digits[i] = UInt8(ascii: "0") + UInt8(n % 10)
                n /= 10
            } while n > 0
            if value < 0 { buffer.writeInteger(UInt8(ascii: "-")) }
            buffer.writeBytes(UnsafeRawBufferPointer(UnsafeMutableBufferPointer(rebasing: digits[i...])))
        }
    }

    mutating func double(_ value: Double) {
        separate()
        if value.isNaN {
            buffer.writeStaticString("NaN")
        } else if value.isInfinite {
            buffer.writeStaticString(value < 0 ? "-Infinity" : "Infinity")
        } else {
            buffer.writeString(value.description)
        }
    }

    mutating func text(_ value: String) {
        separate()
        var value = value
        value.withUTF8 { escape($0) }
    }

    /// Text as SQLite holds it: any bytes.
    mutating func text(_ bytes: UnsafeBufferPointer<UInt8>) {
        separate()
        if bytes.contains(where: { $0 >= 0x80 }) {
            // Repaired: what is not UTF-8 becomes U+FFFD.
            var repaired = String(decoding: bytes, as: UTF8.self)
            repaired.withUTF8 { escape($0) }
        } else {
            escape(bytes)
        }
    }

    private mutating func separate() {
        if rowStart { rowStart = false } else { buffer.writeInteger(UInt8(ascii: "\t")) }
    }

    /// Runs of plain bytes copied whole; the five that need it replaced.
    private mutating func escape(_ bytes: UnsafeBufferPointer<UInt8>) {
        var start = 0
        for i in bytes.indices {
            let replacement: StaticString
            switch bytes[i] {
            case UInt8(ascii: "\\"): replacement = "\\\\"
            case UInt8(ascii: "\t"): replacement = "\\t"
            case UInt8(ascii: "\n"): replacement = "\\n"
            case UInt8(ascii: "\r"): replacement = "\\r"
            case 0: replacement = "\u{FFFD}"
            default: continue
            }
            buffer.writeBytes(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[start..<i])))
            buffer.writeStaticString(replacement)
            start = i + 1
        }
        buffer.writeBytes(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[start...])))
    }
}

extension Central {
    /// `COPY table (columns) FROM STDIN` in the text format, the rows coming from `rows`, which
    /// hands each `CopyText` buffer it fills to `send`.
    package func copy(into table: String, columns: [String],
                      _ rows: (_ send: (ByteBuffer) async throws -> Void) async throws -> Void) async throws {
        do {
            try await connection.copyFrom(table: table, columns: columns, logger: Self.logger) { writer in
                try await rows { try await writer.write($0) }
            }
        } catch {
            throw CentralError.from(error, url: url)
        }
    }
}
