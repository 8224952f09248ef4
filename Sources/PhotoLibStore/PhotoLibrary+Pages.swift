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
    /// page of a million: ~90 µs of SQLite instead of ~140). Assets the range does not hold
    /// (changed, moved or deleted since the snapshot) are then looked up by identifier, as
    /// are pages of an album (ordered by position) or of a sort mixing directions.
    public func assets(page identifiers: [String], of query: AssetQuery) throws(PhotoLibError) -> [Asset] {
        guard let first = identifiers.first else { return [] }
        guard identifiers.count <= AssetQuery.maximumIdentifierCount else { return try assets(withIdentifiers: identifiers) }
        let query = scoped(query)
        guard let keys = PageKeys(query) else { return try assets(withIdentifiers: identifiers) }
        let ranged = try withDatabase { (database) throws(PhotoLibError) -> [Asset] in
            let startSQL = "SELECT \(keys.columns(table: "b")) FROM asset b WHERE b.local_identifier = ?"
            guard let start = try database.prepare(startSQL).firstRow([.text(first)], keys.values) else { return [] }
            let plan = try QueryPlan(query, database: database)
            let sql = """
                SELECT \(AssetRow.columns) \(plan.fromWhere) AND (\(keys.columns(table: "a"))) \(keys.ascending ? ">=" : "<=") \
                (\(Array(repeating: "?", count: keys.count).joined(separator: ", "))) ORDER BY \(plan.orderBy) LIMIT ?
                """
            // Predicates and identifier lists make SQL of any shape: not kept in the cache.
            let statement = query.predicate == nil && query.identifiers == nil ? try database.prepare(sql) : try database.prepareUncached(sql)
            return try statement.rows(plan.values + start + [.int(identifiers.count)], AssetRow.decode)
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

    var count: Int { names.count }

    /// The columns as SQL, qualified with `table`.
    func columns(table: String) -> String {
        names.map { "\(table).\($0)" }.joined(separator: ", ")
    }

    /// The key of the current row of a statement selecting ``columns(table:)``.
    func values(_ row: Statement) -> [DatabaseValue] {
        (0..<Int32(names.count)).map { row.value($0) }
    }
}
