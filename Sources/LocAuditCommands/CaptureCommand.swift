import ArgumentParser
import Foundation
import LocAuditAudit
import LocAuditRead

extension CaptureCollector: ExpressibleByArgument {}

struct CaptureCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "capture",
        abstract: "Collect the live logs of every attached iOS device into an inbox, for `locaudit run`.",
        usage: "locaudit capture --out <dir> [<options>]",
        discussion: """
            Lists the devices with `idevice_id -l` every --poll seconds and keeps one \
            collector per device (`idevicesyslog -u UDID`, or `pymobiledevice3 syslog live \
            --udid UDID` with --collector pymobiledevice3). Each device's lines go to one \
            gzipped file per local day, NAME-YYYY-MM-DD.log.gz (NAME: the device's name made \
            safe for a file name, else its UDID), with `ideviceinfo -u UDID` beside it as \
            NAME-YYYY-MM-DD.ideviceinfo.txt: the layout `locaudit run --inbox` reads.

            A file is written under a hidden name (which run never reads) as whole gzip \
            members, one every --flush seconds, and renamed to its final name when it is \
            closed: at local midnight (TZ; a new file for the new day), when the device is \
            unplugged, after a failed write, and when capture stops. A name taken already \
            (capture started again the same day) is never overwritten: the next file is \
            NAME-YYYY-MM-DD-2.log.gz. A collector that exits is started again after 1 s, \
            then 2, 4... up to 60 s. A failed write (a full disk) is logged with the file \
            and what to do; the file keeps what was written before it and is closed as a \
            valid gzip; the device is tried again later; capture goes on. Files a capture \
            killed with -9 left under their hidden names are renamed when it starts again.

            SIGTERM or SIGINT (systemctl stop), or the end of --for, stops the collectors, \
            closes and renames every file, and exits 0. Every event (attached, detached, collector restarted, \
            file closed, errors) is one line on stderr.

            Exit codes: 0 stopped by SIGTERM, SIGINT or --for, 2 usage error (no --out folder, a \
            program missing from PATH).

            EXAMPLES:
              # the lab host (a systemd service: docs/ingest.md), until stopped:
              #   locaudit capture --out /srv/fleet/inbox
              # the devices attached now, for 3 seconds, into ./inbox
              locaudit capture --out inbox --for 3s
              # with pymobiledevice3 (iOS 17 and later), polling every 10 s
              locaudit capture --out inbox --collector pymobiledevice3 --poll 10 --for 3s
            """
    )

    @Option(help: ArgumentHelp("The inbox folder the files go to (it must exist).", valueName: "dir"), completion: .directory)
    var out: String

    @Option(help: ArgumentHelp("The program that reads each device's log.", valueName: "name"))
    var collector: CaptureCollector = .idevicesyslog

    @Option(help: ArgumentHelp("Seconds between two `idevice_id -l`: how soon a device plugged in or out is noticed.", valueName: "seconds"))
    var poll: Double = 5

    @Option(help: ArgumentHelp("Seconds between two writes of a device's lines (a gzip member each): the most a crash loses.", valueName: "seconds"))
    var flush: Double = 10

    @Option(name: .customLong("for"), help: ArgumentHelp("Stop after this long (90s, 20m, 8h, or seconds), as on SIGTERM.", valueName: "duration"))
    var duration: String?

    func validate() throws {
        try requirePath(out, "--out", "a folder")
        if !(poll.isFinite && poll >= 0.05 && poll <= 3600) { throw ValidationError("--poll takes 0.05 to 3600 seconds; got \(poll).") }
        if let duration, WatchOptions.seconds(duration) == nil {
            throw ValidationError("--for '\(duration)' is not a duration; use 90s, 20m, 8h or a number of seconds.")
        }
        if !(flush.isFinite && flush >= 0.05 && flush <= 3600) { throw ValidationError("--flush takes 0.05 to 3600 seconds; got \(flush).") }
    }

    func run() throws {
        var options = CaptureOptions(out: out)
        options.collector = collector
        options.poll = poll
        options.flush = flush
        options.duration = duration.flatMap(WatchOptions.seconds)
        let capture = Capture(options: options) { line in
            Output.standardError("\(Date().formatted(.iso8601)) \(line)\n")
        }
        do {
            try capture.run()
        } catch let error as CaptureError {
            printError(error.description)
            throw ExitCode(2)
        }
    }
}
