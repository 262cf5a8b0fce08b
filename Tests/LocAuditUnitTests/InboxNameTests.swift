import Foundation
import Testing
@testable import LocAuditIngest
@testable import LocAuditModel

/// An inbox file's name from a device's name (from CaptureTests.swift, in the test process).
@Suite struct InboxNameTests {
    @Test("device names as file names: safe characters kept, others a dash, extensions that would cut the sidecar's stem defused")
    func sanitisedNames() {
        #expect(InboxName.sanitised("QA iPad 12") == "QA-iPad-12")
        #expect(InboxName.sanitised("Anna’s iPhone") == "Anna-s-iPhone")
        #expect(InboxName.sanitised("../etc/passwd") == "etc-passwd")
        #expect(InboxName.sanitised("my.log.device") == "my_log.device")
        #expect(InboxName.sanitised("   ") == nil)
        #expect(InboxName.sanitised("📱") == nil)
    }
}
