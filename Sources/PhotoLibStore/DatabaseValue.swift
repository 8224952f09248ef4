/// A value bound to a statement parameter: SQLite's storage classes (blobs are not needed yet).
enum DatabaseValue: Sendable, Hashable {
    /// SQL NULL.
    case null
    /// A 64-bit signed integer.
    case integer(Int64)
    /// An IEEE double.
    case real(Double)
    /// UTF-8 text.
    case text(String)

    /// An integer value from a Swift `Int`.
    static func int(_ value: Int) -> DatabaseValue { .integer(Int64(value)) }
    /// 1 or 0.
    static func bool(_ value: Bool) -> DatabaseValue { .integer(value ? 1 : 0) }
    /// Text, or NULL for `nil`.
    static func optionalText(_ value: String?) -> DatabaseValue { value.map(DatabaseValue.text) ?? .null }
    /// A double, or NULL for `nil`.
    static func optionalReal(_ value: Double?) -> DatabaseValue { value.map(DatabaseValue.real) ?? .null }
}
