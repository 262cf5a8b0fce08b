import Foundation
import GRDB

/// A JSON column (`usage_keys`, `evidence`, `notes`): nil when it is NULL or not JSON of
/// this type, as locaudit has always read a damaged column: as absent, never a failure.
struct JSONColumn<Value: Codable>: DatabaseValueConvertible, Decodable {
    var value: Value?

    init(_ value: Value?) { self.value = value }

    /// (GRDB reads the column through `fromDatabaseValue`; this is Decodable's own way in.)
    init(from decoder: any Decoder) throws {
        self.init(Self.decode(try decoder.singleValueContainer().decode(String?.self)))
    }

    var databaseValue: DatabaseValue { value.map { jsonText($0) }.databaseValue }

    static func fromDatabaseValue(_ dbValue: DatabaseValue) -> JSONColumn? {
        JSONColumn(decode(String.fromDatabaseValue(dbValue)))
    }

    private static func decode(_ text: String?) -> Value? {
        guard let text else { return nil }
        return try? JSONDecoder().decode(Value.self, from: Data(text.utf8))
    }
}
