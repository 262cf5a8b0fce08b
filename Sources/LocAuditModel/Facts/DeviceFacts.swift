import Foundation

/// What is known about the device a log came from: its lines never say its iOS version.
public struct DeviceFacts: Sendable, Codable, Equatable {
    public var udid: String?
    public var name: String?
    public var productType: String?
    public var osVersion: String?
    /// The device's time zone (`TimeZone` in ideviceinfo): idevicesyslog stamps are its local time.
    public var timeZone: String?

    public init(udid: String? = nil, name: String? = nil, productType: String? = nil, osVersion: String? = nil, timeZone: String? = nil) {
        self.udid = udid
        self.name = name
        self.productType = productType
        self.osVersion = osVersion
        self.timeZone = timeZone
    }

    /// The device's key in the store: its UDID, else its name.
    public var id: String? { udid ?? name }

    /// Reads `ideviceinfo` output (`Key: Value` lines).
    public static func parse(ideviceinfo text: String) -> DeviceFacts {
        var facts = DeviceFacts()
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = line[..<colon].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            guard !value.isEmpty else { continue }
            switch key {
            case "UniqueDeviceID": facts.udid = value
            case "DeviceName": facts.name = value
            case "ProductType": facts.productType = value
            case "ProductVersion": facts.osVersion = value
            case "TimeZone": facts.timeZone = value
            default: break
            }
        }
        return facts
    }

    /// These facts, with the gaps filled from `other`.
    public func filling(from other: DeviceFacts?) -> DeviceFacts {
        guard let other else { return self }
        return DeviceFacts(udid: udid ?? other.udid, name: name ?? other.name,
                           productType: productType ?? other.productType, osVersion: osVersion ?? other.osVersion,
                           timeZone: timeZone ?? other.timeZone)
    }
}
