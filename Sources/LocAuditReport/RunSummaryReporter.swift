import LocAuditAudit
import LocAuditModel
import LocAuditRules

/// The head of a nightly run's text report: what was new, what failed, which logs lack
/// device facts, what the audit covered and what was archived. The audit's own report follows.
public enum RunSummaryReporter {
    public static func generateReport(_ run: RunReport) -> String {
        let files = run.ingest.files
        let already = files.filter { $0.outcome == .alreadyIngested }.count
        var out = "locaudit run: \(ReportText.oneLine(run.inbox)) into \(ReportText.oneLine(run.ingest.database))\n"
        let plists = run.newFiles.filter { $0.app != nil }.count
        let deviceInfo = run.newFiles.count - plists - run.newLogs.count
        out += "\(run.newLogs.count) new logs, \(plists) new Info.plists, " + (deviceInfo > 0 ? "\(deviceInfo) new ideviceinfo files, " : "")
            + "\(already) already ingested, \(run.failedFiles.count) failed; "
            + "\(run.newFiles.compactMap(\.events).reduce(0, +)) events stored\n"
        if !run.failedFiles.isEmpty {
            out += "\nFailed (nothing of these was stored; fix and leave them in the inbox for the next run):\n"
            for f in run.failedFiles { out += "  \(ReportText.oneLine(f.path)): \(ReportText.oneLine(f.error ?? "unknown error"))\n" }
        }
        if !run.quarantined.isEmpty {
            out += "\nMoved to the inbox's failed/ folder (they failed the same way night after night; a .why beside each says why; "
                + "nothing there is read):\n"
            for q in run.quarantined {
                out += "  \(ReportText.oneLine(q.from)) -> \(ReportText.oneLine(q.to)) (failed on \(q.nights.joined(separator: ", ")))\n"
            }
        }
        if !run.ignored.isEmpty {
            out += "\nIgnored (not logs; left where they are):\n"
            for (path, why) in run.ignored { out += "  \(ReportText.oneLine(path)): \(ReportText.oneLine(why))\n" }
        }
        if !run.settling.isEmpty {
            out += "\nLeft for the next run (it or its sidecar changed in the last \(RunReport.seconds(run.settle)) s):\n"
            for path in run.settling { out += "  \(ReportText.oneLine(path))\n" }
        }
        if !run.heldBack.isEmpty {
            out += "\nHeld back (the file ends inside a line: a copy still under way? It stays in the inbox for the next run):\n"
            for f in run.heldBack { out += "  \(ReportText.oneLine(f.path)): from line \(f.heldBackFrom ?? 0)\n" }
        }
        if !run.unknownFacts.isEmpty {
            out += "\nDevice facts unknown (add a sidecar .ideviceinfo.txt or an inventory row):\n"
            for f in run.unknownFacts {
                let device = f.device.flatMap { $0 == "unknown" ? nil : $0 }
                out += "  \(ReportText.oneLine(f.path)): device \(ReportText.oneLine(device ?? "unknown")), iOS \(f.iosVersion ?? "unknown")\n"
            }
        }
        for started in run.owed {
            out += "\nThe run started \(started) stored files but was stopped before its audit (killed, a reboot, a timeout): "
                + "what it stored is audited now, with this run's new files.\n"
        }
        if run.nothingNew, run.audit == nil {
            out += "\nNothing new: nothing audited.\n"
        } else if run.audit == nil {
            out += "\nThe new files mention no app: nothing audited.\n"
        } else {
            func list(_ set: Set<String>?, _ all: String) -> String {
                set.map { $0.sorted().map(ReportText.oneLine).joined(separator: ", ") } ?? all
            }
            out += "\nAudited: devices \(list(run.devices, "all")); apps \(list(run.apps, "all"))\n"
        }
        if !run.archived.isEmpty { out += "Archived \(ReportText.plural(run.archived.count, "file")).\n" }
        for (path, why) in run.notArchived { out += "Not archived: \(ReportText.oneLine(path)): \(ReportText.oneLine(why))\n" }
        return out
    }
}

extension ReportRequest {
    /// Writes a nightly run's reports: the text report is the run summary followed by the
    /// audit's; the other formats are the audit's and are written only when there was one.
    public static func write(_ requests: [ReportRequest], run: RunReport, options: ReportOptions, inputs: ReportInputs) throws {
        var reports: [(request: ReportRequest, text: String)] = []
        for request in requests {
            var opts = options
            if request.path != nil { opts.color = false }
            if request.format == .text {
                var text = RunSummaryReporter.generateReport(run)
                if let audit = run.audit { text += "\n" + (try request.format.render(inputs.names.apply(to: audit), options: opts)) }
                reports.append((request, text))
            } else if let audit = run.audit {
                reports.append((request, try render(request.format, audit, options: opts, inputs: inputs)))
            }
        }
        try deliver(reports, run: run.audit?.runId)
    }
}
