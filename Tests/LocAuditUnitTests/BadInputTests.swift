import Foundation
import Testing

/// Bad input gets a clear error and loses nothing; a bad line is counted, never a crash.
@Suite struct BadInputTests {
    static let goodLog = (1...50).map { i in
        syslogLine(String(format: "Nov 12 12:%02d:%02d", i / 60, i % 60), "Runner(CoreLocation)", 412, Messages.delivery(accuracy: Double(i)))
    }.joined(separator: "\n") + "\n"

    @Test func aTruncatedGzipLeavesTheDatabaseAsItWasAndNamesTheOffset() throws {
        let ws = try Workspace()
        _ = try ws.ingest([try ws.write("before.log", syslogLine("Nov 11 10:00:00", "locationd", 64, Messages.appState("ForegroundRunning", pid: 1, bundle: "a.b")))])
        let before = try ws.contentDump()
        let whole = try gzip(Array(BadInputTests.goodLog.utf8))
        let cut = try ws.write("cut.log.gz", Array(whole.prefix(whole.count / 2)))
        let report = try ws.ingest([cut]) { $0.parse.year = 2026 }
        let failed = try #require(report.files.first)
        #expect(failed.outcome == .failed)
        #expect(failed.error?.contains("truncated gzip") == true)
        #expect(failed.error?.contains("at byte \(whole.count / 2)") == true)
        #expect(report.exitCode == 1)
        #expect(try ws.contentDump() == before, "a failed file must leave the content untouched")
    }

    @Test func theOtherFilesOfARunStillGoInWhenOneFails() throws {
        let ws = try Workspace()
        let whole = try gzip(Array(BadInputTests.goodLog.utf8))
        let cut = try ws.write("cut.log.gz", Array(whole.prefix(whole.count - 9)))
        let good = try ws.writeGzip("good.log.gz", BadInputTests.goodLog.replacingOccurrences(of: "Nov 12", with: "Nov 13"))
        let report = try ws.ingest([cut, good]) { $0.parse.year = 2026; $0.jobs = 2 }
        #expect(report.files.map(\.outcome) == [.failed, .ingested])
        #expect(try ws.count("SELECT count(*) FROM sources") == 1)
        #expect(try ws.count("SELECT count(*) FROM events") == 50)
    }

    @Test func corruptGzipDataAndTrailingGarbageAreErrorsToo() throws {
        let ws = try Workspace()
        var whole = try gzip(Array(BadInputTests.goodLog.utf8))
        whole[whole.count / 2] ^= 0xff
        whole[whole.count / 2 + 1] ^= 0xff
        let corrupt = try ws.write("corrupt.log.gz", whole)
        let garbage = try ws.write("garbage.log.gz", try gzip(Array(BadInputTests.goodLog.utf8)) + Array("not gzip".utf8))
        let report = try ws.ingest([corrupt, garbage]) { $0.parse.year = 2026 }
        #expect(report.files.allSatisfy { $0.outcome == .failed })
        #expect(report.files[0].error?.contains("gzip") == true)
        #expect(report.files[1].error?.contains("not another gzip member") == true)
        #expect(try ws.count("SELECT count(*) FROM events") == 0)
    }

    @Test func severalGzipMembersReadAsOneFile() throws {
        let ws = try Workspace()
        let lines = BadInputTests.goodLog.split(separator: "\n", omittingEmptySubsequences: true)
        let first = lines.prefix(20).joined(separator: "\n") + "\n"
        let second = lines.dropFirst(20).joined(separator: "\n") + "\n"
        let path = try ws.write("two.log.gz", try gzip(Array(first.utf8)) + (try gzip(Array(second.utf8))))
        let report = try ws.ingest([path]) { $0.parse.year = 2026 }
        #expect(report.files.first?.events == 50)
        #expect(try ws.count("SELECT gzip_members FROM sources") == 2)
    }

    @Test func unreadableAndUnknownFilesFailWithAHint() throws {
        let ws = try Workspace()
        let unknown = try ws.write("notes.txt", "hello\nworld\n")
        let empty = try ws.write("empty.log", "")
        let missing = ws.dir.appendingPathComponent("missing.log").path
        let report = try ws.ingest([unknown, empty, missing])
        #expect(report.files.map(\.outcome) == [.failed, .failed, .failed])
        #expect(report.files[0].error?.contains("--container") == true)
        #expect(report.files[1].error?.contains("empty") == true)
        #expect(report.files[2].error?.contains("cannot open") == true)
    }

    @Test func badLinesAreCountedAndSkippedNeverFatal() throws {
        let ws = try Workspace()
        var bytes: [UInt8] = []
        func line(_ s: String) { bytes += Array(s.utf8) + [0x0a] }
        line("[connected]")
        line(syslogLine("Nov 12 12:00:01", "Runner(CoreLocation)", 412, Messages.delivery()))
        line("--- last message repeated 2 time ---")
        line("garbage that is no record")
        line("Xyz 99 12:00:02 iPhone Runner[412] <Notice>: bad stamp")
        // Invalid UTF-8 inside a recognised message is repaired, and counted.
        bytes += Array(syslogLine("Nov 12 12:00:03", "locationd", 64, ##"{"msg":"#Authorization prompt", "bundleId":"com.ex"##).utf8)
        bytes += [0xff, 0xfe] + Array(#"", "kind":"WhenInUse", "options":"WhenInUse,Deny"}"#.utf8) + [0x0a]
        // Time going backwards is kept.
        line(syslogLine("Nov 12 11:59:00", "Runner(CoreLocation)", 412, Messages.privateDelivery))
        // A line of several megabytes.
        line(syslogLine("Nov 12 12:00:04", "Runner(CoreLocation)", 412, #"{"msg":"state transition", "event":"state_transition", "state":"LocationManager", "property":"paused", "old":0, "new":1, "pad":""# + String(repeating: "x", count: 3 << 20) + "\"}"))
        line("[disconnected]")
        let path = try ws.write("bad.log", bytes)
        let report = try ws.ingest([path]) { $0.parse.year = 2026 }
        let file = try #require(report.files.first)
        #expect(file.outcome == .ingested)
        #expect(file.events == 4)
        #expect(file.skipped == ["noise": 3, "bad-timestamp": 1, "malformed": 1])
        #expect(file.notes?["invalid-utf8"] == 1)
        #expect(file.notes?["time-backwards"] == 1)
        #expect(file.notes?["message-truncated"] == 1)
        let prompt = try #require(try ws.rows("SELECT * FROM events WHERE kind = 'prompt'").first)
        #expect((prompt["bundle_id"] as String).hasPrefix("com.ex"))
        #expect(prompt["prompt_kind"] as String == "WhenInUse")
        #expect(try ws.count("SELECT count(*) FROM events WHERE location_private = 1") == 1)
        #expect(try ws.count("SELECT count(*) FROM events WHERE property = 'paused' AND value = 1") == 1)
    }

    @Test func aGarbageLineBeforeAnyRecordIsMalformedAndAfterOneAContinuation() throws {
        let ws = try Workspace()
        let body = "garbage first\n" + syslogLine("Nov 12 12:00:01", "locationd", 64, ##"{"msg":"#Authorization prompt", "bundleId":"com.example.app","##) + "\n \"kind\":\"Always\", \"options\":\"WhenInUse,Always,Deny\"}\n"
        let report = try ws.ingest([try ws.write("c.log", body)]) { $0.parse.year = 2026 }
        let file = try #require(report.files.first)
        #expect(file.skipped?["malformed"] == 1)
        #expect(file.notes?["continuation"] == 1)
        let row = try #require(try ws.rows("SELECT * FROM events").first)
        #expect(row["prompt_kind"] as String == "Always")
        #expect(row["line"] as Int == 2)
    }

    @Test func nulSeparatedRecordsWithNewlinesAndVisEscapes() throws {
        let ws = try Workspace()
        var bytes: [UInt8] = []
        bytes += Array(syslogLine("Nov 12 12:00:01", "locationd", 64, ##"{"msg":"#Authorization prompt", "bundleId":"com.example.caf\M-C\M-)","##).utf8)
        bytes += Array("\n \"kind\":\"WhenInUse\", \"options\":\"WhenInUse,Deny\", \"path\":\"C:\\134tmp\"}".utf8) + [0]
        bytes += Array(syslogLine("Nov 12 12:00:02", "Runner(CoreLocation)", 412, Messages.delivery()).utf8) + [0]
        let report = try ws.ingest([try ws.write("nul.log", bytes)]) { $0.parse.year = 2026 }
        #expect(report.files.first?.events == 2)
        let prompt = try #require(try ws.rows("SELECT * FROM events WHERE kind = 'prompt'").first)
        #expect(prompt["bundle_id"] as String == "com.example.café")
        #expect((prompt["message"] as String).contains(#"C:\tmp"#))
        #expect(prompt["prompt_kind"] as String == "WhenInUse")
    }

    @Test func aMissingYearIsInferredAndRollsOverNewYear() throws {
        let ws = try Workspace()
        let body = [
            syslogLine("Dec 31 23:59:58", "Runner(CoreLocation)", 412, Messages.delivery(accuracy: 1)),
            syslogLine("Jan  1 00:00:01", "Runner(CoreLocation)", 412, Messages.delivery(accuracy: 2)),
        ].joined(separator: "\n") + "\n"
        let path = try ws.write("newyear.log", body)
        // The export was written on 2 January 2027: its first line is from 2026.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_798_848_000)], ofItemAtPath: path)
        _ = try ws.ingest([path])
        let times = try ws.rows("SELECT time FROM events ORDER BY line").map { $0["time"] as String }
        #expect(times == ["2026-12-31T23:59:58.000000Z", "2027-01-01T00:00:01.000000Z"])
        // --year names the first line's year.
        let ws2 = try Workspace()
        _ = try ws2.ingest([try ws2.write("y.log", body)]) { $0.parse.year = 2030 }
        #expect(try ws2.rows("SELECT time FROM events ORDER BY line").map { $0["time"] as String }
                == ["2030-12-31T23:59:58.000000Z", "2031-01-01T00:00:01.000000Z"])
    }

    @Test func aMissingZoneIsUTCUnlessGivenAndTheSourceSaysWhich() throws {
        let body = syslogLine("Jul  1 12:00:00", "Runner(CoreLocation)", 412, Messages.delivery()) + "\n"
        let ws = try Workspace()
        let report = try ws.ingest([try ws.write("z.log", body)]) { $0.parse.year = 2026 }
        #expect(report.files.first?.zoneAssumed == true)
        #expect(try ws.rows("SELECT time, utc_offset FROM events").first?["time"] as String? == "2026-07-01T12:00:00.000000Z")
        #expect(try ws.count("SELECT count(*) FROM events WHERE utc_offset IS NULL") == 1)
        #expect(try ws.count("SELECT zone_assumed FROM sources") == 1)
        let ws2 = try Workspace()
        let report2 = try ws2.ingest([try ws2.write("z.log", body)]) { $0.parse.year = 2026; $0.parse.zone = TimeZone(identifier: "Europe/Paris") }
        #expect(report2.files.first?.zoneAssumed == false)
        let row = try #require(try ws2.rows("SELECT time, utc_offset FROM events").first)
        #expect(row["time"] as String == "2026-07-01T10:00:00.000000Z")
        #expect(row["utc_offset"] as Int == 7200)
    }

    @Test func aMessageCutBeforeItsKeyFactIsCountedIncompleteNotStored() throws {
        let ws = try Workspace()
        let body = syslogLine("Nov 12 12:00:01", "locationd", 64, ##"{"msg":"#Authorization changed", "bundleId":"com.example.app", "status":"##) + "\n"
        let report = try ws.ingest([try ws.write("cut.log", body)]) { $0.parse.year = 2026 }
        #expect(report.files.first?.events == 0)
        #expect(report.files.first?.skipped?["incomplete"] == 1)
        #expect(report.files.first?.heldBackFrom == nil, "a whole line whose message is cut: no line held back")
    }

    @Test func theYearComesFromTheDateInTheFileNameBeforeItsModificationTime() throws {
        let ws = try Workspace()
        let body = syslogLine("Dec 31 23:59:58", "Runner(CoreLocation)", 412, Messages.delivery()) + "\n"
        // Written today (git keeps no file times), named for the day of the export.
        let path = try ws.write("DEV-2027-01-01.log", body)
        _ = try ws.ingest([path])
        #expect(try ws.rows("SELECT time FROM events").first?["time"] as String? == "2026-12-31T23:59:58.000000Z")
    }

    @Test func theDeviceTimeZoneFromItsSidecarReadsZonelessStamps() throws {
        let ws = try Workspace()
        let path = try ws.write("DEV-2026-07-01.log", syslogLine("Jul  1 12:00:00", "Runner(CoreLocation)", 412, Messages.delivery()) + "\n")
        try ws.write("DEV-2026-07-01.ideviceinfo.txt", "DeviceName: DEV\nProductVersion: 17.5\nTimeZone: Europe/Paris\nUniqueDeviceID: U1\n")
        let report = try ws.ingest([path])
        #expect(report.files.first?.zoneAssumed == false)
        let row = try #require(try ws.rows("SELECT time, utc_offset FROM events").first)
        #expect(row["time"] as String == "2026-07-01T10:00:00.000000Z")
        #expect(row["utc_offset"] as Int == 7200)
    }

    @Test func aNULAfterALineEndIsNoExtraLine() throws {
        let ws = try Workspace()
        var bytes: [UInt8] = []
        for i in 1...3 { bytes += Array(syslogLine("Nov 12 12:00:0\(i)", "Runner(CoreLocation)", 412, Messages.delivery()).utf8) + [0x0a, 0] }
        let report = try ws.ingest([try ws.write("n.log", bytes)]) { $0.parse.year = 2026 }
        #expect(report.files.first?.linesRead == 3)
        #expect(report.files.first?.events == 3)
    }

    @Test func theBrokenSamplesFailOrDegradeAsTheirReadmeSays() throws {
        let ws = try Workspace()
        let broken = packageRoot.appendingPathComponent("samples/broken").path
        let report = try ws.ingest([broken])
        let cut = try #require(report.files.first { $0.path.hasSuffix("qa-iphone7-10-2026-11-19.log.gz") })
        #expect(cut.outcome == .failed)
        #expect(cut.error?.hasPrefix("at byte 4183: truncated gzip") == true)
        let mixed = try #require(report.files.first { $0.path.hasSuffix("qa-iphone6-8-2026-11-19.log") })
        #expect(mixed.outcome == .ingested)
        // Line 8 (`#CLIUA AppMonitor notification`) tells line 7's transition again.
        #expect(mixed.skipped == ["bad-timestamp": 1, "incomplete": 1, "repeat": 1])
        #expect(mixed.firstSkippedLine == ["bad-timestamp": 18, "incomplete": 30])
        #expect(mixed.notes?["time-backwards"] == 1)
        #expect(try ws.count("SELECT count(*) FROM events WHERE kind = 'status-change' AND status IS NULL") == 0)
        #expect(report.text().contains("bad-timestamp 1 (line 18), incomplete 1 (line 30)"))
    }

    @Test func anUnknownFileIsQuotedWithItsControlBytesEscaped() throws {
        let ws = try Workspace()
        let path = try ws.write("ctl.bin", [0x1b] + Array("[31mhello".utf8) + [0, 0x09] + Array("w\u{7f}orld ".utf8) + [0xff, 0xc3, 0xa9, 0x0a] + Array("more\n".utf8))
        let report = try ws.ingest([path])
        let error = try #require(report.files.first?.error)
        #expect(error.contains(#"line 1: "\x1b[31mhello\0\tw\x7forld \xffé""#), "\(error)")
        #expect(!error.unicodeScalars.contains { $0.properties.generalCategory == .control })
    }
}
