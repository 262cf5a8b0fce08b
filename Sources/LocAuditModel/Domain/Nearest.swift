/// "Did you mean": the names nearest a mistyped one, for a device, an app, a rule or a command.
public enum Nearest {
    /// Up to `limit` of `candidates` near `text`, nearest first: those that contain it or
    /// that it contains (ignoring case), then those within an edit distance of a quarter of its
    /// length (at least 2).
    public static func names(to text: String, among candidates: [String], limit: Int = 3) -> [String] {
        let wanted = Array(text.lowercased())
        guard !wanted.isEmpty else { return [] }
        let threshold = max(2, wanted.count / 4)
        var scored: [(name: String, score: Int)] = []
        for name in Set(candidates) {
            let other = Array(name.lowercased())
            if other.count >= 2, wanted.count >= 2, (name.lowercased().contains(text.lowercased()) || text.lowercased().contains(name.lowercased())) {
                scored.append((name, 0))
            } else if abs(other.count - wanted.count) <= threshold {
                let d = distance(wanted, other)
                if d <= threshold { scored.append((name, d)) }
            }
        }
        return scored.sorted { ($0.score, $0.name) < ($1.score, $1.name) }.prefix(limit).map(\.name)
    }

    /// Levenshtein distance (insertions, deletions, substitutions), in one row of memory.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var row = Array(0...b.count)
        for i in 1...a.count {
            var previous = row[0]
            row[0] = i
            for j in 1...b.count {
                let current = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = current
            }
        }
        return row[b.count]
    }

    /// ` (did you mean 'a' or 'b'?)`, or nothing.
    public static func suggestion(_ names: [String]) -> String {
        guard !names.isEmpty else { return "" }
        let quoted = names.map { "'\($0)'" }
        let list = quoted.count == 1 ? quoted[0] : quoted.dropLast().joined(separator: ", ") + " or " + quoted.last!
        return " (did you mean \(list)?)"
    }
}
