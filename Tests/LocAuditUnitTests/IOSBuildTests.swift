import Testing
@testable import LocAuditModel

@Suite struct IOSBuildTests {
    @Test("builds give versions: exact from the table, else the train's major and the letter's minor")
    func versions() {
        #expect(IOSBuild.version(build: "20A362")! == ("16.0", true))
        #expect(IOSBuild.version(build: "17A844")! == ("13.1", true), "the letter would say 13.0")
        #expect(IOSBuild.version(build: "22B101")! == ("18.1", false))
        #expect(IOSBuild.version(build: "23C55")! == ("26.2", false), "train 23 is iOS 26, not 19")
        #expect(IOSBuild.version(build: "19B75")! == ("15.1", false))
        #expect(IOSBuild.version(build: "10A403") == nil)
        #expect(IOSBuild.version(build: "24A1") == nil)
        #expect(IOSBuild.version(build: "20a362") == nil)
    }

    @Test("the build is found in a sysdiagnose's name, not in other names")
    func inName() {
        #expect(IOSBuild.build(inName: "/x/sysdiagnose_2025.04.07_08-50-13-0700_iPhone-OS_iPhone_20A362.tar.gz") == "20A362")
        #expect(IOSBuild.build(inName: "sysdiagnose_2023.01.01_12-00-00+0100_iPhone-OS_iPad_21F90b.tar.gz") == "21F90b")
        #expect(IOSBuild.build(inName: "qa-iphone-2026-11-20.tar.gz") == nil)
    }
}
