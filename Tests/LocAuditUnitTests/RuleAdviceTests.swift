import Foundation
import FoundationXML
import Testing
@testable import LocAuditModel
@testable import LocAuditRules
@testable import LocAuditReport

/// What every rule tells people to do (from ReportFormatsTests.swift, in the test process).
@Suite struct RuleAdviceTests {
    @Test("every rule names its owner and what to do, and its references are Apple's pages and WWDC sessions, not seed notes")
    func everyRuleSaysWhatToDo() {
        for rule in RuleRegistry.descriptions {
            #expect(!rule.remedy.isEmpty && rule.remedy.hasSuffix("."), "\(rule.identifier): a remedy sentence")
            #expect(!rule.sources.isEmpty, "\(rule.identifier) cites no Apple source")
            for source in rule.sources {
                let url = AppleSource.url(source)
                #expect(url?.hasPrefix("https://developer.apple.com/") == true, "\(rule.identifier): \(source) is no Apple page")
            }
            #expect(rule.helpURL == rule.sources.first.flatMap(AppleSource.url), "\(rule.identifier)")
            #expect(rule.rationale.range(of: #"\b00[1-4]\b"#, options: .regularExpression) == nil,
                    "\(rule.identifier)'s rationale cites a seed note, which nobody outside can open")
            if rule.owner == .iOS {
                #expect(rule.whatToDo.contains("Feedback Assistant") && rule.whatToDo.contains("evidence lines"), "\(rule.identifier)")
            } else {
                #expect(!rule.whatToDo.contains("Feedback Assistant") || rule.owner == .testSetup, "\(rule.identifier)")
            }
        }
        // Each owner is some rule's: the enum is not decoration.
        #expect(Set(RuleRegistry.descriptions.map(\.owner)) == Set(RuleOwner.allCases))
    }
}
