/// One stored event of an app, typed for the replay: a row of `events` with a bundle id.
/// A class: every replay step and rule refers to it, and copies would cost more than the audit.
public final class AppEvent: Sendable {
    public let id: Int64
    public let kind: EventKind
    public let timeUS: Int64
    public let deviceId: String
    public let bundleId: String
    /// The app process the event is about; nil for system lines that name only the bundle.
    public let appPid: Int64?
    public let sourceId: Int64
    public let line: Int
    /// The status as written (kept when it is not a known `AuthorizationStatus`).
    public let statusText: String?
    public let accuracy: AccuracyAuthorization?
    public let temporary: Bool?
    public let provisional: Bool?
    public let reason: String?
    public let appState: AppState?
    public let service: LocationService?
    /// The method called, as written (any method the app logs; see `managerCall`).
    public let call: String?
    public let horizontalAccuracy: Double?
    public let locationPrivate: Bool
    /// The property set; nil for a property outside the vocabulary.
    public let property: ManagerProperty?
    public let value: Int64?
    /// The prompt's kind; kept as written (an open set).
    public let promptKind: PromptKind?
    /// The options the prompt offered, in the order the line gives them (those outside the
    /// vocabulary left out); empty for other kinds.
    public let promptOptions: [PromptChoice]
    /// The answer; nil for an answer outside the vocabulary.
    public let choice: PromptChoice?
    public let purposeKey: String?
    public let visible: Bool?
    public let intent: String?
    /// The line's identity on its device (`events.fingerprint`): with its UTC second, the same
    /// in every export of the line.
    public let fingerprint: Int64
    /// Of a termination: whether the user killed the app; nil when the line does not say.
    public let userKill: Bool?

    public let status: AuthorizationStatus?

    /// Every field as read (the store's `events` reader fills it, once a row: inlinable there);
    /// the vocabulary columns as stored, typed here.
    @inlinable package init(id: Int64, kind: EventKind, timeUS: Int64, deviceId: String, bundleId: String, appPid: Int64?,
                 sourceId: Int64, line: Int, statusText: String?, accuracy: AccuracyAuthorization?, temporary: Bool?,
                 provisional: Bool?, reason: String?, appState: AppState?, service: LocationService?, call: String?,
                 horizontalAccuracy: Double?, locationPrivate: Bool, property: String?, value: Int64?,
                 promptKind: String?, promptOptions: String?, choice: String?, purposeKey: String?, visible: Bool?,
                 intent: String?, fingerprint: Int64, userKill: Bool?, status: AuthorizationStatus?) {
        self.id = id
        self.kind = kind
        self.timeUS = timeUS
        self.deviceId = deviceId
        self.bundleId = bundleId
        self.appPid = appPid
        self.sourceId = sourceId
        self.line = line
        self.statusText = statusText
        self.accuracy = accuracy
        self.temporary = temporary
        self.provisional = provisional
        self.reason = reason
        self.appState = appState
        self.service = service
        self.call = call
        self.horizontalAccuracy = horizontalAccuracy
        self.locationPrivate = locationPrivate
        self.property = property.flatMap(ManagerProperty.init(rawValue:))
        self.value = value
        self.promptKind = promptKind.map(PromptKind.init(rawValue:))
        self.promptOptions = PromptChoice.options(promptOptions)
        self.choice = choice.flatMap(PromptChoice.init(rawValue:))
        self.purposeKey = purposeKey
        self.visible = visible
        self.intent = intent
        self.fingerprint = fingerprint
        self.userKill = userKill
        self.status = status
    }

    /// Why a status or accuracy changed, when the line says it in the vocabulary; nil for
    /// other kinds (a crash's reason is its text).
    public var changeReason: ChangeReason? {
        guard kind == .statusChange || kind == .accuracyChange else { return nil }
        return reason.flatMap(ChangeReason.init(rawValue:))
    }
    /// A launch's intent in the vocabulary; nil for another (kept as written in `intent`).
    public var launchIntent: LaunchIntent? { intent.flatMap(LaunchIntent.init(rawValue:)) }

    /// A location delivered to the app.
    public var isDelivery: Bool { kind == .location }
    /// Whether the call starts (true) or stops (false) a service; nil for other calls.
    public var startsService: Bool? {
        guard let call else { return nil }
        if let (_, starts) = managerCall?.startsService { return starts }
        if call.hasPrefix("start") || managerCall == .requestLocation { return true }
        if call.hasPrefix("stop") { return false }
        return nil
    }
    /// The service a call starts or stops: the line's `service`, else the one the call's name implies.
    public var callService: LocationService? { service ?? managerCall?.startsService?.0 }
    /// The call, if it is one the replay and the rules read.
    public var managerCall: ManagerCall? { call.flatMap(ManagerCall.init(rawValue:)) }
}

/// Which events an audit reads.
public struct EventScope: Sendable {
    /// nil: every device / every app.
    public let devices: Set<String>?
    public let bundleIds: Set<String>?
    public init(devices: Set<String>? = nil, bundleIds: Set<String>? = nil) {
        self.devices = devices
        self.bundleIds = bundleIds
    }
}
