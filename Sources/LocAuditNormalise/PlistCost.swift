/// What a property list costs once read, bounded before Foundation reads it.
///
/// A binary property list (`bplist00`) names its objects by reference, so one object may be
/// the element of many: `c = [c] * 10`, nine levels deep, is 194 bytes on disk and a billion
/// objects once Foundation on Linux turns it into Swift values (which copies every shared
/// object where it is referenced). `check` walks the object graph as that tree, without
/// building it, and stops at the first bound passed: the objects visited, the bytes of
/// strings and data produced, and the nesting. An XML property list names no object twice
/// (its entities are refused by the parser), so it costs about its size: only binary ones
/// are walked. A list too damaged to walk passes: the parser then says what is wrong.
package enum PlistCost {
    /// Objects (each dictionary, array, key and value, counted every time it is referenced).
    package static let maxObjects = 100_000
    /// Bytes of strings and data (a UTF-16 string counts two a character).
    package static let maxBytes = 16 << 20
    /// Containers within containers.
    package static let maxDepth = 128

    /// Why a property list is refused before it is read.
    package struct Refusal: Error, CustomStringConvertible, Sendable, Equatable {
        package var reason: String
        package var description: String {
            "refused: \(reason). No Info.plist is like this (a damaged file, or one made to exhaust memory); nothing of it was stored. Pass the app's own Info.plist, checked with `plutil -lint` (macOS) or `python3 -m plistlib`."
        }
    }

    /// Throws a `Refusal` when reading `bytes` would pass a bound.
    package static func check(_ bytes: [UInt8]) throws {
        guard let plist = Binary(bytes) else { return }
        var walk = Walk(plist: plist)
        try walk.visit(plist.top, depth: 1)
    }

    /// The offset table and trailer of a binary property list.
    private struct Binary {
        let b: [UInt8]
        let offsetSize: Int, refSize: Int, count: Int, top: Int, table: Int, trailer: Int

        init?(_ b: [UInt8]) {
            guard b.count >= 40, b.starts(with: Array("bplist0".utf8)) else { return nil }
            self.b = b
            trailer = b.count - 32
            offsetSize = Int(b[trailer + 6])
            refSize = Int(b[trailer + 7])
            guard (1...8).contains(offsetSize), (1...8).contains(refSize),
                  let count = Binary.number(b, trailer + 8, 8), let top = Binary.number(b, trailer + 16, 8),
                  let table = Binary.number(b, trailer + 24, 8),
                  table >= 8, table <= trailer, count <= (trailer - table) / offsetSize, top < count else { return nil }
            self.count = count
            self.top = top
            self.table = table
        }

        /// A big-endian unsigned number of `size` bytes at `at`; nil past the end or past Int.
        static func number(_ b: [UInt8], _ at: Int, _ size: Int) -> Int? {
            guard at >= 0, size >= 1, at <= b.count - size, size <= 7 || b[at] < 0x80 else { return nil }
            return b[at..<(at + size)].reduce(0) { $0 << 8 | Int($1) }
        }

        /// Where object `index` starts; nil when the table points outside the objects.
        func offset(_ index: Int) -> Int? {
            guard index >= 0, index < count, let o = Binary.number(b, table + index * offsetSize, offsetSize),
                  o >= 8, o < table else { return nil }
            return o
        }

        /// The length an object's marker gives (its low nibble, or the integer after it when 0xF),
        /// and where its content starts.
        func length(at o: Int) -> (count: Int, start: Int)? {
            let low = Int(b[o] & 0x0F)
            if low != 0x0F { return (low, o + 1) }
            guard o + 1 < b.count, b[o + 1] >> 4 == 0x1 else { return nil }
            let size = 1 << Int(b[o + 1] & 0x0F)
            guard size <= 8, let n = Binary.number(b, o + 2, size) else { return nil }
            return (n, o + 2 + size)
        }

        /// Reference `i` of a container whose references start at `start`.
        func reference(_ start: Int, _ i: Int) -> Int? { Binary.number(b, start + i * refSize, refSize) }
    }

    private struct Walk {
        let plist: Binary
        var objects = 0
        var bytes = 0
        /// The containers being walked, to refuse a list that holds itself.
        var open: Set<Int> = []

        mutating func visit(_ index: Int, depth: Int) throws {
            objects += 1
            guard objects <= PlistCost.maxObjects else {
                throw Refusal(reason: "its objects, shared by reference, would expand to over \(PlistCost.maxObjects.formatted) objects")
            }
            guard depth <= PlistCost.maxDepth else {
                throw Refusal(reason: "it nests containers over \(PlistCost.maxDepth) levels deep")
            }
            guard let o = plist.offset(index) else { return }
            let kind = plist.b[o] >> 4
            switch kind {
            case 0x4, 0x5, 0x6, 0x7: // data, ASCII, UTF-16, UTF-8 strings
                guard let length = plist.length(at: o) else { return }
                let n = min(length.count, Int.max / 4)
                bytes += kind == 0x6 ? n * 2 : n
                guard bytes <= PlistCost.maxBytes else {
                    throw Refusal(reason: "its strings and data, shared by reference, would expand to over \((PlistCost.maxBytes >> 20).formatted) MB")
                }
            case 0xA, 0xB, 0xC, 0xD: // array, ordered set, set, dictionary (keys, then values)
                guard let length = plist.length(at: o) else { return }
                if open.contains(index) { throw Refusal(reason: "it holds itself (a container is its own element)") }
                // A dictionary's keys, then its values; a count past the file ends at the first bad reference.
                let references = kind == 0xD ? min(length.count, Int.max / 2) * 2 : length.count
                open.insert(index)
                defer { open.remove(index) }
                for i in 0..<references {
                    guard let child = plist.reference(length.start, i) else { return }
                    try visit(child, depth: depth + 1)
                }
            default:
                break
            }
        }
    }
}

private extension Int {
    /// 100000 as "100,000".
    var formatted: String {
        let digits = Array(String(self))
        return String(digits.enumerated().flatMap { i, d in (i > 0 && (digits.count - i) % 3 == 0) ? [",", d] : [d] })
    }
}
