import ArgumentParser
import Foundation
import LocAuditIngest
import LocAuditModel
import LocAuditNormalise

/// What `ingest` and `watch` are told about the logs they read: the device, its zone, the
/// container and the catalog. One declaration, one meaning in both commands.
struct LogSourceOptions: ParsableArguments {
    @Option(help: ArgumentHelp("ideviceinfo output of the device the logs come from.", valueName: "file"), completion: .file())
    var deviceInfo: String?

    @Option(help: ArgumentHelp("Device identifier (UDID or name) of the logs.", valueName: "id"))
    var device: String?

    @Option(help: ArgumentHelp("iOS version of the device, e.g. 17.5.1.", valueName: "version"))
    var os: String?

    @Option(help: ArgumentHelp("Time zone of logs without zones, e.g. Europe/Paris (default: the device's, else UTC, and the report says so).", valueName: "zone"))
    var tz: String?

    @Option(help: ArgumentHelp("The logs' container, instead of detecting it (\(Container.allCases.map(\.rawValue).joined(separator: ", "))).", valueName: "name"))
    var container: Container?

    /// `--format NAME`, the name `--container` had until 0.2.0: still read, with a warning.
    @Option(name: .customLong("format"), help: .hidden)
    var deprecatedFormat: Container?

    @Option(name: .customLong("catalog"), help: ArgumentHelp("A message catalog file over the built-in one; repeatable (default: $LOCAUDIT_CATALOG or ~/.config/locaudit/catalog.json when present).", valueName: "file"), completion: .file(extensions: ["json"]))
    var catalogs: [String] = []

    func validate() throws {
        if let tz, TimeZone(identifier: tz) == nil {
            throw ValidationError("Unknown time zone '\(tz)'; use a name like Europe/Paris or UTC.")
        }
        if let os, os.range(of: #"^[1-9][0-9]?(\.[0-9]{1,3}){0,2}$"#, options: .regularExpression) == nil {
            throw ValidationError("--os '\(os)' is not an iOS version; give one like 17.5.1 (major version 1 to 99).")
        }
        try requireText(device, "--device", "a device id (its UDID or name)")
        try requirePath(deviceInfo, "--device-info", "a file (ideviceinfo output)")
        try requirePath(catalogs, "--catalog", "a file (a message catalog)")
        if container != nil, deprecatedFormat != nil {
            throw ValidationError("--format is the old name of --container: give --container alone.")
        }
    }

    /// The container given, warning once when it was given as `--format`.
    var chosenContainer: Container? {
        if let deprecatedFormat {
            printError("warning: --format NAME is now --container NAME (--format will name report formats only); read as --container \(deprecatedFormat.rawValue)")
            return deprecatedFormat
        }
        return container
    }

    /// The device's facts given (`--device`, `--os`, then `--device-info` for what they leave
    /// open); nil when none is.
    func facts() throws -> DeviceFacts? {
        var facts = DeviceFacts(udid: device, osVersion: os)
        if let deviceInfo {
            guard let text = try? String(contentsOfFile: deviceInfo, encoding: .utf8) else {
                throw ValidationError("Cannot read --device-info \(deviceInfo); check the path.")
            }
            facts = facts.filling(from: DeviceFacts.parse(ideviceinfo: text))
        }
        return facts == DeviceFacts() ? nil : facts
    }

    var zone: TimeZone? { tz.flatMap(TimeZone.init(identifier:)) }
    var catalogFiles: [String] { CatalogLocation.files(explicit: catalogs) }
}
