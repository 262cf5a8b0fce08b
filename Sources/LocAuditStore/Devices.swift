import Foundation
import GRDB
import LocAuditModel
import LocAuditNormalise
import LocAuditRead
import LocAuditRules

/// One device of the store, as `locaudit devices` lists it.
public struct DeviceSummary: Codable, Sendable, Equatable {
    /// The store's key: the UDID, else the name the first log gave.
    public var id: String
    public var name: String?
    /// `ProductType` (iPhone15,2).
    public var model: String?
    /// Latest known iOS version.
    public var ios: String?
    public var timeZone: String?
    /// First and last line of its logs (ISO 8601 UTC); nil without a log.
    public var firstSeen: String?
    public var lastSeen: String?
    /// Its logs (device-facts files not counted).
    public var files: Int
    /// The facts `locaudit devices set` wrote: `ios`, `timeZone`, `name`.
    public var setByHand: [String]

    /// The UDID, when the key is one (a device known only by its name has none).
    public var udid: String? { id == name || id == "unknown" ? nil : id }
}

/// What a device name or id given on the command line designates.
public enum DeviceLookup: Sendable, Equatable {
    case device(String)
    /// Several devices carry this name: their ids.
    case ambiguous([String])
    /// None: the nearest ids and names, best first.
    case none(nearest: [String])
}

/// Who is who: the store's devices, how a log without a UDID finds its device, and the
/// facts people mend by hand (`locaudit devices set`).
public enum Devices {
    /// SQL true when `devices set` wrote `column` of the row (`set_by_hand` lists them).
    static func setByHand(_ column: String) -> String {
        "coalesce(instr(set_by_hand, '\"\(column)\"'), 0) > 0"
    }

    /// Column names in `set_by_hand`, and the names `DeviceSummary.setByHand` gives them.
    static let handColumns = ["os_version": "ios", "time_zone": "timeZone", "name": "name"]

    /// Every device, by name.
    public static func list(in db: Database) throws -> [DeviceSummary] {
        try Row.fetchAll(db, sql: """
            SELECT d.id, d.name, d.product_type, d.os_version, d.time_zone, d.set_by_hand,
                min(s.first_time) AS first_seen, max(s.last_time) AS last_seen, count(s.id) AS files
            FROM devices d LEFT JOIN sources s ON s.device_id = d.id AND s.container NOT IN ('info-plist', 'ideviceinfo')
            GROUP BY d.id ORDER BY coalesce(d.name, d.id), d.id
            """).map { row in
            let hand = (row["set_by_hand"] as JSONColumn<[String]>?)?.value ?? []
            return DeviceSummary(id: row["id"], name: row["name"], model: row["product_type"], ios: row["os_version"],
                                 timeZone: row["time_zone"], firstSeen: row["first_seen"], lastSeen: row["last_seen"],
                                 files: row["files"], setByHand: hand.compactMap { handColumns[$0] })
        }
    }

    /// The device `text` names: its id, else the one device with that exact name.
    public static func lookup(_ text: String, in db: Database) throws -> DeviceLookup {
        let devices = try Row.fetchAll(db, sql: "SELECT id, name FROM devices").map { (id: $0["id"] as String, name: $0["name"] as String?) }
        if devices.contains(where: { $0.id == text }) { return .device(text) }
        let named = devices.filter { $0.name == text }.map(\.id)
        if named.count == 1 { return .device(named[0]) }
        if named.count > 1 { return .ambiguous(named.sorted()) }
        return .none(nearest: Nearest.names(to: text, among: devices.flatMap { [$0.id] + ($0.name.map { [$0] } ?? []) }))
    }

    /// How a log was tied to a device the store knows.
    public enum Link: Sendable, Equatable {
        /// Its facts, filled from the device's row; how it was found.
        case linked(DeviceFacts, by: String)
        /// Two devices fit: linked to neither, and why.
        case ambiguous(String)
        case none
    }

    /// Ties a log whose facts name no UDID to a device of the store: by the exact name its
    /// lines give (`lineName`), by its given name, or by the file name (`NAME-YYYY-MM-DD…`, the
    /// part before the date compared with names and UDIDs, ignoring case, as the inventory
    /// does). When the names given fit two devices, none is linked (and `.ambiguous` says so).
    /// A device known only by its name (no UDID) is linked too: its row may hold facts.
    public static func link(_ facts: DeviceFacts, lineName: String?, path: String, in db: Database) throws -> Link {
        guard facts.udid == nil else { return .none }
        struct Known { var id: String, name: String?, facts: DeviceFacts }
        let rows = try Row.fetchAll(db, sql: "SELECT id, name, product_type, os_version, time_zone FROM devices WHERE id != 'unknown'").map { row in
            let id: String = row["id"], name: String? = row["name"]
            return Known(id: id, name: name, facts: DeviceFacts(udid: id == name ? nil : id, name: name, productType: row["product_type"],
                                                                osVersion: row["os_version"], timeZone: row["time_zone"]))
        }
        var found: [(device: Known, by: String)] = []
        func add(_ matches: [Known], by: String) {
            for device in matches where !found.contains(where: { $0.device.id == device.id }) { found.append((device, by)) }
        }
        for (name, how) in [(facts.name, "the name given"), (lineName, "the device name in its lines")] {
            guard let name, !name.isEmpty else { continue }
            add(rows.filter { $0.name == name || $0.id == name }, by: "\(how) (\(name))")
        }
        if let stem = fileNameDevice(path) {
            let byName = rows.filter { $0.name?.lowercased() == stem }
            add(byName.isEmpty ? rows.filter { $0.id.lowercased() == stem } : byName, by: "its file name")
        }
        // A name-only row stands for the device a UDID row of the same name is: not a second candidate.
        let udidNames = Set(rows.filter { $0.facts.udid != nil }.compactMap(\.name))
        found.removeAll { $0.device.facts.udid == nil && udidNames.contains($0.device.id) }
        guard let first = found.first else { return .none }
        guard found.count == 1 else {
            return .ambiguous("linked to no known device: \(found.map { "\($0.device.id) by \($0.by)" }.joined(separator: " and ")) both fit. Give the device with --device-info (its ideviceinfo output) or a sidecar.")
        }
        return .linked(facts.filling(from: first.device.facts), by: first.by)
    }

    /// `NAME` of `NAME-2026-11-21.log.gz`, lowercased; nil without a date in the name.
    static func fileNameDevice(_ path: String) -> String? {
        let name = (path as NSString).lastPathComponent
        guard let date = name.range(of: #"-\d{4}-\d{2}-\d{2}"#, options: .regularExpression), date.lowerBound > name.startIndex else { return nil }
        return name[..<date.lowerBound].lowercased()
    }
}

/// Facts `locaudit devices set` gives a device.
public struct DeviceMend: Sendable, Equatable {
    /// `ProductVersion`: given to the device's logs whose version is unknown (or was set by hand).
    public var ios: String?
    /// An IANA zone: the device's logs read in an assumed UTC are re-timed in it.
    public var timeZone: String?
    public var name: String?

    public init(ios: String? = nil, timeZone: String? = nil, name: String? = nil) {
        self.ios = ios
        self.timeZone = timeZone
        self.name = name
    }
}

/// What `locaudit devices set` changed.
public struct DeviceMendReport: Codable, Sendable, Equatable {
    public var device: String
    /// The facts written, as `DeviceSummary.setByHand` names them.
    public var set: [String]
    /// Logs that took the iOS version given.
    public var logsGivenVersion = 0
    /// Logs that keep the version their own facts gave (a sidecar, --os): version -> logs.
    public var logsKeepingTheirVersion: [String: Int] = [:]
    /// Logs read in an assumed UTC, re-timed in the zone given, and their lines.
    public var logsRetimed = 0
    public var linesRetimed = 0
    /// Re-timed logs with a daylight-saving change inside: the lines after it are an hour off.
    public var logsAcrossOffsetChange: [String] = []

    public var text: String {
        var out = "set \(set.joined(separator: ", ")) of \(device) by hand; the next audit uses them.\n"
        if set.contains("ios") {
            out += "  iOS version given to \(logsGivenVersion) log\(logsGivenVersion == 1 ? "" : "s")"
            if !logsKeepingTheirVersion.isEmpty {
                out += "; \(logsKeepingTheirVersion.values.reduce(0, +)) keep the version their own facts gave ("
                    + logsKeepingTheirVersion.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + ")"
            }
            out += "\n"
        }
        if set.contains("timeZone") {
            out += "  \(logsRetimed) log\(logsRetimed == 1 ? "" : "s") read in an assumed UTC re-timed in the zone (\(linesRetimed) lines)\n"
            for path in logsAcrossOffsetChange {
                out += "  \(path): its zone's offset changes inside it (daylight saving): lines after the change are an hour off; ingest it again with --tz (after `locaudit prune`, or into a new store)\n"
            }
        }
        return out
    }
}

extension Devices {
    /// Writes `mend` to device `id` (an id `lookup` gave), in one transaction: the device's
    /// row records the facts as set by hand (an ingest does not overwrite them), its logs of
    /// unknown iOS version take the version, its logs read in an assumed UTC are re-timed.
    public static func set(_ id: String, _ mend: DeviceMend, in db: Database) throws -> DeviceMendReport {
        var report = DeviceMendReport(device: id, set: [])
        var columns: [String] = []
        var hand = Set((try String.fetchOne(db, sql: "SELECT set_by_hand FROM devices WHERE id = ?", arguments: [id]))
            .flatMap { try? JSONDecoder().decode([String].self, from: Data($0.utf8)) } ?? [])
        if let ios = mend.ios {
            let previous = hand.contains("os_version") ? try String.fetchOne(db, sql: "SELECT os_version FROM devices WHERE id = ?", arguments: [id]) : nil
            try db.execute(sql: """
                UPDATE sources SET os_version = ?1 WHERE device_id = ?2 AND container NOT IN ('info-plist', 'ideviceinfo')
                    AND (os_version IS NULL OR os_version = ?3)
                """, arguments: [ios, id, previous])
            report.logsGivenVersion = db.changesCount
            for row in try Row.fetchAll(db, sql: """
                SELECT os_version, count(*) AS logs FROM sources WHERE device_id = ? AND os_version != ?
                    AND container NOT IN ('info-plist', 'ideviceinfo') GROUP BY 1
                """, arguments: [id, ios]) {
                report.logsKeepingTheirVersion[row["os_version"]] = row["logs"]
            }
            try db.execute(sql: "UPDATE devices SET os_version = ? WHERE id = ?", arguments: [ios, id])
            columns.append("os_version")
        }
        if let zoneName = mend.timeZone, let zone = TimeZone(identifier: zoneName) {
            try retime(id, in: zone, named: zoneName, report: &report, db: db)
            try db.execute(sql: "UPDATE devices SET time_zone = ? WHERE id = ?", arguments: [zoneName, id])
            columns.append("time_zone")
        }
        if let name = mend.name {
            try db.execute(sql: "UPDATE devices SET name = ? WHERE id = ?", arguments: [name, id])
            columns.append("name")
        }
        hand.formUnion(columns)
        try db.execute(sql: "UPDATE devices SET set_by_hand = ?, updated_at = ? WHERE id = ?",
                       arguments: [jsonText(hand.sorted()), Clock.nowISO(), id])
        report.set = columns.compactMap { handColumns[$0] }
        return report
    }

    /// Re-times the device's logs whose times were read as UTC for want of a zone: each by
    /// the zone's offset at its first line (as `ZoneReconciler` does with an export's offset).
    private static func retime(_ id: String, in zone: TimeZone, named zoneName: String, report: inout DeviceMendReport, db: Database) throws {
        let logs = try Row.fetchAll(db, sql: """
            SELECT id, path, first_time, last_time FROM sources
            WHERE device_id = ? AND zone_assumed = 1 AND first_time IS NOT NULL AND last_time IS NOT NULL ORDER BY id
            """, arguments: [id])
        for row in logs {
            guard let first = ZoneReconciler.utc(row["first_time"]), let last = ZoneReconciler.utc(row["last_time"]) else { continue }
            let offset = LocalTime.utc(localUS: first, zone: zone).offset ?? 0
            let lastOffset = LocalTime.utc(localUS: last, zone: zone).offset ?? 0
            let log = ZoneReconciler.Log(id: row["id"], path: row["path"], first: first, last: last)
            let moved = try ZoneReconciler.retime(log, by: offset, in: db)
            try ZoneReconciler.note(log.id, offset: offset, from: "locaudit devices set --tz \(zoneName)", retimed: moved.retimed, dropped: moved.dropped, in: db)
            report.logsRetimed += 1
            report.linesRetimed += moved.retimed
            if offset != lastOffset { report.logsAcrossOffsetChange.append(log.path) }
        }
    }
}

extension Store {
    /// `options` with each device given as a name replaced by its id; a device or app the
    /// store does not know is a usage error naming the nearest ones (`AuditError`), before
    /// anything is audited or recorded.
    package func resolveScope(_ options: AuditOptions) throws -> AuditOptions {
        var options = options
        try connect(readOnly: true).read { db in
            if let devices = options.devices {
                options.devices = Set(try devices.map { given in
                    switch try Devices.lookup(given, in: db) {
                    case .device(let id): return id
                    case .ambiguous(let ids): throw AuditError.ambiguousDevice(given, ids)
                    case .none(let nearest): throw AuditError.unknownDevice(given, nearest: nearest)
                    }
                })
            }
            for bundle in options.bundleIds ?? [] {
                let known = try Bool.fetchOne(db, sql: """
                    SELECT EXISTS (SELECT 1 FROM apps WHERE bundle_id = ?1) OR EXISTS (SELECT 1 FROM sessions WHERE bundle_id = ?1)
                        OR EXISTS (SELECT 1 FROM names n JOIN event_rows r ON r.bundle_ref = n.id WHERE n.name = ?1)
                    """, arguments: [bundle]) ?? false
                guard !known else { continue }
                let apps = try String.fetchAll(db, sql: """
                    SELECT bundle_id FROM apps UNION SELECT name FROM names WHERE id IN (SELECT DISTINCT bundle_ref FROM event_rows)
                    """)
                throw AuditError.unknownApp(bundle, nearest: Nearest.names(to: bundle, among: apps))
            }
        }
        return options
    }
}

extension Devices {
    /// `locaudit devices`: the store's devices.
    public static func list(database: String) throws -> [DeviceSummary] {
        try Store(path: database, access: .read).connect(readOnly: true).read { try list(in: $0) }
    }

    /// `locaudit devices set`: mends the device `given` names (its id, or its unique name).
    public static func set(_ given: String, _ mend: DeviceMend, database: String) throws -> DeviceMendReport {
        try Store(path: database, access: .write).connect().write { db in
            switch try lookup(given, in: db) {
            case .device(let id): return try set(id, mend, in: db)
            case .ambiguous(let ids): throw AuditError.ambiguousDevice(given, ids)
            case .none(let nearest): throw AuditError.unknownDevice(given, nearest: nearest)
            }
        }
    }

    /// The list as a table, aligned, one device a line; `*` marks facts set by hand.
    public static func text(_ devices: [DeviceSummary]) -> String {
        guard !devices.isEmpty else { return "no device in this database yet: `locaudit ingest` some logs first.\n" }
        func hand(_ d: DeviceSummary, _ fact: String, _ value: String?) -> String {
            (value ?? "-") + (d.setByHand.contains(fact) ? "*" : "")
        }
        let header = ["name", "udid", "model", "ios", "zone", "first seen", "last seen", "files"]
        let rows = devices.map { d in
            [hand(d, "name", d.name), d.udid ?? "-", d.model ?? "-", hand(d, "ios", d.ios), hand(d, "timeZone", d.timeZone),
             d.firstSeen.map { String($0.prefix(16)) } ?? "-", d.lastSeen.map { String($0.prefix(16)) } ?? "-", "\(d.files)"]
        }
        let widths = header.indices.map { i in ([header] + rows).map { Printable.line($0[i]).count }.max() ?? 0 }
        var out = ([header] + rows).map { row in
            row.enumerated().map { i, cell in
                let text = Printable.line(cell)
                return i == row.count - 1 ? text : text.padding(toLength: widths[i], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
        if devices.contains(where: { !$0.setByHand.isEmpty }) { out += "* set by hand (`locaudit devices set`)\n" }
        return out
    }
}

extension Store {
    /// The ids each of `names` designates: the device with that id, else every device with that name.
    package func deviceIds(_ names: [String]) throws -> [String: Set<String>] {
        guard !names.isEmpty else { return [:] }
        return try connect(readOnly: true).read { db in
            var ids: [String: Set<String>] = [:]
            for name in names {
                switch try Devices.lookup(name, in: db) {
                case .device(let id): ids[name] = [id]
                case .ambiguous(let all): ids[name] = Set(all)
                case .none: ids[name] = [name]
                }
            }
            return ids
        }
    }
}
