import PhotoLibCore

extension PhotoLibrary {
    /// The assets of one page of a fetch-result snapshot, with their current values, in the
    /// page's order, each once; identifiers unknown now (deleted since) are skipped: what
    /// ``assets(withIdentifiers:)`` answers for the same list. `identifiers` are consecutive
    /// entries of a snapshot of `query`, as ``fetchAssetIdentifiers(_:)`` and
    /// ``FetchSnapshotReader`` list them.
    ///
    /// While nothing moved those assets in the query's order since the snapshot, the page is
    /// one range of that order: it is read as a keyset page — the first asset's sort key, then
    /// one index range from it — instead of one index lookup per identifier (a 100-asset
    /// page of a million: one statement, ~90 µs of SQLite instead of ~140). Assets the range does not hold
    /// (changed, moved or deleted since the snapshot) are then looked up by identifier, as
    /// are pages of an album (ordered by position) or of a sort mixing directions.
    public func assets(page identifiers: [String], of query: AssetQuery) throws(PhotoLibError) -> [Asset] {
        guard let first = identifiers.first else { return [] }
        guard identifiers.count <= AssetQuery.maximumIdentifierCount else { return try assets(withIdentifiers: identifiers) }
        let query = scoped(query)
        guard let keys = PageKeys(query) else { return try assets(withIdentifiers: identifiers) }
        let ranged = try withDatabase { (database) throws(PhotoLibError) -> [Asset] in
            let (statement, values) = try Self.pageRange(from: first, count: identifiers.count, of: query, keys: keys, database: database)
            return try statement.rows(values, AssetRow.decode)
        }
        if ranged.count == identifiers.count && zip(ranged, identifiers).allSatisfy({ $0.localIdentifier == $1 }) {
            return ranged
        }
        // Something moved: the range's assets where they belong, the others by identifier.
        var found = Dictionary(ranged.map { ($0.localIdentifier, $0) }, uniquingKeysWith: { first, _ in first })
        let missing = identifiers.filter { found[$0] == nil }
        if !missing.isEmpty {
            for asset in try assets(withIdentifiers: missing) { found[asset.localIdentifier] = asset }
        }
        var seen = Set<String>()
        return identifiers.compactMap { identifier in seen.insert(identifier).inserted ? found[identifier] : nil }
    }

    /// A page of a fetch-result snapshot handed to `visit` row by row, in the page's order,
    /// without making an `Asset` per row: for encoding a page straight from the values read
    /// (``AssetColumns``). Returns `true` when every asset of `identifiers` was visited in
    /// order — the page is the one keyset range ``assets(page:of:)`` reads first, and every
    /// row is valid. Returns `false` otherwise (something moved or was deleted since the
    /// snapshot, an album's or mixed-direction order, a row `Asset` would repair or refuse):
    /// `visit` may then have seen some rows, and the caller discards what it made of them and
    /// asks ``assets(page:of:)``, which answers those pages.
    public func visitAssets(page identifiers: [String], of query: AssetQuery, _ visit: (AssetColumns) -> Void) throws(PhotoLibError) -> Bool {
        guard let first = identifiers.first else { return true }
        guard identifiers.count <= AssetQuery.maximumIdentifierCount else { return false }
        let query = scoped(query)
        guard let keys = PageKeys(query) else { return false }
        return try withDatabase { (database) throws(PhotoLibError) -> Bool in
            let (statement, values) = try Self.pageRange(from: first, count: identifiers.count, of: query, keys: keys, database: database)
            var index = 0
            var matched = true
            // The first row that does not match ends the read: the page is answered elsewhere.
            try statement.forEachRow(values, while: { row in
                guard index < identifiers.count, AssetColumns.identifier(of: row, is: identifiers[index]), let columns = AssetColumns(row) else {
                    matched = false
                    return false
                }
                visit(columns)
                index += 1
                return true
            })
            return matched && index == identifiers.count
        }
    }

    /// The statement reading `count` assets of `query`'s order from the asset `first` on (one
    /// keyset range), with its parameters. One statement — the first asset's key is a
    /// subquery, evaluated once — so the page is one read transaction (each costs SQLite
    /// lock calls and a file-size check). No row when `first` is not in the library.
    private static func pageRange(
        from first: String, count: Int, of query: AssetQuery, keys: PageKeys, database: Database
    ) throws(PhotoLibError) -> (Statement, [DatabaseValue]) {
        let plan = try QueryPlan(query, database: database)
        let sql = """
            SELECT \(AssetRow.columns) \(plan.fromWhere) AND (\(keys.columns(table: "a"))) \(keys.ascending ? ">=" : "<=") \
            (SELECT \(keys.columns(table: "b")) FROM asset b WHERE b.local_identifier = ?) ORDER BY \(plan.orderBy) LIMIT ?
            """
        // Predicates and identifier lists make SQL of any shape: not kept in the cache.
        let statement = query.predicate == nil && query.identifiers == nil ? try database.prepare(sql) : try database.prepareUncached(sql)
        return (statement, plan.values + [.text(first), .int(count)])
    }
}

/// The sort key a keyset page of a query compares: the query's ORDER BY columns
/// (``QueryPlan/orderBy(_:albumOrder:)``), when they are all in one direction and come from
/// the asset row alone; `nil` otherwise (album order, mixed directions).
struct PageKeys {
    /// The `asset` columns, in order (without the table alias).
    let names: [String]
    /// Whether the order is ascending (else descending) in every column.
    let ascending: Bool

    init?(_ query: AssetQuery) {
        if let collection = query.collection, SmartAlbum.withIdentifier(collection) == nil { return nil }
        var names: [String] = []
        var direction: Bool?
        var endsWithIdentifier = false
        for descriptor in query.sortDescriptors {
            if let direction, direction != descriptor.ascending { return nil }
            direction = descriptor.ascending
            names.append(String(QueryPlan.column(descriptor.key).dropFirst(2)))
            if descriptor.key == .localIdentifier {
                endsWithIdentifier = true
                break
            }
        }
        if names.isEmpty { names = ["creation_date"] }
        if !endsWithIdentifier { names.append("local_identifier") }
        self.names = names
        self.ascending = direction ?? true
    }

    /// The columns as SQL, qualified with `table`.
    func columns(table: String) -> String {
        names.map { "\(table).\($0)" }.joined(separator: ", ")
    }

}
