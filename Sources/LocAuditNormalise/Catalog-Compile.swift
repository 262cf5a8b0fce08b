import Foundation
import LocAuditModel

/// Where a pattern's keys are among the slots of its `msg`'s keys (`CompiledPattern.slots(in:)`).
struct PatternSlots: Sendable {
    /// The key of each `when`, in order.
    let when: [SlotKeys.Node]
    /// The key of each source of each field (nil for a regex group).
    let sources: [[SlotKeys.Node?]]
}

/// A pattern with its regular expression compiled and its columns typed. A class: the
/// recogniser picks patterns out of the catalog's array for every candidate line, and a
/// struct of this many references was copied (retained and released field by field) each time.
final class CompiledPattern: Sendable {
    let pattern: CatalogPattern
    let regex: NSRegularExpression?
    /// The regex's named groups.
    let groups: Set<String>
    /// Column <- its sources, in order: message key paths (lower case, split once: this runs
    /// for every event) or regex group names; and the named decoder it is read by, if any.
    let fields: [(column: EventColumn, sources: [Source], decoder: ValueDecoder?)]
    /// Key (lower case) -> accepted values.
    let when: [(String, [String])]
    let constants: [(EventColumn, ColumnValue)]
    let required: [EventColumn]

    enum Source {
        case key([String])
        case group(String)
    }

    init(_ p: CatalogPattern) throws {
        pattern = p
        if let source = p.regex {
            do { regex = try NSRegularExpression(pattern: source) } catch {
                throw CatalogError(description: "pattern \"\(p.id)\": invalid regex \(source): \(error.localizedDescription)")
            }
            let names = try NSRegularExpression(pattern: "\\(\\?<([A-Za-z][A-Za-z0-9]*)>")
            groups = Set(names.matches(in: source, range: NSRange(source.startIndex..., in: source)).compactMap {
                Range($0.range(at: 1), in: source).map { String(source[$0]) }
            })
        } else {
            regex = nil
            groups = []
        }
        func column(_ name: String) throws -> EventColumn {
            guard let c = EventColumn(rawValue: name) else {
                throw CatalogError(description: "pattern \"\(p.id)\": unknown column \"\(name)\"; columns are \(EventColumn.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return c
        }
        var decoders: [EventColumn: ValueDecoder] = [:]
        for (name, decoderName) in p.decode ?? [:] {
            let c = try column(name)
            guard let decoder = ValueDecoder(rawValue: decoderName) else {
                throw CatalogError(description: "pattern \"\(p.id)\": unknown decoder \"\(decoderName)\" for \"\(name)\"; decoders are \(ValueDecoder.names)")
            }
            guard decoder.columns.contains(c) else {
                throw CatalogError(description: "pattern \"\(p.id)\": the decoder \"\(decoderName)\" fills \(decoder.columns.map(\.rawValue).sorted().joined(separator: ", ")), not \"\(name)\"")
            }
            guard p.fields?[name] != nil else {
                throw CatalogError(description: "pattern \"\(p.id)\": \"decode\" names \"\(name)\", which \"fields\" does not read")
            }
            decoders[c] = decoder
        }
        let isText = p.msg == nil
        let groups = self.groups
        fields = try (p.fields ?? [:]).sorted { $0.key < $1.key }.map { name, spec in
            let c = try column(name)
            return (c, try spec.split(separator: "|").map { alternative in
                let name = String(alternative)
                if isText || groups.contains(name) { return Source.group(name) }
                let parts = name.lowercased().split(separator: ".").map(String.init)
                guard parts.count <= MessageFields.maxDepth else {
                    throw CatalogError(description: "pattern \"\(p.id)\": the key path of \"\(name)\" has \(parts.count) levels; no message nests deeper than \(MessageFields.maxDepth)")
                }
                return Source.key(parts)
            }, decoders[c])
        }
        when = (p.when ?? [:]).sorted { $0.key < $1.key }.map { ($0.key.lowercased(), $0.value) }
        required = try (p.require ?? []).map(column)
        constants = try (p.set ?? [:]).sorted { $0.key < $1.key }.compactMap { name, raw in
            let c = try column(name)
            return Normaliser.value(.string(raw), for: c).map { (c, $0) }
        }
    }

    /// The message key paths the pattern reads.
    var paths: [[String]] {
        fields.flatMap { $0.sources.compactMap { if case .key(let path) = $0 { return path } else { return nil } } }
    }

    /// The event, or `incomplete` when a required column is missing.
    func complete(_ event: Event) -> Recognition {
        required.allSatisfy { event[$0] != nil } ? .event(event) : .incomplete(pattern: pattern.id)
    }

    /// Whether the pattern reads lines of this process.
    private func accepts(_ process: String?) -> Bool {
        guard let wanted = pattern.process else { return true }
        guard let process else { return false }
        return wanted.contains(process)
    }

    /// The regex's match in `text`: nil when the pattern has a regex and it does not match.
    private func match(_ text: String) -> NSTextCheckingResult?? {
        guard let regex else { return .some(nil) }
        guard let m = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) else { return nil }
        return .some(m)
    }

    private func group(_ name: String, of match: NSTextCheckingResult?, in text: String) -> FieldValue? {
        guard let match else { return nil }
        let r = match.range(withName: name)
        guard r.location != NSNotFound, let sr = Range(r, in: text) else { return nil }
        return .string(String(text[sr]))
    }

    /// The event of a JSON-like message (keys in lower case), if its `when` conditions hold.
    /// A regex, when the pattern has one, runs over the message as logged and must match.
    func event(fields values: [String: FieldValue], text: String, process: String?) -> Event? {
        guard accepts(process) else { return nil }
        for (key, accepted) in when {
            guard let v = values[key], accepted.contains(Normaliser.plain(v)) as Bool else { return nil }
        }
        guard let found = match(text) else { return nil }
        return event { _, _, source in
            switch source {
            case .key(let path): return MessageFields.lookup(path, in: values)
            case .group(let name): return group(name, of: found, in: text)
            }
        }
    }

    /// The slots of the keys this pattern reads (`when` in order; each field's sources, nil
    /// for a regex group), in the slots of its `msg`'s keys; nil if one is not there.
    func slots(in keys: SlotKeys) -> PatternSlots? {
        var whenKeys: [SlotKeys.Node] = []
        for (key, _) in when {
            guard let node = keys.node(of: [key]) else { return nil }
            whenKeys.append(node)
        }
        var sources: [[SlotKeys.Node?]] = []
        for field in fields {
            var nodes: [SlotKeys.Node?] = []
            for source in field.sources {
                switch source {
                case .key(let path):
                    guard let node = keys.node(of: path) else { return nil }
                    nodes.append(node)
                case .group: nodes.append(nil)
                }
            }
            sources.append(nodes)
        }
        return PatternSlots(when: whenKeys, sources: sources)
    }

    /// `event(fields:text:process:)` with the message's keys read into slots.
    func event(slots: [FieldValue?], map: PatternSlots, text: String, process: String?) -> Event? {
        guard accepts(process) else { return nil }
        for n in when.indices {
            guard let v = SlotKeys.value(of: map.when[n], in: slots), when[n].1.contains(Normaliser.plain(v)) as Bool else { return nil }
        }
        guard let found = match(text) else { return nil }
        return event { field, alternative, source in
            switch source {
            case .key:
                guard let node = map.sources[field][alternative] else { return nil }
                // Whether a location is private needs only whether the value is hidden: an
                // object's keys are not looked at (`Normaliser.value(_:for:)`).
                if fields[field].column == .locationPrivate, fields[field].decoder == nil { return slots[node.slot] }
                return SlotKeys.value(of: node, in: slots)
            case .group(let name): return group(name, of: found, in: text)
            }
        }
    }

    /// The event of a plain-text message, if it contains the anchor (and matches the regex).
    func event(text: String, process: String?) -> Event? {
        guard accepts(process), let anchor = pattern.contains, TextSearch.contains(text, anchor), let found = match(text) else { return nil }
        return event { _, _, source in
            if case .group(let name) = source { return group(name, of: found, in: text) }
            return nil
        }
    }

    /// `read` gets each source with its field's place in `fields` and its own among the field's sources.
    private func event(_ read: (Int, Int, Source) -> FieldValue?) -> Event {
        var event = Event(kind: pattern.kind, pattern: pattern.id)
        // The pattern's columns and constants, and the pid or bundle the parser and writer may add.
        event.reserveColumns(fields.count + constants.count + 2)
        event.scope = pattern.scope
        for (field, (column, sources, decoder)) in fields.enumerated() {
            for (alternative, source) in sources.enumerated() {
                let raw = read(field, alternative, source)
                let value = if let decoder { Normaliser.value(raw, decodedBy: decoder) } else { Normaliser.value(raw, for: column) }
                if let value {
                    event[column] = value
                    break
                }
            }
        }
        for (column, value) in constants { event[column] = value }
        return event
    }
}
