import LocAuditNormalise

/// One column of the documented `events` view (docs/schema.md): its name, type, whether it
/// may be NULL, how `event_rows` keeps it, and which catalog column fills it.
package struct EventField: Sendable {
    package enum ValueType: Sendable {
        case integer, real, text
        /// `value`: a whole number as an integer, anything else as text (text in PostgreSQL).
        case integerOrText
    }

    /// How `event_rows` keeps the column.
    package enum Storage: Sendable, Equatable {
        /// As it is, under its own name.
        case plain
        /// A name repeated on many rows: its id in `names`, in this `_ref` column.
        case named(String)
        /// In `event_messages`, as a format and its arguments (`message`).
        case message
        /// Computed when read, not stored (`time`, from `time_us`).
        case computed
    }

    package let name: String
    package let type: ValueType
    package let nullable: Bool
    package let storage: Storage
    /// The catalog column that fills it, when a catalog pattern can.
    package let catalog: EventColumn?

    /// Its column in `event_rows`; nil when it is kept elsewhere or computed.
    package var rowColumn: String? {
        switch storage {
        case .plain: name
        case .named(let ref): ref
        case .message, .computed: nil
        }
    }

    /// Its type in the central PostgreSQL store.
    package var postgresType: String {
        switch type {
        case .integer: "bigint"
        case .real: "double precision"
        case .text, .integerOrText: "text"
        }
    }
}

/// The `events` view's columns, in its order: the one definition of a stored event field.
/// The writer (`EventWriter`), the audit's read (`AppEvent.read`), a store's copy
/// (`StoreCopy`) and the central store's push derive their column lists from it; the
/// migrations (the only place a past shape is frozen) and docs/schema.md are checked against
/// it by `EventFieldsTests`. Adding a field: docs/architecture.md, "Where to add".
package enum EventFields {
    package static let all: [EventField] = [
        field("id", .integer, nullable: false),
        field("source_id", .integer, nullable: false),
        field("line", .integer, nullable: false),
        field("device_id", .text, nullable: false, storage: .named("device_ref")),
        field("time_us", .integer, nullable: false),
        field("time", .text, nullable: false, storage: .computed),
        field("utc_offset", .integer),
        field("process", .text, storage: .named("process_ref")),
        field("pid", .integer),
        field("app_pid", .integer, catalog: .appPid),
        field("bundle_id", .text, storage: .named("bundle_ref"), catalog: .bundleId),
        field("bundle_via", .text, storage: .named("via_ref")),
        field("kind", .text, nullable: false, storage: .named("kind_ref")),
        field("pattern", .text, nullable: false, storage: .named("pattern_ref")),
        field("status", .text, catalog: .status),
        field("accuracy", .text, catalog: .accuracy),
        field("temporary", .integer, catalog: .temporary),
        field("provisional", .integer, catalog: .provisional),
        field("reason", .text, catalog: .reason),
        field("app_state", .text, catalog: .appState),
        field("service", .text, catalog: .service),
        field("call", .text, catalog: .call),
        field("horizontal_accuracy", .real, catalog: .horizontalAccuracy),
        field("latitude", .real, catalog: .latitude),
        field("longitude", .real, catalog: .longitude),
        field("location_private", .integer, catalog: .locationPrivate),
        field("property", .text, catalog: .property),
        field("value", .integerOrText, catalog: .value),
        field("prompt_kind", .text, catalog: .promptKind),
        field("prompt_options", .text, catalog: .promptOptions),
        field("choice", .text, catalog: .choice),
        field("purpose_key", .text, catalog: .purposeKey),
        field("visible", .integer, catalog: .visible),
        field("intent", .text, catalog: .intent),
        field("message", .text, nullable: false, storage: .message),
        field("fingerprint", .integer, nullable: false),
        field("user_kill", .integer, catalog: .userKill),
    ]

    private static func field(_ name: String, _ type: EventField.ValueType, nullable: Bool = true,
                              storage: EventField.Storage = .plain, catalog: EventColumn? = nil) -> EventField {
        EventField(name: name, type: type, nullable: nullable, storage: storage, catalog: catalog)
    }

    /// The field of a name; a name not in `all` is a programming error (the tests read every
    /// name this code asks for).
    package static func named(_ name: String) -> EventField {
        guard let field = all.first(where: { $0.name == name }) else { preconditionFailure("no event field \(name)") }
        return field
    }

    /// The field a catalog column fills.
    package static func filled(by column: EventColumn) -> EventField {
        guard let field = all.first(where: { $0.catalog == column }) else { preconditionFailure("no event field for \(column)") }
        return field
    }

    /// What a copy of a store's events carries, in order: every column but the computed ones.
    package static let copied: [EventField] = all.filter { $0.storage != .computed }
}
