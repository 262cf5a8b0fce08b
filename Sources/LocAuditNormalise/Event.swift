import LocAuditModel

/// A typed column of the `events` table that a catalog pattern can fill.
public enum EventColumn: String, Codable, CaseIterable, Sendable {
    case bundleId = "bundle_id"
    case appPid = "app_pid"
    case status
    case accuracy
    case temporary
    case provisional
    case reason
    case appState = "app_state"
    case service
    case call
    case horizontalAccuracy = "horizontal_accuracy"
    case latitude
    case longitude
    case locationPrivate = "location_private"
    case property
    case value
    case promptKind = "prompt_kind"
    case promptOptions = "prompt_options"
    case choice
    case purposeKey = "purpose_key"
    case visible
    case intent
    /// Of a termination: the user killed the app (1) or it died otherwise (0).
    case userKill = "user_kill"

    /// The column's bit in `Event`'s set of columns present.
    var bit: UInt32 {
        switch self {
        case .bundleId: 1 << 0
        case .appPid: 1 << 1
        case .status: 1 << 2
        case .accuracy: 1 << 3
        case .temporary: 1 << 4
        case .provisional: 1 << 5
        case .reason: 1 << 6
        case .appState: 1 << 7
        case .service: 1 << 8
        case .call: 1 << 9
        case .horizontalAccuracy: 1 << 10
        case .latitude: 1 << 11
        case .longitude: 1 << 12
        case .locationPrivate: 1 << 13
        case .property: 1 << 14
        case .value: 1 << 15
        case .promptKind: 1 << 16
        case .promptOptions: 1 << 17
        case .choice: 1 << 18
        case .purposeKey: 1 << 19
        case .visible: 1 << 20
        case .intent: 1 << 21
        case .userKill: 1 << 22
        }
    }
}

/// A typed value of one event column.
public enum ColumnValue: Equatable, Sendable, CustomStringConvertible {
    case text(String)
    case integer(Int64)
    case real(Double)

    public var description: String {
        switch self {
        case .text(let s): return s
        case .integer(let i): return String(i)
        case .real(let d): return d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d)
        }
    }
}

/// One recognised message, normalised: what goes into a row of `events`.
public struct Event: Sendable {
    public var kind: EventKind
    /// Catalog pattern that recognised it.
    public var pattern: String
    /// Whether the app logged it itself (its pid is the line's) or a daemon did.
    public var scope: PatternScope = .system
    /// The columns set, in the order they were set: an event has a handful, and a short
    /// array beats hashing on the ingest loop.
    public private(set) var columns: [(EventColumn, ColumnValue)] = []
    /// The bits of the columns in `columns`: the store asks for every column of every event,
    /// and most are not there.
    private var present: UInt32 = 0
    /// A number that is not finite (`1e400` reads as infinity, `nan`) was given to a column
    /// and left out: the store never holds one (the ingest counts the note `non-finite-number`).
    private(set) var droppedNonFinite = false

    public init(kind: EventKind, pattern: String) {
        self.kind = kind
        self.pattern = pattern
    }

    /// Room for `count` columns at once (an append a column grew the array from empty:
    /// three or four allocations an event).
    mutating func reserveColumns(_ count: Int) { columns.reserveCapacity(count) }

    /// Whether the event has a value for `column` (one test of a bit).
    package func has(_ column: EventColumn) -> Bool { present & column.bit != 0 }

    public subscript(_ column: EventColumn) -> ColumnValue? {
        get {
            guard present & column.bit != 0 else { return nil }
            // By index: `first(where:)` copied every column it passed (a retain and a release
            // of each text), and this runs for every column the writer binds.
            for i in columns.indices where columns[i].0 == column { return columns[i].1 }
            return nil
        }
        set {
            var newValue = newValue
            if case .real(let d)? = newValue, !d.isFinite {
                droppedNonFinite = true
                newValue = nil
            }
            if present & column.bit != 0, let i = columns.firstIndex(where: { $0.0 == column }) {
                if let newValue { columns[i].1 = newValue } else { columns.remove(at: i); present &= ~column.bit }
            } else if let newValue {
                columns.append((column, newValue))
                present |= column.bit
            }
        }
    }
}
