#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// Finds `needle` in `haystack` (memchr for the first byte, then memcmp): the line
/// filter's only search, so it stays allocation-free.
@inlinable @inline(__always)
package func memmem(_ haystack: UnsafeRawPointer?, _ haystackCount: Int, _ needle: UnsafeRawPointer?, _ needleCount: Int) -> UnsafeRawPointer? {
    guard let haystack, let needle, needleCount > 0, haystackCount >= needleCount else { return nil }
    let first = Int32(needle.load(as: UInt8.self))
    var p = haystack
    var left = haystackCount - needleCount + 1
    while left > 0, let hit = memchr(p, first, left) {
        let hitRaw = UnsafeRawPointer(hit)
        if memcmp(hitRaw, needle, needleCount) == 0 { return hitRaw }
        let advance = hitRaw - p + 1
        p = hitRaw + 1
        left -= advance
    }
    return nil
}
