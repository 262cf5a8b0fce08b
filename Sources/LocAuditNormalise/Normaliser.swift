import LocAuditModel

/// Turns the many spellings of a value in the logs into one per column.
///
/// Apple logs the same fact as `AuthorizedWhenInUse`, `kCLAuthorizationStatusAuthorizedWhenInUse`
/// or `4`; the store and the rules see `authorizedWhenInUse` only.
enum Normaliser {
    /// The value as plain text, for `when` conditions.
    static func plain(_ value: FieldValue) -> String {
        if let raw = decodeFailure(value) { return plain(raw) }
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

    /// The value a pattern's named decoder reads (`decode` in the catalog), or nil when the
    /// message has none, hides it, or it means nothing certain.
    static func value(_ raw: FieldValue?, decodedBy decoder: ValueDecoder) -> ColumnValue? {
        guard var raw else { return nil }
        if let value = decodeFailure(raw) { raw = value }
        switch raw {
        case .redacted, .masked, .null, .object: return nil
        default: return decoder.decode(plain(raw))
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
        guard var raw else { return nil }
        if let value = decodeFailure(raw) { raw = value }
        switch raw {
        case .redacted, .masked, .null, .object: return nil
        case .number(let d):
            // A number for a numeric column, without the trip through text that `plain` and
            // `Double(_:)`/`Int64(_:)` make (three a location event, printed and read again:
            // the same value, as Swift prints the shortest text that reads back as `d`).
            // A whole number under 1e15 prints as an integer: -0.0 reads back as 0.0.
            let whole = d == d.rounded() && abs(d) < 1e15
            switch column {
            case .horizontalAccuracy, .latitude, .longitude: return .real(whole ? Double(Int64(d)) : d)
            case .appPid where whole: return .integer(Int64(d))
            default: break
            }
        default: break
        }
        let text = plain(raw)
        switch column {
        case .status: return status(text).map(ColumnValue.text)
        case .accuracy: return accuracy(text).map(ColumnValue.text)
        case .appState: return appState(text).map(ColumnValue.text)
        case .service: return service(text).map(ColumnValue.text)
        case .bundleId: return bundle(text).map(ColumnValue.text)
        case .promptKind: return promptKind(text).map(ColumnValue.text)
        case .temporary, .provisional, .visible, .userKill:
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

    /// `{"type":"decode failure","raw value":0,"expected type":"Generic"}`: CoreLocation could
    /// not name the value, and logged it raw. The raw value is the value.
    static func decodeFailure(_ value: FieldValue) -> FieldValue? {
        guard case .object(let object) = value else { return nil }
        func key(_ name: String) -> FieldValue? { object[name] ?? object.first { $0.key.lowercased() == name }?.value }
        guard case .string(let type)? = key("type"), type == "decode failure" else { return nil }
        return key("raw value")
    }

    /// The bundle id in any of locationd's client-key spellings: `icom.example.app:`
    /// (iOS), `[mobile]com.example.app` (the user in brackets), `UUID:com.example.app` and
    /// `[UUID]com.example.app` (macOS, the user's UUID), or the bare bundle id.
    static func bundle(_ text: String) -> String? {
        var t = Substring(text)
        if t.first == "[", let close = t.firstIndex(of: "]") {
            t = t[t.index(after: close)...]
        } else if t.hasPrefix("i"), t.hasSuffix(":"), t.count > 2 {
            t = t.dropFirst().dropLast()
        } else if let colon = t.firstIndex(of: ":"), isUUID(t[..<colon]) {
            t = t[t.index(after: colon)...]
        }
        return t.isEmpty ? nil : String(t)
    }

    private static func isUUID(_ s: Substring) -> Bool {
        s.count == 36 && s.enumerated().allSatisfy { i, c in [8, 13, 18, 23].contains(i) ? c == "-" : c.isHexDigit }
    }

    /// An app's run state in every spelling of the logs, or nil when the spelling says
    /// nothing certain: locationd's notification names (`ForegroundRunning`, ...), the legacy
    /// SpringBoard / BackBoard state numbers (`BKSApplicationState`: 1 terminated,
    /// 2 suspended, 4 background running, 8 foreground running), and RunningBoard's
    /// `running-active-Visible` strings. RunningBoard's `none-NotVisible` (no process, also
    /// before a launch) and the other numbers (0 unknown, 16, 32) are not mapped: a wrong
    /// termination would make deliveries look posthumous.
    static func appState(_ text: String) -> String? {
        switch text {
        case "8": return AppState.foregroundRunning.rawValue
        case "4": return AppState.backgroundRunning.rawValue
        case "2": return AppState.backgroundTaskSuspended.rawValue
        case "1": return AppState.terminated.rawValue
        case "running-active-Visible": return AppState.foregroundRunning.rawValue
        case "running-active-NotVisible": return AppState.backgroundRunning.rawValue
        case "running-suspended-NotVisible": return AppState.backgroundTaskSuspended.rawValue
        default:
            if text.isEmpty || text.first!.isNumber || TextSearch.contains(text, "-") { return nil }
            return lowerCamel(text)
        }
    }

    /// The kind of an authorization prompt. locationd writes its request type as a number
    /// (`Showing #AuthPrompt`, `"requestType":5`) or as an enum name
    /// (`CLClientManager_Type::AuthorizationRequestTypeLegacyAlways`); the name is kept
    /// without its prefix (`LegacyAlways`). Only 5 is known to be `LegacyAlways` (both
    /// spellings of one request in a real log); other numbers are kept as written, since
    /// their names are read from the daemon's code, not seen in a log.
    static func promptKind(_ text: String) -> String? {
        let prefix = "CLClientManager_Type::AuthorizationRequestType"
        if text.hasPrefix(prefix) { return text.count > prefix.count ? String(text.dropFirst(prefix.count)) : nil }
        if text == "5" { return PromptKind.legacyAlways.rawValue }
        return text.isEmpty ? nil : text
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
        case "0", "notdetermined": return AuthorizationStatus.notDetermined.rawValue
        case "1", "restricted": return AuthorizationStatus.restricted.rawValue
        case "2", "denied": return AuthorizationStatus.denied.rawValue
        // Before iOS 8 "authorized" was the only grant, and it meant Always.
        case "3", "authorizedalways", "always", "authorized": return AuthorizationStatus.authorizedAlways.rawValue
        case "4", "authorizedwheninuse", "wheninuse": return AuthorizationStatus.authorizedWhenInUse.rawValue
        default: return t.isEmpty ? nil : lowerCamel(t)
        }
    }

    /// `CLAccuracyAuthorization`, or `limitsPrecision` (1 = reduced).
    static func accuracy(_ text: String) -> String? {
        switch text.lowercased() {
        case "0", "full", "fullaccuracy", "false": return AccuracyAuthorization.full.rawValue
        case "1", "reduced", "reducedaccuracy", "true": return AccuracyAuthorization.reduced.rawValue
        default: return text.isEmpty ? nil : lowerCamel(text)
        }
    }

    /// A location service, from a method name or locationd's launch reason.
    static func service(_ text: String) -> String? { locationService(text)?.rawValue }

    private static func locationService(_ text: String) -> LocationService? {
        let t = text.lowercased()
        if TextSearch.contains(t, "significant") { return .significantChange }
        if TextSearch.contains(t, "visit") { return .visits }
        if TextSearch.contains(t, "region") && !TextSearch.contains(t, "beacon") { return .region }
        if TextSearch.contains(t, "beacon") { return .beacon }
        if TextSearch.contains(t, "heading") { return .heading }
        if t == "monitor" || TextSearch.contains(t, "conditionformonitoring") { return .monitor }
        if TextSearch.contains(t, "updatinglocation") || t == "standard" || t == "location" { return .standard }
        return nil
    }
}
