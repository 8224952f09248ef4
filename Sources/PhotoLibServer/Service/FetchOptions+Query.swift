import PhotoLibCore
import PhotoLibStore
import PhotoLibWire

extension Wire.FetchOptions {
    /// The store query these options ask for: the one reading of `FetchOptions` shared by
    /// `FetchAssets` and Subscribe's `register_fetch`, so the two never see different assets
    /// for the same options. Refuses what section 15 refuses: more than one media type
    /// (`UNIMPLEMENTED`), an invalid local identifier, predicate or sort (`INVALID_ARGUMENT`).
    /// An unknown collection is refused by the query itself when it runs (`NOT_FOUND`).
    func assetQuery() throws(PhotoLibError) -> AssetQuery {
        let mediaTypes = try domainMediaTypes()
        guard mediaTypes.count <= 1 else {
            throw PhotoLibError(.unimplemented, "fetching several media types at once is not built yet; ask for one media type or all")
        }
        for identifier in localIdentifiers { try LocalIdentifier.validate(identifier) }
        var query = try AssetQuery.from(
            options: try domain(), collection: collectionIdentifier.isEmpty ? nil : collectionIdentifier, mediaType: mediaTypes.first)
        if !localIdentifiers.isEmpty { query.identifiers = localIdentifiers }
        return query
    }
}
