import PhotoLibClient

/// Which assets are in Recently Deleted, for `show` (a trashed asset is in no plain fetch) and
/// `restore` (which says what actually came back).
enum RecentlyDeleted {
    /// The assets among `identifiers` that are in Recently Deleted, by identifier. The
    /// predicate is printed by `AssetPredicate` (its quoting) and asked in pieces that fit
    /// `AssetPredicate.maximumLength`, however many identifiers are given.
    static func assets(_ identifiers: [String], in library: PhotoLibrary) async throws -> [String: Asset] {
        var found: [String: Asset] = [:]
        var rest = identifiers[...]
        while !rest.isEmpty {
            var values: [PredicateValue] = []
            var text = AssetPredicate.membership(.localIdentifier, []).description
            while let next = rest.first {
                let longer = AssetPredicate.membership(.localIdentifier, values + [.string(next)]).description
                guard longer.utf8.count <= AssetPredicate.maximumLength || values.isEmpty else { break }
                values.append(.string(next))
                text = longer
                rest = rest.dropFirst()
            }
            let result = try await library.fetchAssets(
                in: LocalIdentifier.smartAlbum(.smartAlbumRecentlyDeleted), options: FetchOptions(predicate: text, includeHiddenAssets: true))
            for asset in try await result.allObjects() { found[asset.localIdentifier] = asset }
        }
        return found
    }
}
