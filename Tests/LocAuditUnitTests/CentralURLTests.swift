import Foundation
import Testing
@testable import LocAuditCentral

/// `--to`'s URL and where the password comes from: no server needed.
@Suite struct CentralURLTests {
    @Test("a URL with a password is refused with a sentence saying where the password goes; sslmode defaults to require")
    func passwordInURL() throws {
        #expect {
            try CentralURL("postgresql://host1:s3cret@db.lab/locaudit")
        } throws: { error in
            let text = "\(error)"
            return (error as? CentralError)?.exitCode == 2 && text.contains("PGPASSWORD") && text.contains("~/.pgpass") && !text.contains("s3cret")
        }
        let url = try CentralURL("postgresql://host1@db.lab:6432/locaudit")
        #expect(url.sslMode == .require && url.port == 6432 && url.user == "host1" && url.database == "locaudit")
        #expect(throws: CentralError.self) { try CentralURL("postgresql://host1@db.lab/locaudit?sslmode=maybe") }
        #expect(throws: CentralError.self) { try CentralURL("mysql://host1@db.lab/locaudit") }
    }

    @Test("~/.pgpass: the first matching line, * and escapes; a file others may read is refused")
    func pgpass() throws {
        let workspace = try Workspace()
        let file = try workspace.write("pgpass", "# comment\nother:5432:*:host1:nope\ndb.lab:*:locaudit:host1:pa\\:ss\n*:*:*:*:fallback\n")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        let url = try CentralURL("postgresql://host1@db.lab/locaudit")
        #expect(try Credentials.password(for: url, environment: ["PGPASSFILE": file]) == "pa:ss")
        #expect(try Credentials.password(for: url, environment: ["PGPASSFILE": file, "PGPASSWORD": "env"]) == "env")
        #expect(try Credentials.password(for: try CentralURL("postgresql://x@y/z"), environment: ["PGPASSFILE": file]) == "fallback")
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        #expect {
            try Credentials.password(for: url, environment: ["PGPASSFILE": file])
        } throws: { "\($0)".contains("chmod 600") }
    }
}
