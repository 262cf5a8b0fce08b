import Foundation
import LocAuditModel

/// A fleet's device list, `udid,name,product_type,os_version[,time_zone]` (a header row names
/// the columns, in any order; `udid` or `name`, and `os_version`, are required; `time_zone`,
/// also spelled `TimeZone` as ideviceinfo names it, is the device's IANA zone: its zone-less
/// lines are read in it).
///
/// A log is matched to a device by its file name, before any line is read (its time zone
/// and iOS version are needed from the first line on): fleet files are named
/// `NAME-YYYY-MM-DD...`, and the part before the date is compared, ignoring case, with each
/// device's name, then its UDID. A log whose name matches no row gets nothing from it.
public struct Inventory: Sendable, Equatable {
    public var devices: [DeviceFacts]

    public init(devices: [DeviceFacts]) { self.devices = devices }

    /// Reads an inventory file; a malformed one is an error naming the line.
    public static func read(_ path: String) throws -> Inventory {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw InventoryError(description: "cannot read the inventory \(path): no such file, not readable or not UTF-8.")
        }
        return try parse(text, path: path)
    }

    static func parse(_ text: String, path: String) throws -> Inventory {
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard let header = lines.first.map({ Inventory.cells($0.lowercased()).map { $0 == "timezone" ? "time_zone" : $0 } }),
              header.contains("os_version"), header.contains("udid") || header.contains("name") else {
            throw InventoryError(description: "\(path):1: the inventory needs a header row udid,name,product_type,os_version.")
        }
        var devices: [DeviceFacts] = []
        for (index, line) in lines.enumerated().dropFirst() where !line.isEmpty && !line.hasPrefix("#") {
            let cells = Inventory.cells(line)
            guard cells.count == header.count else {
                throw InventoryError(description: "\(path):\(index + 1): \(cells.count) cells where the header has \(header.count).")
            }
            func cell(_ column: String) -> String? { header.firstIndex(of: column).map { cells[$0] }.flatMap { $0.isEmpty ? nil : $0 } }
            let facts = DeviceFacts(udid: cell("udid"), name: cell("name"), productType: cell("product_type"), osVersion: cell("os_version"),
                                    timeZone: cell("time_zone"))
            guard facts.id != nil else { throw InventoryError(description: "\(path):\(index + 1): a device without udid or name.") }
            if let version = facts.osVersion, IOSVersion(version) == nil {
                throw InventoryError(description: "\(path):\(index + 1): os_version '\(version)' is not an iOS version like 17.4.1.")
            }
            if let zone = facts.timeZone, TimeZone(identifier: zone) == nil {
                throw InventoryError(description: "\(path):\(index + 1): time_zone '\(zone)' is not a time zone; use an IANA name like Europe/Paris.")
            }
            devices.append(facts)
        }
        return Inventory(devices: devices)
    }

    /// The cells of a CSV row; `"..."` quotes a cell with commas (product types are `iPhone12,1`), `""` is a quote.
    static func cells(_ line: String) -> [String] {
        var cells: [String] = [], cell = "", quoted = false, justClosed = false
        for c in line {
            if quoted {
                if c == "\"" { quoted = false; justClosed = true } else { cell.append(c) }
                continue
            }
            if c == "\"" {
                if justClosed { cell.append(c) }
                quoted = true
            } else if c == "," {
                cells.append(cell)
                cell = ""
            } else {
                cell.append(c)
            }
            justClosed = false
        }
        cells.append(cell)
        return cells.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// The device a log's file name names (`NAME-2026-11-21.log.gz`), by name, then UDID.
    public func device(forLog path: String) -> DeviceFacts? {
        let name = (path as NSString).lastPathComponent
        guard let key = InboxName.deviceKey(ofFileName: name)?.lowercased() else { return nil }
        return devices.first { $0.name?.lowercased() == key } ?? devices.first { $0.udid?.lowercased() == key }
    }
}

/// A malformed inventory file (a usage error: exit 2).
public struct InventoryError: Error, CustomStringConvertible, Sendable {
    public var description: String
}
