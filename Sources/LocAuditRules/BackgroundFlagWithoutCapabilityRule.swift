import LocAuditModel
import LocAuditReplay

/// `allowsBackgroundLocationUpdates` YES without the location background mode: a crash on iOS 9+.
struct BackgroundFlagWithoutCapabilityRule: ConfigurationRule {
    static let description = RuleDescription(
        identifier: "background-flag-without-capability",
        severity: .critical,
        scope: .configuration,
        firstVersion: 9,
        description: "Background flag YES without the location background mode (a crash on iOS 9+).",
        seed: "002 table (allowsBackgroundLocationUpdates开 + Capabilities 关: iOS抛出Crash)",
        sources: [Apple.allowsBackgroundLocationUpdates, Apple.uiBackgroundModes, Apple.backgroundExecutionModes],
        rationale: """
            Setting allowsBackgroundLocationUpdates to YES in an app without Background Modes >
            Location updates raises NSInternalInconsistencyException (`!stayUp ||
            CLClientIsBackgroundable`). Read from the Info.plist, or from the crash itself.
            """,
        owner: .infoPlist,
        remedy: "Add the value location to UIBackgroundModes (Xcode: Signing & Capabilities > Background Modes > Location updates), or stop setting allowsBackgroundLocationUpdates to YES in a build without it: from iOS 9 that raises an exception.",
        triggeringExamples: [
            RuleExample(os: "10.3.3", plist: ExamplePlist(usageKeys: [UsageKey.whenInUse, UsageKey.always], backgroundModes: ["audio"]), ExampleLog().foreground()
                .at(1).property("allowsBackgroundLocationUpdates")),
            RuleExample(os: "11.4", ExampleLog().foreground()
                .at(1).app("*** Terminating app due to uncaught exception 'NSInternalInconsistencyException', reason: 'Invalid parameter not satisfying: !stayUp || CLClientIsBackgroundable(internal->fClient)'", level: "Error")),
        ],
        nonTriggeringExamples: [
            RuleExample(os: "10.3.3", plist: .complete, ExampleLog().foreground()
                .at(1).property("allowsBackgroundLocationUpdates")),
        ],
        notEvaluableExamples: [
            // No Info.plist and no crash: the background mode is unknown.
            RuleExample(os: "10.3.3", unknown: .infoPlist, ExampleLog().foreground()
                .at(1).property("allowsBackgroundLocationUpdates")),
        ],
        facts: [.iosVersion, .infoPlist, .appLines]
    )

    func check(_ app: AppOnVersion, _ settings: RuleSettings) -> RuleCheck {
        let steps = app.steps
        let flags = steps.filter { $0.event.property == .allowsBackgroundLocationUpdates && $0.event.value == 1 }
        let crashes = steps.filter { $0.event.kind == .crash && ($0.event.reason ?? "").contains("CLClientIsBackgroundable") }
        let evidence = (flags + crashes).sorted { $0.event.timeUS < $1.event.timeUS }
        // The flag and the crash are the app's own lines.
        guard let first = evidence.first else { return app.hasAppLines ? .evaluated([]) : .unknown(.appLines) }
        if let facts = app.app {
            guard !facts.hasLocationCapability else { return .evaluated([]) }
            return .evaluated([Violation(timeUS: first.event.timeUS,
                message: "allowsBackgroundLocationUpdates set to \"YES\" without the \"location\" background mode (UIBackgroundModes of \(app.plistLabel): \(facts.backgroundModes.map { "\"\($0)\"" }.joined(separator: ", ")))",
                events: evidence.map(\.event.id), infoPlist: true)])
        }
        guard !crashes.isEmpty else { return .unknown(.infoPlist) }
        return .evaluated([Violation(timeUS: crashes[0].event.timeUS,
            message: "crash \"CLClientIsBackgroundable\": allowsBackgroundLocationUpdates set without the \"location\" background mode",
            events: evidence.map(\.event.id))])
    }
}
