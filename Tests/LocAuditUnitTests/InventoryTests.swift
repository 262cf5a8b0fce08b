import Foundation
import GRDB
import Logging
import Testing
@testable import LocAuditAudit
@testable import LocAuditIngest
@testable import LocAuditModel
@testable import LocAuditRules
@testable import LocAuditReport

/// The device inventory's CSV (from NightlyRunTests.swift, in the test process).
@Suite struct InventoryTests {
    @Test("inventory files: header in any order, UDID match, errors name the line")
    func inventoryParsing() throws {
        let inventory = try Inventory.parse("os_version,udid,name\n17.4.1,00008101-XYZ,lab-7\n\n# retired\n", path: "i.csv")
        #expect(inventory.device(forLog: "/in/00008101-xyz-2026-11-21.log.gz")?.osVersion == "17.4.1")
        #expect(inventory.device(forLog: "/in/LAB-7-2026-11-21.log.gz")?.udid == "00008101-XYZ")
        #expect(inventory.device(forLog: "/in/lab-7.log.gz") == nil, "no date in the name: no match")
        #expect(inventory.device(forLog: "/in/lab-8-2026-11-21.log.gz") == nil)
        #expect(throws: InventoryError.self) { try Inventory.parse("name,os\nx,1\n", path: "i.csv") }
        do {
            _ = try Inventory.parse("udid,name,product_type,os_version\nA,b,c\n", path: "i.csv")
            Issue.record("a short row must fail")
        } catch let error as InventoryError {
            #expect(error.description.hasPrefix("i.csv:2:"))
        }
        #expect(throws: InventoryError.self) { try Inventory.parse("udid,name,product_type,os_version\nA,b,c,seventeen\n", path: "i.csv") }
    }
}
