import Foundation
import Glibc
import Testing
@testable import LocAuditRead
@testable import LocAuditStore

/// The progress line's text (from ProgressTests.swift, in the test process).
@Suite struct ProgressLineTests {
    @Test("the bar's line fits 80 columns and says where the step is")
    func line() {
        let audit = ProgressBar(quiet: false, terminal: true, write: { _ in })
        audit.start("checking rules", total: 1392, unit: "sessions")
        audit.advance(to: 600)
        let line = audit.line(elapsed: 2)
        #expect(line.hasPrefix("checking rules  ████████░░░░░░░░░░░░  43.1%  600 of 1,392 sessions  "))
        #expect(line.hasSuffix(" left") && line.count < 80)
        let ingest = ProgressBar(totalBytes: 300_000_000, files: 12, quiet: false, terminal: true, write: { _ in })
        ingest.update(path: "a.log.gz", offset: 120_000_000)
        ingest.fileDone()
        ingest.fileDone()
        let bytes = ingest.line(elapsed: 10)
        #expect(bytes.contains("120 of 300 MB  2 of 12 files  12.0 MB/s  ") && bytes.count < 80, "\(bytes)")
        let auditing = ProgressBar(quiet: false, terminal: true, write: { _ in })
        auditing.start("auditing", total: 1392, unit: "apps")
        auditing.advance(to: 600, detail: "1,234,567 sessions")
        let widest = auditing.line(elapsed: 2000)
        #expect(widest.hasPrefix("auditing  █████░░░░░░░  43.1%  600/1,392 apps  1,234,567 sessions  ") && widest.hasSuffix(" left"), "\(widest)")
        #expect(widest.count < 80, "\(widest.count) columns: \(widest)")
        let reading = ProgressBar(quiet: false, terminal: true, write: { _ in })
        reading.start("reading events", unit: "events")
        reading.advance(to: 1_234_567)
        #expect(reading.line(elapsed: 1) == "reading events  1,234,567 events")
    }
}
