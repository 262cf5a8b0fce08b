import LocAuditModel
import LocAuditReplay

/// The Apple pages and WWDC sessions the rules enforce (docs/rules-model.md quotes them).
enum Apple {
    static let allowsBackgroundLocationUpdates = "https://developer.apple.com/documentation/corelocation/cllocationmanager/allowsbackgroundlocationupdates"
    static let showsBackgroundLocationIndicator = "https://developer.apple.com/documentation/corelocation/cllocationmanager/showsbackgroundlocationindicator"
    static let requestAlwaysAuthorization = "https://developer.apple.com/documentation/corelocation/cllocationmanager/requestalwaysauthorization()"
    static let requestWhenInUseAuthorization = "https://developer.apple.com/documentation/corelocation/cllocationmanager/requestwheninuseauthorization()"
    static let requestTemporaryFullAccuracy = "https://developer.apple.com/documentation/corelocation/cllocationmanager/requesttemporaryfullaccuracyauthorization(withpurposekey:completion:)"
    static let accuracyAuthorization = "https://developer.apple.com/documentation/corelocation/cllocationmanager/accuracyauthorization"
    static let pausesLocationUpdatesAutomatically = "https://developer.apple.com/documentation/corelocation/cllocationmanager/pauseslocationupdatesautomatically"
    static let startMonitoringSignificantLocationChanges = "https://developer.apple.com/documentation/corelocation/cllocationmanager/startmonitoringsignificantlocationchanges()"
    static let authorizedWhenInUse = "https://developer.apple.com/documentation/corelocation/clauthorizationstatus/authorizedwheninuse"
    static let choosingAuthorization = "https://developer.apple.com/documentation/bundleresources/choosing-the-location-services-authorization-to-request"
    static let requestingAuthorization = "https://developer.apple.com/documentation/corelocation/requesting-authorization-to-use-location-services"
    static let backgroundUpdates = "https://developer.apple.com/documentation/corelocation/handling-location-updates-in-the-background"
    static let locationButton = "https://developer.apple.com/documentation/corelocationui/cllocationbutton"
    static let backgroundActivitySession = "https://developer.apple.com/documentation/corelocation/clbackgroundactivitysession-3mzv3"
    static let serviceSession = "https://developer.apple.com/documentation/corelocation/clservicesession-pt7n"
    static let alwaysUsageKey = "https://developer.apple.com/documentation/bundleresources/information-property-list/nslocationalwaysusagedescription"
    static let alwaysAndWhenInUseUsageKey = "https://developer.apple.com/documentation/bundleresources/information-property-list/nslocationalwaysandwheninuseusagedescription"
    static let temporaryUsageDictionary = "https://developer.apple.com/documentation/bundleresources/information-property-list/nslocationtemporaryusagedescriptiondictionary"
    static let defaultAccuracyReduced = "https://developer.apple.com/documentation/bundleresources/information-property-list/nslocationdefaultaccuracyreduced"
    static let uiBackgroundModes = "https://developer.apple.com/documentation/bundleresources/information-property-list/uibackgroundmodes"
    static let backgroundExecutionModes = "https://developer.apple.com/documentation/xcode/configuring-background-execution-modes"
    static let whenInUseUsageKey = "https://developer.apple.com/documentation/bundleresources/information-property-list/nslocationwheninuseusagedescription"
    static let feedbackAssistant = "https://feedbackassistant.apple.com"
    static let bugReportingProfiles = "https://developer.apple.com/bug-reporting/profiles-and-logs/"
    static let wwdc23StreamlinedUpdates = "WWDC23 \"Discover streamlined location updates\" https://developer.apple.com/videos/play/wwdc2023/10180/"
    static let wwdc24LocationAuthorization = "WWDC24 \"What's new in location authorization\" https://developer.apple.com/videos/play/wwdc2024/10212/"
}
