import PhotoLibCore

// PHFetchOptions and its scope ⇄ `FetchOptions` (library.proto).

extension Wire.FetchOptions {
    /// The message for `options` with the fetch's scope. A negative `fetchLimit` is
    /// `invalidArgument` (naming it), refused before anything is sent: the wire's
    /// `fetch_limit` is unsigned, where 0 means no limit. A limit beyond the wire's range
    /// (2^32 − 1) is sent as 2^32 − 1, which limits nothing a library holds.
    public init(_ options: FetchOptions, collectionIdentifier: String? = nil, localIdentifiers: [String] = [], mediaTypes: [MediaType] = []) throws(PhotoLibError) {
        guard options.fetchLimit >= 0 else {
            throw PhotoLibError(.invalidArgument, "fetchLimit \(options.fetchLimit) is negative: give 0 for no limit, or the most assets to fetch")
        }
        self.init(
            predicate: options.predicate ?? "", sortDescriptors: options.sortDescriptors.map(Wire.SortDescriptor.init),
            fetchLimit: UInt32(clamping: options.fetchLimit), includeHiddenAssets: options.includeHiddenAssets,
            collectionIdentifier: collectionIdentifier ?? "", localIdentifiers: localIdentifiers, mediaTypes: mediaTypes.map(Wire.MediaType.init))
    }

    /// Predicate, sort, limit and hidden; unknown sort keys are `invalidArgument`.
    public func domain() throws(PhotoLibError) -> FetchOptions {
        var sorts: [AssetSortDescriptor] = []
        for sort in sortDescriptors { sorts.append(try AssetSortDescriptor(sort)) }
        return FetchOptions(
            predicate: predicate.isEmpty ? nil : predicate, sortDescriptors: sorts,
            fetchLimit: Int(fetchLimit), includeHiddenAssets: includeHiddenAssets)
    }

    /// The media-type scope; unknown types are `invalidArgument`.
    public func domainMediaTypes() throws(PhotoLibError) -> [MediaType] {
        var types: [MediaType] = []
        for type in mediaTypes { types.append(try type.domain(field: "FetchOptions.media_types")) }
        return types
    }
}

extension Wire.SortDescriptor {
    /// The message for `sort` (AssetSortKey numbers follow AssetSortKey.allCases, from 1).
    public init(_ sort: AssetSortDescriptor) {
        let index = AssetSortKey.allCases.firstIndex(of: sort.key) ?? 0
        self.init(key: Wire.AssetSortKey(rawValue: Int32(index + 1)), ascending: sort.ascending)
    }
}

extension AssetSortDescriptor {
    /// The sort a message describes; an unknown key is `invalidArgument`.
    public init(_ wire: Wire.SortDescriptor) throws(PhotoLibError) {
        let keys = AssetSortKey.allCases
        let raw = Int(wire.key.rawValue)
        guard raw >= 1, raw <= keys.count else {
            throw PhotoLibError(.invalidArgument, "unknown sort key \(raw) in SortDescriptor (1…\(keys.count), see library.proto AssetSortKey)")
        }
        self.init(key: keys[raw - 1], ascending: wire.ascending)
    }
}
