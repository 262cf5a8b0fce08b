import LocAuditModel
import LocAuditReplay

/// Every rule, in the order of rules-model.md.
public enum RuleRegistry {
    public static let sessionRules: [any SessionRule] = [
        DeliveryWithoutAuthorizationRule(),
        BackgroundDeliveryWithoutCapabilityRule(),
        MissingBlueBarRule(),
        UnexpectedBlueBarRule(),
        AllowOncePersistingRule(),
        TemporaryPrecisePersistingRule(),
        PreciseDeliveryUnderReducedAccuracyRule(),
        GrantWithoutUsageDescriptionRule(),
        DirectAlwaysGrantRule(),
        RepeatedAlwaysPromptRule(),
        TemporaryPreciseWithoutAuthorizationRule(),
        RelaunchWithoutAlwaysRule(),
        DeliveryAfterTerminationRule(),
        DeliveryWhilePausedRule(),
        StatusInvalidForOSRule(),
        BackgroundUpdatesStartedInBackgroundRule(),
    ]

    public static let configurationRules: [any ConfigurationRule] = [
        MissingUsageDescriptionRule(),
        BackgroundFlagWithoutCapabilityRule(),
        DeprecatedUsageKeyRule(),
        InvalidDefaultAccuracyReducedRule(),
    ]

    /// Every rule's description.
    public static var descriptions: [RuleDescription] {
        sessionRules.map { type(of: $0).description } + configurationRules.map { type(of: $0).description }
    }

    public static func description(of identifier: String) -> RuleDescription? {
        descriptions.first { $0.identifier == identifier }
    }
}
