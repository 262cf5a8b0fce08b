/// One stored event of an app, typed for the replay: a row of `events` with a bundle id.
/// A class: every replay step and rule refers to it, and copies would cost more than the audit.
///
/// Most events are deliveries, which fill none of the fields after `fingerprint` here: those
/// live in an object of their own (`Rare`), nil when all are empty, so that a delivery costs
/// less memory (peak RSS 18% lower at 1 GiB: docs/performance.md, "Audit in bulk"). They read as before.
///
/// The stored fields are declared in the order that packs them (Swift lays a class out in
/// declaration order): the 8-byte ones, then the optional pid (9 bytes) with the two 1-byte
/// fields in its tail, then the optional accuracy; the device and app, the same for every
/// event of a replay, are one shared `Owner`. 97 bytes an object instead of 136 (a 112-byte
/// allocation instead of 144): docs/performance.md, "Audit memory (issue 27)".
public final class AppEvent: Sendable {
    public let id: Int64
    public let timeUS: Int64
    /// The device and app, shared by the events of one read.
    @usableFromInline let owner: Owner
    public let sourceId: Int64
    public let line: Int
    /// The line's identity on its device (`events.fingerprint`): with its UTC second, the same
    /// in every export of the line.
    public let fingerprint: Int64
    /// The other fields; nil when every one is empty.
    @usableFromInline let rare: Rare?
    /// The app process the event is about; nil for system lines that name only the bundle.
    public let appPid: Int64?
    public let kind: EventKind
    public let locationPrivate: Bool
    public let horizontalAccuracy: Double?

    @inlinable public var deviceId: String { owner.deviceId }
    @inlinable public var bundleId: String { owner.bundleId }

    /// The device and app of events: one object for all the events of one app on one device
    /// that a read makes, not two strings in each.
    public final class Owner: Sendable {
        @usableFromInline let deviceId: String
        @usableFromInline let bundleId: String
        package init(deviceId: String, bundleId: String) {
            self.deviceId = deviceId
            self.bundleId = bundleId
        }
    }

    /// The fields a delivery leaves empty.
    @usableFromInline package final class Rare: Sendable {
        @usableFromInline let statusText: String?
        @usableFromInline let accuracy: AccuracyAuthorization?
        @usableFromInline let temporary: Bool?
        @usableFromInline let provisional: Bool?
        @usableFromInline let reason: String?
        @usableFromInline let appState: AppState?
        @usableFromInline let service: LocationService?
        @usableFromInline let call: String?
        @usableFromInline let property: ManagerProperty?
        @usableFromInline let value: Int64?
        @usableFromInline let promptKind: PromptKind?
        @usableFromInline let promptOptions: [PromptChoice]
        @usableFromInline let choice: PromptChoice?
        @usableFromInline let purposeKey: String?
        @usableFromInline let visible: Bool?
        @usableFromInline let intent: String?
        @usableFromInline let userKill: Bool?
        @usableFromInline let status: AuthorizationStatus?

        /// The fields as stored, the vocabulary columns typed here; nil when every one is
        /// empty (or, typed, outside the vocabulary).
        @inlinable package init?(statusText: String?, accuracy: AccuracyAuthorization?, temporary: Bool?, provisional: Bool?,
                                 reason: String?, appState: AppState?, service: LocationService?, call: String?,
                                 property: String?, value: Int64?, promptKind: String?, promptOptions: String?,
                                 choice: String?, purposeKey: String?, visible: Bool?, intent: String?, userKill: Bool?) {
            let property = property.flatMap(ManagerProperty.init(rawValue:))
            let promptKind = promptKind.map(PromptKind.init(rawValue:))
            let options = promptOptions == nil ? [] : PromptChoice.options(promptOptions)
            let choice = choice.flatMap(PromptChoice.init(rawValue:))
            if statusText == nil, accuracy == nil, temporary == nil, provisional == nil, reason == nil, appState == nil,
               service == nil, call == nil, property == nil, value == nil, promptKind == nil, options.isEmpty, choice == nil,
               purposeKey == nil, visible == nil, intent == nil, userKill == nil {
                return nil
            }
            self.statusText = statusText
            self.accuracy = accuracy
            self.temporary = temporary
            self.provisional = provisional
            self.reason = reason
            self.appState = appState
            self.service = service
            self.call = call
            self.property = property
            self.value = value
            self.promptKind = promptKind
            self.promptOptions = options
            self.choice = choice
            self.purposeKey = purposeKey
            self.visible = visible
            self.intent = intent
            self.userKill = userKill
            self.status = statusText.flatMap(AuthorizationStatus.init(rawValue:))
        }
    }

    /// The status as written (kept when it is not a known `AuthorizationStatus`).
    @inlinable public var statusText: String? { rare?.statusText }
    @inlinable public var accuracy: AccuracyAuthorization? { rare?.accuracy }
    @inlinable public var temporary: Bool? { rare?.temporary }
    @inlinable public var provisional: Bool? { rare?.provisional }
    @inlinable public var reason: String? { rare?.reason }
    @inlinable public var appState: AppState? { rare?.appState }
    @inlinable public var service: LocationService? { rare?.service }
    /// The method called, as written (any method the app logs; see `managerCall`).
    @inlinable public var call: String? { rare?.call }
    /// The property set; nil for a property outside the vocabulary.
    @inlinable public var property: ManagerProperty? { rare?.property }
    @inlinable public var value: Int64? { rare?.value }
    /// The prompt's kind; kept as written (an open set).
    @inlinable public var promptKind: PromptKind? { rare?.promptKind }
    /// The options the prompt offered, in the order the line gives them (those outside the
    /// vocabulary left out); empty for other kinds.
    @inlinable public var promptOptions: [PromptChoice] { rare?.promptOptions ?? [] }
    /// The answer; nil for an answer outside the vocabulary.
    @inlinable public var choice: PromptChoice? { rare?.choice }
    @inlinable public var purposeKey: String? { rare?.purposeKey }
    @inlinable public var visible: Bool? { rare?.visible }
    @inlinable public var intent: String? { rare?.intent }
    /// Of a termination: whether the user killed the app; nil when the line does not say.
    @inlinable public var userKill: Bool? { rare?.userKill }
    @inlinable public var status: AuthorizationStatus? { rare?.status }

    /// The fields every event fills, and the others (`Rare`, nil for most deliveries): the
    /// store's `events` reader makes both, once a row (inlinable there); the device and app are
    /// an `Owner` the caller shares among the events it reads.
    @inlinable package init(id: Int64, kind: EventKind, timeUS: Int64, owner: Owner, appPid: Int64?, sourceId: Int64,
                            line: Int, fingerprint: Int64, horizontalAccuracy: Double?, locationPrivate: Bool, rare: Rare?) {
        self.id = id
        self.kind = kind
        self.timeUS = timeUS
        self.owner = owner
        self.appPid = appPid
        self.sourceId = sourceId
        self.line = line
        self.fingerprint = fingerprint
        self.horizontalAccuracy = horizontalAccuracy
        self.locationPrivate = locationPrivate
        self.rare = rare
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
