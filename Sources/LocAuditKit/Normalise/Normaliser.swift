/// Turns the many spellings of a value in the logs into one per column.
///
/// Apple logs the same fact as `AuthorizedWhenInUse`, `kCLAuthorizationStatusAuthorizedWhenInUse`
/// or `4`; the store and the rules see `authorizedWhenInUse` only.
enum Normaliser {
    /// The value as plain text, for `when` conditions.
    static func plain(_ value: FieldValue) -> String {
        switch value {
        case .string(let s), .bare(let s): return s
        case .number(let d): return d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d)
        case .bool(let b): return b ? "1" : "0"
        case .redacted: return "<private>"
        case .masked(let h): return "<mask.hash: '\(h)'>"
        case .object: return "{…}"
        case .null: return ""
        }
    }

    /// The column's value, or nil when the message has none (or hides it).
    static func value(_ raw: FieldValue?, for column: EventColumn) -> ColumnValue? {
        if column == .locationPrivate {
            guard let raw else { return nil }
            if case .redacted = raw { return .integer(1) }
            if case .masked = raw { return .integer(1) }
            return .integer(0)
        }
        guard let raw else { return nil }
        switch raw {
        case .redacted, .masked, .null, .object: return nil
        default: break
        }
        let text = plain(raw)
        switch column {
        case .status: return status(text).map(ColumnValue.text)
        case .accuracy: return accuracy(text).map(ColumnValue.text)
        case .appState: return .text(lowerCamel(text))
        case .service: return service(text).map(ColumnValue.text)
        case .bundleId:
            // locationd's client keys are "i" + bundle id + ":".
            if text.hasPrefix("i"), text.hasSuffix(":"), text.count > 2 { return .text(String(text.dropFirst().dropLast())) }
            return text.isEmpty ? nil : .text(text)
        case .temporary, .provisional, .visible:
            return flag(text).map(ColumnValue.integer)
        case .appPid:
            return Int64(text).map(ColumnValue.integer)
        case .horizontalAccuracy, .latitude, .longitude:
            return Double(text).map(ColumnValue.real)
        case .value:
            if let i = Int64(text) { return .integer(i) }
            if let f = flag(text) { return .integer(f) }
            return .text(text)
        default:
            return text.isEmpty ? nil : .text(text)
        }
    }

    static func flag(_ text: String) -> Int64? {
        switch text.lowercased() {
        case "1", "true", "yes": return 1
        case "0", "false", "no": return 0
        default: return nil
        }
    }

    static func lowerCamel(_ text: String) -> String {
        guard let first = text.first else { return text }
        return first.lowercased() + text.dropFirst()
    }

    /// `CLAuthorizationStatus` in any of its spellings.
    static func status(_ text: String) -> String? {
        var t = text
        if t.hasPrefix("kCLAuthorizationStatus") { t = String(t.dropFirst("kCLAuthorizationStatus".count)) }
        switch t.lowercased() {
        case "0", "notdetermined": return "notDetermined"
        case "1", "restricted": return "restricted"
        case "2", "denied": return "denied"
        // Before iOS 8 "authorized" was the only grant, and it meant Always.
        case "3", "authorizedalways", "always", "authorized": return "authorizedAlways"
        case "4", "authorizedwheninuse", "wheninuse": return "authorizedWhenInUse"
        default: return t.isEmpty ? nil : lowerCamel(t)
        }
    }

    /// `CLAccuracyAuthorization`, or `limitsPrecision` (1 = reduced).
    static func accuracy(_ text: String) -> String? {
        switch text.lowercased() {
        case "0", "full", "fullaccuracy", "false": return "full"
        case "1", "reduced", "reducedaccuracy", "true": return "reduced"
        default: return text.isEmpty ? nil : lowerCamel(text)
        }
    }

    /// A location service, from a method name or locationd's launch reason.
    static func service(_ text: String) -> String? {
        let t = text.lowercased()
        if t.contains("significant") { return "significantChange" }
        if t.contains("visit") { return "visits" }
        if t.contains("region") && !t.contains("beacon") { return "region" }
        if t.contains("beacon") { return "beacon" }
        if t.contains("heading") { return "heading" }
        if t.contains("updatinglocation") || t == "standard" || t == "location" { return "standard" }
        return nil
    }
}
