import GRDB

/// One stored event of an app, typed for the replay: a row of `events` with a bundle id.
public struct AppEvent: Sendable {
    public var id: Int64
    public var kind: EventKind
    public var timeUS: Int64
    public var deviceId: String
    public var bundleId: String
    /// The app process the event is about; nil for system lines that name only the bundle.
    public var appPid: Int64?
    public var sourceId: Int64
    public var line: Int
    /// The status as written (kept when it is not a known `AuthorizationStatus`).
    public var statusText: String?
    public var accuracy: AccuracyAuthorization?
    public var temporary: Bool?
    public var provisional: Bool?
    public var reason: String?
    public var appState: AppState?
    public var service: LocationService?
    public var call: String?
    public var horizontalAccuracy: Double?
    public var locationPrivate: Bool
    public var property: String?
    public var value: Int64?
    public var promptKind: String?
    public var promptOptions: String?
    public var choice: String?
    public var purposeKey: String?
    public var visible: Bool?
    public var intent: String?

    public var status: AuthorizationStatus? { statusText.flatMap(AuthorizationStatus.init(rawValue:)) }

    /// The columns `load` reads, in order.
    static let selection = """
        id, kind, time_us, device_id, bundle_id, app_pid, source_id, line, status, accuracy, temporary, provisional,
        reason, app_state, service, call, horizontal_accuracy, location_private, property, value, prompt_kind,
        prompt_options, choice, purpose_key, visible, intent
        """

    init?(row: Row) {
        guard let kind = EventKind(rawValue: row[1]) else { return nil }
        id = row[0]
        self.kind = kind
        timeUS = row[2]
        deviceId = row[3]
        bundleId = row[4]
        appPid = row[5]
        sourceId = row[6]
        line = row[7]
        statusText = row[8]
        accuracy = (row[9] as String?).flatMap(AccuracyAuthorization.init(rawValue:))
        temporary = (row[10] as Int64?).map { $0 != 0 }
        provisional = (row[11] as Int64?).map { $0 != 0 }
        reason = row[12]
        appState = (row[13] as String?).flatMap(AppState.init(rawValue:))
        service = (row[14] as String?).flatMap(LocationService.init(rawValue:))
        call = row[15]
        horizontalAccuracy = row[16]
        locationPrivate = (row[17] as Int64?) == 1
        property = row[18]
        value = row[19] as Int64?
        promptKind = row[20]
        promptOptions = row[21]
        choice = row[22]
        purposeKey = row[23]
        visible = (row[24] as Int64?).map { $0 != 0 }
        intent = row[25]
    }

    /// A location delivered to the app.
    public var isDelivery: Bool { kind == .location }
    /// Whether the call starts (true) or stops (false) a service; nil for other calls.
    public var startsService: Bool? {
        guard let call else { return nil }
        if call.hasPrefix("start") || call == "requestLocation" { return true }
        if call.hasPrefix("stop") { return false }
        return nil
    }
}

/// Which events an audit reads.
public struct EventScope: Sendable {
    public var device: String?
    public var bundleId: String?
    public init(device: String? = nil, bundleId: String? = nil) {
        self.device = device
        self.bundleId = bundleId
    }

    /// Every event of the apps in scope, by device and app, in time order (then file order).
    func load(_ db: Database) throws -> [AppEvent] {
        var events: [AppEvent] = []
        let rows = try Row.fetchCursor(db, sql: """
            SELECT \(AppEvent.selection) FROM events
            WHERE bundle_id IS NOT NULL AND (?1 IS NULL OR device_id = ?1) AND (?2 IS NULL OR bundle_id = ?2)
            ORDER BY device_id, bundle_id, time_us, source_id, line
            """, arguments: [device, bundleId])
        while let row = try rows.next() {
            if let event = AppEvent(row: row) { events.append(event) }
        }
        return events
    }
}
