import PhotoLibCore

extension PhotoLibrary {
    /// Which of `identifiers` belong to `query` now (its scope, hidden and trash rules and
    /// predicate; not its sort or limit).
    ///
    /// The query is driven from the identifiers (`CROSS JOIN` fixes SQLite's join order), so
    /// it costs O(k log n) for k identifiers whatever the query's sort index: what the change
    /// feed runs for every live result after every transaction.
    public func matchingIdentifiers(_ query: AssetQuery, among identifiers: [String]) throws(PhotoLibError) -> Set<String> {
        guard !identifiers.isEmpty else { return [] }
        try Self.validateIdentifierList(identifiers)
        var scoped = self.scoped(query)
        scoped.identifiers = nil
        scoped.fetchLimit = 0
        return try read { (database) throws(PhotoLibError) -> Set<String> in
            let plan = try QueryPlan(scoped, database: database)
            guard plan.fromWhere.hasPrefix("FROM asset a") else {
                throw PhotoLibError(.internalError, "unexpected query shape for matchingIdentifiers")
            }
            let fromWhere = "FROM json_each(?) j CROSS JOIN asset a ON a.local_identifier = j.value" + plan.fromWhere.dropFirst("FROM asset a".count)
            let values = [DatabaseValue.text(JSONText.array(identifiers))] + plan.values
            return Set(try database.prepareUncached("SELECT a.local_identifier \(fromWhere)").rows(values) { $0.text(0) })
        }
    }
}
