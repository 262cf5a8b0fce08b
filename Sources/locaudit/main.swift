import LocAuditCommands
LocAudit.runMain()
