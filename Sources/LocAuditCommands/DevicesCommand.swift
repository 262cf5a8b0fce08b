import ArgumentParser
import Foundation
import LocAuditModel
import LocAuditRead
import LocAuditStore

struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the store's devices, or mend a device's facts (devices set).",
        discussion: """
            A log is tied to its device by the device's UDID (a sidecar, --device-info, the \
            inventory), else by the exact device name in its lines or its file name \
            (NAME-YYYY-MM-DD…) when the store knows one device by it; when two fit, by \
            neither (the ingest says so). `locaudit devices` lists who is who: name, UDID, \
            model, iOS, zone, first and last line, logs; `*` marks facts set by hand.

            Exit codes: 0 printed or set, 2 usage error (a device that matches none, with \
            the nearest names), 3 no database, 6 the store cannot be used, 7 standard \
            output could not be written.

            EXAMPLES:
              locaudit devices
              # a device whose logs came without ideviceinfo: its iOS and zone
              locaudit devices set f19e10f790457b49ae65cbc96c1dac19751f4b05 \\
                  --os 10.3.3 --tz Europe/Paris
            """,
        subcommands: [DevicesListCommand.self, DevicesSetCommand.self],
        defaultSubcommand: DevicesListCommand.self
    )
}

struct DevicesListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the store's devices (the default).",
        discussion: """
            One line a device: name, UDID, model (ProductType), iOS, zone, first and last \
            line of its logs (UTC), logs; `*` marks facts set by hand.

            EXAMPLES:
              locaudit devices list
              # for a script
              locaudit devices list --json
            """
    )

    @OptionGroup var store: StoreOptions

    @Flag(help: "Print the devices as JSON.")
    var json = false

    func run() throws {
        let devices = try withStore(store.path) { try Devices.list(database: store.path) }
        try Output.standardOutput(json ? try Output.json(devices, what: "the devices") + "\n" : Devices.text(devices))
    }
}

struct DevicesSetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Mend a device's facts; the next audit uses them, and reports say they were set by hand.",
        usage: "locaudit devices set <device> [--os <ver>] [--tz <zone>] [--name <name>]",
        discussion: """
            --os gives the version to the device's logs whose version is unknown (those whose \
            own facts gave one keep it). --tz re-times the device's logs read in an assumed \
            UTC (zone-less exports ingested without a zone), and later logs linked to the \
            device are read in it. --name renames it. Facts set by hand are not overwritten \
            by a later ingest.

            EXAMPLES:
              locaudit devices set aed1ac65239e378613bb9b70ec02621d930ec139 \\
                  --name "QA iPhone 6"
            """
    )

    @OptionGroup var store: StoreOptions

    @Argument(help: ArgumentHelp("The device: its UDID, or its name when no other device has it.", valueName: "device"))
    var device: String

    @Option(name: .customLong("os"), help: ArgumentHelp("Its iOS version (ProductVersion, e.g. 17.5.1).", valueName: "version"))
    var os: String?

    @Option(help: ArgumentHelp("Its time zone (IANA, e.g. Europe/Paris).", valueName: "zone"))
    var tz: String?

    @Option(help: ArgumentHelp("Its name.", valueName: "name"))
    var name: String?

    @Flag(help: "Print what was set as JSON.")
    var json = false

    func validate() throws {
        try requireText(device, "the device", "its UDID or name")
        if os == nil, tz == nil, name == nil { throw ValidationError("Give at least one of --os, --tz, --name.") }
        if let os, IOSVersion(os) == nil { throw ValidationError("--os '\(os)' is not an iOS version like 17.5.1.") }
        if let tz, TimeZone(identifier: tz) == nil {
            throw ValidationError("--tz '\(tz)' is not a time zone\(Nearest.suggestion(Nearest.names(to: tz, among: TimeZone.knownTimeZoneIdentifiers))); use an IANA name like Europe/Paris.")
        }
        try requireText(name, "--name", "a name")
    }

    func run() throws {
        let report = try withStore(store.path) { try Devices.set(device, DeviceMend(ios: os, timeZone: tz, name: name), database: store.path) }
        try Output.standardOutput(json ? try Output.json(report, what: "what was set") + "\n" : report.text)
    }
}
