import LocAuditModel

/// A named way to read a message's value into a column, for values whose meaning is a
/// daemon's own code rather than a spelling of the column's vocabulary.
///
/// A catalog pattern names one per column in `decode` (`{"status": "authorization-mask"}`);
/// a column it does not name is read as the column reads every spelling of its vocabulary
/// (`Normaliser.value`). Each decoder fills the columns it names in `columns`, with a value of
/// their vocabulary, or nothing when the raw value means nothing certain.
public enum ValueDecoder: String, CaseIterable, Sendable {
    /// locationd's static authorization mask (`update client authorization mask`, `new`):
    /// 0 not determined, 1 denied (Never), 4 Always. 2 is When In Use *or* provisional
    /// Always (a flag the line does not carry) and other values are combinations not seen:
    /// nothing. iOS 26.1 locationd, CLClientManager::updateStaticAuthorizationMaskForClientWithCompensation.
    case authorizationMask = "authorization-mask"
    /// locationd's corrective compensation (`oldCC`, `newCC`), its name for reduced
    /// accuracy: 1 full (Settings' Precise Location on), 2 reduced (off); 0 none.
    case compensation

    /// The columns the decoder may fill.
    public var columns: Set<EventColumn> {
        switch self {
        case .authorizationMask: [.status]
        case .compensation: [.accuracy]
        }
    }

    /// The value the text stands for, or nil when it means nothing certain.
    func decode(_ text: String) -> ColumnValue? {
        switch self {
        case .authorizationMask:
            switch text {
            case "0": .text(AuthorizationStatus.notDetermined.rawValue)
            case "1": .text(AuthorizationStatus.denied.rawValue)
            case "4": .text(AuthorizationStatus.authorizedAlways.rawValue)
            default: nil
            }
        case .compensation:
            switch text {
            case "1": .text(AccuracyAuthorization.full.rawValue)
            case "2": .text(AccuracyAuthorization.reduced.rawValue)
            default: nil
            }
        }
    }

    /// The names, for messages and `catalog show`'s reader.
    static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
