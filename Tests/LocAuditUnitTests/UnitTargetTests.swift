import Foundation
import Testing

/// This target runs in the test process only (docs/architecture.md, "Tests"): `run` and the
/// built binary's path are the end-to-end target's, and no file here starts a program another
/// way. A test that needs one belongs in LocAuditKitTests.
@Suite struct UnitTargetTests {
    @Test("no file of the unit target starts a program: no Process, posix_spawn, fork, shell, server or browser")
    func startsNoProgram() throws {
        let dir = packageRoot.appendingPathComponent("Tests/LocAuditUnitTests")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".swift") && $0 != "UnitTargetTests.swift" }
        #expect(files.count > 30)
        let starts = try [#"(?<![A-Za-z])Process\(\)"#, "posix_spawn", #"(?<![A-Za-z.])v?fork\("#, #"ShellFolder\("#, "PostgresCluster",
                      #"Chromium\."#, "locauditExecutable", #""/bin/(ba)?sh""#].map { try NSRegularExpression(pattern: $0) }
        for file in files {
            let text = try String(contentsOf: dir.appendingPathComponent(file), encoding: .utf8)
            for start in starts {
                let found = start.firstMatch(in: text, range: NSRange(text.startIndex..., in: text))
                #expect(found == nil, "\(file) starts a program (\(start.pattern)): a test that needs one belongs in LocAuditKitTests")
            }
        }
    }
}
