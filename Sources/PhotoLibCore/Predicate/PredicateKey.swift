/// The type of the values a predicate key holds, which decides the literals and operators
/// a comparison on that key accepts (see docs/PREDICATES.md).
public enum PredicateValueType: Sendable, Hashable {
    /// An instant, compared at microsecond precision; ISO 8601 literals.
    case date
    /// A signed 64-bit integer; integer literals only.
    case integer
    /// A double; integer or decimal literals.
    case double
    /// `true` / `false`; `==`, `!=` and `IN` only.
    case boolean
    /// A ``MediaType`` by name (`image`, `video`…); `==`, `!=` and `IN` only.
    case mediaType
    /// A ``MediaSubtypes`` bit set, compared bit by bit with subtype names; `==` (has the
    /// bit), `!=` (lacks it) and `IN` (has any of them) only.
    case mediaSubtypes
    /// Text compared byte by byte in UTF-8; `nullable` keys also accept `nil`.
    case string(nullable: Bool)

    /// How error messages name the type: "a date (ISO 8601, …)", "an integer"…
    public var readableName: String {
        switch self {
        case .date: return "a date (ISO 8601, e.g. 2024-01-31 or 2024-01-31T10:00:00Z)"
        case .integer: return "an integer"
        case .double: return "a number"
        case .boolean: return "true or false"
        case .mediaType: return "a media type (\(MediaType.allCases.map(\.name).joined(separator: ", ")))"
        case .mediaSubtypes: return "a media subtype (\(MediaSubtypes.named.map(\.name).joined(separator: ", ")))"
        case .string(let nullable): return nullable ? "a string in double quotes or nil" : "a string in double quotes"
        }
    }

    /// Whether `<`, `<=`, `>`, `>=` apply.
    public var isOrdered: Bool {
        switch self {
        case .date, .integer, .double, .string: return true
        case .boolean, .mediaType, .mediaSubtypes: return false
        }
    }
}

/// The closed catalogue of asset keys a predicate may test, spelled exactly as PhotoKit's
/// `PHAsset` properties (case-sensitive).
public enum PredicateKey: String, Sendable, Hashable, CaseIterable {
    /// `Asset.mediaType`.
    case mediaType
    /// `Asset.mediaSubtypes`.
    case mediaSubtypes
    /// `Asset.creationDate`.
    case creationDate
    /// `Asset.modificationDate`.
    case modificationDate
    /// `Asset.isFavorite`.
    case isFavorite
    /// `Asset.isHidden`.
    case isHidden
    /// `Asset.pixelWidth`.
    case pixelWidth
    /// `Asset.pixelHeight`.
    case pixelHeight
    /// `Asset.duration` in seconds.
    case duration
    /// `Asset.burstIdentifier`, which may be nil.
    case burstIdentifier
    /// `Asset.localIdentifier`.
    case localIdentifier

    /// The type of the key's values.
    public var valueType: PredicateValueType {
        switch self {
        case .mediaType: return .mediaType
        case .mediaSubtypes: return .mediaSubtypes
        case .creationDate, .modificationDate: return .date
        case .isFavorite, .isHidden: return .boolean
        case .pixelWidth, .pixelHeight: return .integer
        case .duration: return .double
        case .burstIdentifier: return .string(nullable: true)
        case .localIdentifier: return .string(nullable: false)
        }
    }
}
