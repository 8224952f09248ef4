import PhotoLibCore

extension AssetQuery {
    /// A query from PhotoKit-style fetch options, with `options.predicate` parsed
    /// (docs/PREDICATES.md). `nil` or empty text means no predicate (the wire cannot tell
    /// them apart). Throws `invalidArgument` with reason `invalidPredicate` and a message
    /// naming the column for text that does not parse.
    public static func from(
        options: FetchOptions, collection: String? = nil, mediaType: MediaType? = nil
    ) throws(PhotoLibError) -> AssetQuery {
        var query = AssetQuery(options: options, collection: collection, mediaType: mediaType)
        if let text = options.predicate, !text.isEmpty {
            query.predicate = try AssetPredicate(parsing: text)
        }
        return query
    }
}
