import PhotoLibCore

/// Which assets to fetch, in which order: the store's side of `PHFetchOptions` plus the
/// collection and media-type variants of `fetchAssets`.
public struct AssetQuery: Sendable, Hashable {
    /// An album or smart-album identifier to fetch from, or `nil` for the whole library.
    public var collection: String?
    /// Sort order. Empty: creation date ascending (a user album: the album's own order).
    /// The local identifier always ends the order, so that it is total and stable.
    public var sortDescriptors: [AssetSortDescriptor]
    /// At most this many identifiers (0: no limit).
    public var fetchLimit: Int
    /// Whether hidden assets are included (the Hidden smart album always shows them).
    public var includeHiddenAssets: Bool
    /// Only assets of this media type.
    public var mediaType: MediaType?
    /// Only assets with these identifiers (order still follows ``sortDescriptors``).
    public var identifiers: [String]?
    /// Only assets matching this predicate (docs/PREDICATES.md), in addition to the other filters.
    public var predicate: AssetPredicate?
    /// Only assets in this limited client's selection (its view of the library); `nil`: no
    /// such restriction. Part of the query's identity: two clients' views never share a
    /// snapshot or a live result.
    public var limitedTo: String?

    /// The most identifiers ``identifiers`` may hold.
    public static let maximumIdentifierCount = 100_000

    /// Creates a query; the default is every visible asset, oldest first.
    public init(
        collection: String? = nil, sortDescriptors: [AssetSortDescriptor] = [], fetchLimit: Int = 0,
        includeHiddenAssets: Bool = false, mediaType: MediaType? = nil, identifiers: [String]? = nil,
        predicate: AssetPredicate? = nil
    ) {
        self.collection = collection
        self.sortDescriptors = sortDescriptors
        self.fetchLimit = fetchLimit
        self.includeHiddenAssets = includeHiddenAssets
        self.mediaType = mediaType
        self.identifiers = identifiers
        self.predicate = predicate
    }

    /// A query from PhotoKit-style fetch options WITHOUT their predicate text, which this
    /// non-throwing initializer cannot report errors for: use ``from(options:collection:mediaType:)``,
    /// which parses it.
    public init(options: FetchOptions, collection: String? = nil, mediaType: MediaType? = nil) {
        self.init(
            collection: collection, sortDescriptors: options.sortDescriptors, fetchLimit: options.fetchLimit,
            includeHiddenAssets: options.includeHiddenAssets, mediaType: mediaType)
    }
}
