import LocAuditModel
import LocAuditReplay

/// A device as reports name it: the name and model its ideviceinfo gave, the UDID on hover.
public struct DeviceLabel: Sendable, Equatable {
    /// The store's device id: the UDID, else a name.
    public var id: String
    /// `DeviceName`; nil when no facts named it.
    public var name: String?
    /// `ProductType`, the model identifier (`iPhone12,1`).
    public var model: String?
    /// The facts `locaudit devices set` gave it (`ios`, `timeZone`, `name`): reports say so.
    public var setByHand: [String] = []

    public init(id: String, name: String? = nil, model: String? = nil, setByHand: [String] = []) {
        self.id = id
        self.name = name
        self.model = model
        self.setByHand = setByHand
    }
}
