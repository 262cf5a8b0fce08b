import LocAuditModel

/// A fact of the replay and how the replay knows it (docs/rules-model.md "Evidence: what the
/// audit may assume"): observed (with the line that said it), implied (with the rule of the
/// model that implies it), or unknown. Unknown is never a default: a rule that needs it is
/// not evaluable, and a rule that flags a step cites the observed line (`event`). A `Known` is
/// never nil (`known == nil` is always false): ask its `value`.
public struct Known<Value: Sendable & Codable & Equatable>: Sendable, Equatable {
    /// The value; nil while unknown.
    public private(set) var value: Value?
    /// How the value is known; nil while unknown.
    public private(set) var basis: Basis?

    public static var unknown: Known { Known(value: nil, basis: nil) }

    /// `value` as `basis` says it; unknown when `value` is nil.
    public init(_ value: Value?, _ basis: Basis) {
        self.value = value
        self.basis = value == nil ? nil : basis
    }

    private init(value: Value?, basis: Basis?) {
        self.value = value
        self.basis = basis
    }

    /// The line that said it; nil when the value is implied or unknown.
    public var event: Int64? {
        if case .observed(let id)? = basis { return id }
        return nil
    }
}

/// How a fact is known.
public enum Basis: Sendable, Equatable, Codable {
    /// A line of the log said it: its event id.
    case observed(Int64)
    /// The model implies it.
    case implied(Implication)
}

/// The rules of the model that imply a fact no line said (docs/rules-model.md "Evidence").
public enum Implication: String, Sendable, Codable {
    /// The session's launch line is in the log: nothing runs, nothing is paused, no blue bar
    /// (on a device whose logs carry indicator lines), and the app starts where it launched.
    case launch
    /// The launch line and the app's own CoreLocation lines are in the log: the manager's
    /// flags are at their documented defaults until a line sets them.
    case managerDefaults
    /// A behaviour of the device's iOS version (no Allow Once or provisional Always before
    /// iOS 13; background delivery without a flag before iOS 9).
    case iosVersion
    /// The app's Info.plist in force for the session.
    case infoPlist
    /// A first install or an uninstall: the app is notDetermined.
    case notDetermined
    /// A temporary grant lapsed when the app stopped being in use, or at a new process.
    case lapse
    /// The process ended: nothing shows for it.
    case termination
    /// What the replay knew where a prune cut the app's lines (a checkpoint written before
    /// facts carried their basis).
    case checkpoint
}

/// A checkpoint stores a fact as its value and how it is known (`{}` while unknown); one written
/// before facts were typed holds the bare value, which reads as implied by the checkpoint.
extension Known: Codable {
    private enum CodingKeys: String, CodingKey { case value, basis }

    public init(from decoder: any Decoder) throws {
        if let c = try? decoder.container(keyedBy: CodingKeys.self) {
            let value = try c.decodeIfPresent(Value.self, forKey: .value)
            let basis = try c.decodeIfPresent(Basis.self, forKey: .basis) ?? .implied(.checkpoint)
            self.init(value: value, basis: value == nil ? nil : basis)
        } else {
            let value = try decoder.singleValueContainer().decode(Value.self)
            self.init(value: value, basis: .implied(.checkpoint))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(value, forKey: .value)
        try c.encodeIfPresent(basis, forKey: .basis)
    }
}

/// A fact's line, whatever the type of its value (`ReplayState.citedEvents`).
protocol CitingFact { var event: Int64? { get } }
extension Known: CitingFact {}

extension ReplayState {
    /// The lines the state names: those that said its facts, the lapsed grant's and the last
    /// prompt's. Rules may cite them in a later session: a checkpoint keeps them with it.
    package var citedEvents: [Int64] {
        Mirror(reflecting: self).children.compactMap { ($0.value as? any CitingFact)?.event }
            + [lapsedGrantEvent, lastPromptEvent].compactMap { $0 }
    }
}
