/// A key assets can be sorted by, named as in PhotoKit's `NSSortDescriptor(key:)`.
public enum AssetSortKey: String, Sendable, Hashable, CaseIterable {
    /// `creationDate`.
    case creationDate
    /// `modificationDate`.
    case modificationDate
    /// `pixelWidth`.
    case pixelWidth
    /// `pixelHeight`.
    case pixelHeight
    /// `duration`.
    case duration
    /// `isFavorite`.
    case isFavorite
    /// `isHidden`.
    case isHidden
    /// `mediaType`.
    case mediaType
    /// `localIdentifier`.
    case localIdentifier
}

/// One sort key and its direction (PhotoKit: `NSSortDescriptor(key:ascending:)`).
public struct AssetSortDescriptor: Sendable, Hashable {
    /// The key compared.
    public var key: AssetSortKey
    /// Ascending (true) or descending.
    public var ascending: Bool

    /// Creates a sort descriptor.
    public init(key: AssetSortKey, ascending: Bool = true) {
        self.key = key
        self.ascending = ascending
    }

    /// Parses `KEY[:asc|desc]` as the CLI takes it, e.g. `creationDate:desc`.
    public init(parsing text: String) throws(PhotoLibError) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count <= 2, let key = AssetSortKey(rawValue: parts[0]) else {
            let keys = AssetSortKey.allCases.map(\.rawValue).joined(separator: ", ")
            throw PhotoLibError(.invalidArgument, "unknown sort key '\(parts[0])': expected one of \(keys), optionally followed by :asc or :desc")
        }
        var ascending = true
        if parts.count == 2 {
            switch parts[1] {
            case "asc": ascending = true
            case "desc": ascending = false
            default:
                throw PhotoLibError(.invalidArgument, "sort direction '\(parts[1])' in '\(text)' must be asc or desc")
            }
        }
        self.init(key: key, ascending: ascending)
    }
}
