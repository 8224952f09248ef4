/// How to fetch assets: PhotoKit's `PHFetchOptions`.
public struct FetchOptions: Sendable, Hashable {
    /// A predicate in PhotoLib's predicate grammar (see docs/PREDICATES.md), or `nil` for all.
    public var predicate: String?
    /// Sort order; empty means the library's default (creation date ascending, then identifier).
    public var sortDescriptors: [AssetSortDescriptor]
    /// At most this many assets (0: no limit).
    public var fetchLimit: Int
    /// Whether hidden assets are included.
    public var includeHiddenAssets: Bool

    /// Creates fetch options.
    public init(predicate: String? = nil, sortDescriptors: [AssetSortDescriptor] = [], fetchLimit: Int = 0, includeHiddenAssets: Bool = false) {
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.fetchLimit = fetchLimit
        self.includeHiddenAssets = includeHiddenAssets
    }
}
