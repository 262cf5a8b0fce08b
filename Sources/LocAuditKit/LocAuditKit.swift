// The library product: `import LocAuditKit` brings every layer's public API.
@_exported import LocAuditAudit
@_exported import LocAuditIngest
@_exported import LocAuditModel
@_exported import LocAuditReplay
@_exported import LocAuditRules
@_exported import LocAuditNormalise
@_exported import LocAuditRead
@_exported import LocAuditReport
@_exported import LocAuditStore
@_exported import LocAuditCentral
