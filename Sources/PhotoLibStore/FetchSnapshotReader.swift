import Foundation
import PhotoLibCore

/// One fetch read consistently: the count and the first page at once, the full identifier
/// list later — all inside one read transaction on a connection of its own, so the list is
/// exactly the library as it was when the fetch was answered, whatever commits meanwhile.
///
/// Counting uses the indexes (`COUNT(*)`), so a fetch over a million assets answers fast;
/// ``readAll()`` then finishes the snapshot off the caller's path. The transaction never
/// waits on the network: it lasts from ``PhotoLibrary/beginFetch(_:prefetch:)`` to the end
/// of ``readAll()`` (or ``close()``).
public final class FetchSnapshotReader: @unchecked Sendable {
    /// How many assets the fetch holds (its limit applied).
    public let count: Int
    /// The first identifiers, in order (as many as asked for).
    public let firstIdentifiers: [String]
    /// Guards ``database`` until ``readAll()`` or ``close()`` takes it (at most once); the
    /// connection is used after the lock is released. A leaf lock. Not a `Mutex`: `Database`
    /// and `QueryPlan` are not `Sendable`, hence `@unchecked Sendable` on the class (the
    /// connection is used by one thread at a time, after being taken under the lock).
    private let lock = NSLock()
    private var database: Database?
    private let plan: QueryPlan
    private let fetchLimit: Int

    fileprivate init(database: Database, plan: QueryPlan, fetchLimit: Int, prefetch: Int) throws(PhotoLibError) {
        self.plan = plan
        self.fetchLimit = fetchLimit
        try database.execute("BEGIN")
        do {
            if fetchLimit > 0 {
                // Count no further than the limit.
                count = try database.prepareUncached("SELECT count(*) FROM (SELECT 1 \(plan.fromWhere) LIMIT ?)")
                    .firstRow(plan.values + [.int(fetchLimit)]) { $0.int(0) } ?? 0
            } else {
                count = try database.prepareUncached("SELECT count(*) \(plan.fromWhere)").firstRow(plan.values) { $0.int(0) } ?? 0
            }
            let first = min(count, max(0, prefetch))
            firstIdentifiers = first == 0 ? [] : try database.prepareUncached("SELECT a.local_identifier \(plan.fromWhere) ORDER BY \(plan.orderBy) LIMIT ?")
                .rows(plan.values + [.int(first)]) { $0.text(0) }
        } catch {
            try? database.execute("ROLLBACK")
            throw error
        }
        self.database = database
    }

    deinit {
        close()
    }

    /// Every identifier of the fetch, in order, read in the fetch's transaction; ends it.
    public func readAll() throws(PhotoLibError) -> [String] {
        let database: Database? = lock.withLock {
            defer { self.database = nil }
            return self.database
        }
        guard let database else {
            throw PhotoLibError(.failedPrecondition, "this fetch snapshot was already read or closed", reason: .fetchResultExpired)
        }
        defer { try? database.execute("COMMIT") }
        guard count > firstIdentifiers.count else { return firstIdentifiers }
        var sql = "SELECT a.local_identifier \(plan.fromWhere) ORDER BY \(plan.orderBy)"
        var values = plan.values
        if fetchLimit > 0 {
            sql += " LIMIT ?"
            values.append(.int(fetchLimit))
        }
        return try database.prepareUncached(sql).rows(values) { $0.text(0) }
    }

    /// Ends the transaction without reading the rest.
    public func close() {
        let database: Database? = lock.withLock {
            defer { self.database = nil }
            return self.database
        }
        try? database?.execute("COMMIT")
    }
}

extension PhotoLibrary {
    /// Starts a consistent fetch on a connection of its own: see ``FetchSnapshotReader``.
    public func beginFetch(_ query: AssetQuery, prefetch: Int) throws(PhotoLibError) -> FetchSnapshotReader {
        let database = try Database(path: directory + "/" + Self.databaseFileName)
        let plan = try QueryPlan(scoped(query), database: database)
        return try FetchSnapshotReader(database: database, plan: plan, fetchLimit: query.fetchLimit, prefetch: prefetch)
    }
}
