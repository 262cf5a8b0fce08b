import LocAuditModel
import LocAuditReplay

/// How a report is rendered, beyond the findings themselves.
public struct ReportOptions: Sendable {
    /// Show delivered coordinates (never by default: the logs hold people's locations).
    public var showCoordinates = false
    /// Decimal places of shown coordinates (3 is about 100 m).
    public var coordinateDecimals = 3
    /// ANSI colours (text on a terminal only).
    public var color = false
    /// locaudit's version, stamped into reports that carry run metadata.
    public var version = LocAuditVersion.current
    /// How the text and Markdown reports group findings (`--group-by`); nil: each format's
    /// default (text by device, Markdown by app).
    public var groupBy: ReportGrouping?

    public init() {}
}

/// How findings are grouped in the text and Markdown reports.
public enum ReportGrouping: String, CaseIterable, Sendable {
    /// An app, then its devices: one ticket per app.
    case app
    /// A device, then its apps: what one test device showed.
    case device
}

/// The version printed by `locaudit --version` and stamped into reports.
public enum LocAuditVersion {
    public static let current = "0.2.0"
}
