import Foundation
import Testing
@testable import LocAuditUnitTests

/// A sysdiagnose archive made by the real `tar czf`: its MobileInstallation logs are read,
/// its name gives the iOS version, and the summary says what to do with the logarchive.
@Suite(.tags(.endToEnd), .ownThreads) struct SysdiagnoseTests {
    static let folder = "sysdiagnose_2025.04.07_08-50-13-0700_iPhone-OS_iPhone_20A362"

    static let newer = """
        Mon Apr  7 07:40:47 2025 [446] <notice> (0x16fc9b000) -[MIInstaller performInstallationWithError:]: Install Successful for (Customer:org.example.app); Staging: 0.03s
        Mon Apr  7 07:40:48 2025 [446] <notice> (0x16fc9b000) -[MIClientConnection _doBackgroundWork]: nothing to do

        """
    static let older = """
        Mon Apr  7 06:13:34 2025 [234] <notice> (0x16b48f000) -[MIInstaller performInstallationWithError:]: Install Successful for (Placeholder:org.example.app); Staging: 0.01s
        """ // no newline at the end of this member: the archive says where it ends

    /// Writes a sysdiagnose folder and archives it with `tar czf` (`format`: GNU long names,
    /// pax or ustar), returning the archive's path.
    static func archive(_ ws: Workspace, name: String = folder, format: String = "gnu", members: [String: String]? = nil) throws -> String {
        let files = members ?? [
            "logs/MobileInstallation/mobile_installation.log.0": newer,
            "logs/MobileInstallation/mobile_installation.log.1": older,
            "system_logs.logarchive/Persist/0000000000000001.tracev3": "binary unified log",
            "logs/MobileInstallation/mobile_installation.log.0.note": "not a log",
            "ps.txt": "USER PID\n",
        ]
        for (path, text) in files { try ws.write("src/\(name)/\(path)", text) }
        let out = ws.dir.appendingPathComponent("\(name).tar.gz").path
        // A fixed member order: the log's .1 first, then .0 (lines are numbered in archive order).
        let order = files.keys.sorted { $0.hasSuffix(".1") != $1.hasSuffix(".1") ? $0.hasSuffix(".1") : $0 < $1 }
        let result = try run("/usr/bin/env", ["tar", "--format=\(format)", "-czf", out, "-C", ws.dir.appendingPathComponent("src").path]
                             + order.map { "\(name)/\($0)" })
        #expect(result.status == 0, "\(result.stderr)")
        return out
    }

    @Test("its MobileInstallation members are read, in archive order, as one source; the build gives iOS 16.0",
          arguments: ["gnu", "pax", "ustar"])
    func readsTheMembers(format: String) throws {
        let ws = try Workspace()
        let path = try SysdiagnoseTests.archive(ws, format: format)
        let report = try ws.ingest([path])
        let file = try #require(report.files.first)
        #expect(file.outcome == .ingested, "\(file.error ?? "")")
        #expect(file.container == "sysdiagnose")
        #expect(file.iosVersion == "16.0")
        #expect(file.linesRead == 3, "1 line of .1 (no newline), then 2 of .0")
        #expect(file.skipped == [:])
        #expect(file.zoneAssumed == true)
        let rows = try ws.rows("SELECT line, time, process, pid FROM events ORDER BY line")
        #expect(rows.map { $0["line"] as Int } == [1, 2])
        #expect(rows.map { $0["time"] as String } == ["2025-04-07T06:13:34.000000Z", "2025-04-07T07:40:47.000000Z"])
        #expect(rows.map { $0["pid"] as Int } == [234, 446])
        #expect(rows.allSatisfy { ($0["process"] as String) == "installd" })
        let text = report.text()
        #expect(text.contains("iOS 16.0 from build 20A362"), "\(text)")
        #expect(text.contains("log show --archive"), "\(text)")
        #expect(try ws.count("SELECT count(*) FROM sources WHERE os_version = '16.0'") == 1)
    }

    @Test("a build outside the table gives its major version exactly and its minor from the letter, said to be approximate")
    func approximateVersion() throws {
        let ws = try Workspace()
        let path = try SysdiagnoseTests.archive(ws, name: "sysdiagnose_2025.05.01_10-00-00+0200_iPhone-OS_iPhone_22B101")
        let report = try ws.ingest([path])
        #expect(report.files.first?.iosVersion == "18.1")
        #expect(report.text().contains("iOS 18.1 from build 22B101 in its name (approximate"), "\(report.text())")
    }

    @Test("an archive without a MobileInstallation log fails, says what to do, and stores nothing")
    func nothingReadable() throws {
        let ws = try Workspace()
        let path = try SysdiagnoseTests.archive(ws, members: ["ps.txt": "USER PID\n", "system_logs.logarchive/x.tracev3": "x"])
        let file = try #require(try ws.ingest([path]).files.first)
        #expect(file.outcome == .failed)
        #expect(file.error?.contains("no part of this archive is one locaudit reads") == true, "\(file.error ?? "")")
        #expect(file.error?.contains("log show --archive") == true)
        #expect(try ws.count("SELECT count(*) FROM sources") == 0)
    }

    @Test("a tar cut inside a member (gzip whole) fails with its byte offset and stores nothing")
    func cutArchive() throws {
        let ws = try Workspace()
        let whole = try SysdiagnoseTests.archive(ws)
        let tar = try run("/bin/sh", ["-c", "gzip -dc '\(whole)' | head -c 3000 | gzip -c -n > '\(whole).cut.gz'"])
        #expect(tar.status == 0)
        let file = try #require(try ws.ingest([whole + ".cut.gz"]).files.first)
        #expect(file.outcome == .failed)
        #expect(file.error?.contains("the archive is damaged at byte 3000 of its content") == true, "\(file.error ?? "")")
        #expect(try ws.count("SELECT count(*) FROM sources") == 0)
    }

    @Test("a damaged header (bad checksum) is an error, not a crash")
    func damagedHeader() throws {
        let ws = try Workspace()
        let whole = try SysdiagnoseTests.archive(ws)
        var bytes = try run("/bin/sh", ["-c", "gzip -dc '\(whole)' | od -An -v -tu1"]).stdout
            .split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { UInt8($0) }
        bytes[1024 + 20] ^= 0xff // inside the second header's name: its checksum no longer matches
        let file = try #require(try ws.ingest([try ws.write("broken.tar", bytes)]).files.first)
        #expect(file.outcome == .failed)
        #expect(file.error?.contains("checksum") == true, "\(file.error ?? "")")
    }
}
