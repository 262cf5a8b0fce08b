/// The identity of a line a device printed, the same in every export of it.
///
/// It leaves the time out: exports differ in precision (idevicesyslog prints whole seconds,
/// `log show` microseconds) and in zone knowledge (a zone-less export is re-timed when a
/// zoned one of the same device and period arrives). The store keys a line by its UTC
/// second and this fingerprint (`events_by_line`), so the same line from two exports is one
/// event. Identical lines in one second are told apart by their ordinal among them.
package enum LineFingerprint {
    /// The line's part: process, pid, message and its ordinal among identical lines in its second.
    package static func of(process: String?, pid: Int64?, message: String, ordinal: Int) -> Int64 {
        var h = fnv1a(utf8Of: process ?? "", seed: UInt64(bitPattern: pid ?? -1) &* 0x9E37_79B9_7F4A_7C15)
        h = fnv1a(CollectionOfOne(0), seed: h)
        h = fnv1a(utf8Of: message, seed: h)
        return Int64(bitPattern: ordinal == 0 ? h : fnv1a(String(ordinal).utf8, seed: h))
    }

    /// As stored: the line's on this device.
    package static func stored(_ line: Int64, device: String) -> Int64 {
        // The bytes read from the string's storage: the generic hash over its `utf8` view
        // walked it a byte at a time (1,300 instructions an event, on the writer's thread).
        Int64(bitPattern: fnv1a(utf8Of: device, seed: UInt64(bitPattern: line)))
    }

    /// The UTC second a line is keyed by (SQLite's `time_us / 1000000`: truncated toward zero).
    package static func second(_ timeUS: Int64) -> Int64 { timeUS / 1_000_000 }
}
