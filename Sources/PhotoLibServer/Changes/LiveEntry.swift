import Foundation
import PhotoLibCore
import PhotoLibStore

/// A live fetch result on the server, shared by every subscriber with the same query.
///
/// Ordered fetches keep a ``LiveFetchResult`` (an order-statistic index) so a transaction
/// touching k assets costs O(k log n); a user album in its own order is re-read and diffed
/// (its order lives in the album, not in the assets). Mutated on the hub's queue; read by
/// `FetchResultObjects` on other threads under the lock.
final class LiveEntry: @unchecked Sendable {
    /// Either index kind, behind one interface.
    enum Index {
        case ordered(LiveFetchResult)
        case albumOrder([String], positions: [String: Int])

        var count: Int {
            switch self {
            case .ordered(let live): return live.count
            case .albumOrder(let ids, _): return ids.count
            }
        }

        func identifiers(in range: Range<Int>) throws(PhotoLibError) -> [String] {
            guard range.lowerBound >= 0, range.upperBound <= count else {
                throw PhotoLibError(.outOfRange, "range \(range) is outside a fetch result of \(count) objects")
            }
            switch self {
            case .ordered(let live): return live.identifiers(in: range)
            case .albumOrder(let ids, _): return Array(ids[range])
            }
        }

        func index(of identifier: String) -> Int? {
            switch self {
            case .ordered(let live): return live.index(of: identifier)
            case .albumOrder(_, let positions): return positions[identifier]
            }
        }

        var allIdentifiers: [String] {
            switch self {
            case .ordered(let live): return live.materialize()
            case .albumOrder(let ids, _): return ids
            }
        }
    }

    let query: AssetQuery
    private let lock = NSLock()
    private(set) var index: Index
    /// Bumped by every change; snapshots name the version they saw.
    private(set) var version = 0
    /// Subscriptions holding this entry (the hub drops it at zero).
    var references = 0

    /// Whether this entry is a user album in the album's own order.
    var isAlbumOrdered: Bool {
        if case .albumOrder = index { return true }
        return false
    }

    init(query: AssetQuery, index: Index) {
        self.query = query
        self.index = index
    }

    /// Builds the entry from the library's current state (O(n); once per distinct query).
    static func build(query: AssetQuery, library: PhotoLibrary, albumOrdered: Bool) throws(PhotoLibError) -> LiveEntry {
        if albumOrdered {
            let ids = try library.fetchAssetIdentifiers(query)
            return LiveEntry(query: query, index: .albumOrder(ids, positions: Self.positions(ids)))
        }
        var unlimited = query
        unlimited.fetchLimit = 0
        let ids = try library.fetchAssetIdentifiers(unlimited)
        var members: [Asset] = []
        members.reserveCapacity(ids.count)
        var start = 0
        while start < ids.count {
            let end = min(ids.count, start + 2000)
            members += try library.assets(withIdentifiers: Array(ids[start..<end]))
            start = end
        }
        let live = LiveFetchResult(ordering: AssetOrdering(query.sortDescriptors), fetchLimit: query.fetchLimit, members: members)
        return LiveEntry(query: query, index: .ordered(live))
    }

    static func positions(_ ids: [String]) -> [String: Int] {
        var positions: [String: Int] = [:]
        positions.reserveCapacity(ids.count)
        for (i, id) in ids.enumerated() where positions[id] == nil { positions[id] = i }
        return positions
    }

    /// The current version as a listing.
    func currentListing() -> LiveAssetListing {
        lock.withLock { LiveAssetListing(entry: self, version: version, count: index.count) }
    }

    /// All identifiers of the current version.
    func currentIdentifiers() -> [String] {
        lock.withLock { index.allIdentifiers }
    }

    /// Reads the index if `version` is still current.
    func read<T>(version: Int, _ body: (Index) throws(PhotoLibError) -> T) throws(PhotoLibError) -> T {
        lock.lock()
        defer { lock.unlock() }
        guard version == self.version else {
            throw PhotoLibError(
                .failedPrecondition,
                "this fetch result was replaced by a newer one (a change notification named it in fetch_result_after_id); read that one or fetch again",
                reason: .fetchResultExpired)
        }
        return try body(index)
    }

    /// Applies one round of touched assets; `nil` when the result did not change.
    ///
    /// `matching` are the touched identifiers that belong to the query now; `values` the
    /// touched assets that still exist; `albumChanged` whether the album itself changed.
    func apply(touched: [String], matching: Set<String>, values: [String: Asset], contentChanged: Set<String>, albumChanged: Bool, library: PhotoLibrary) throws(PhotoLibError) -> FetchResultChangeDetails? {
        switch index {
        case .ordered(let live) where albumChanged:
            // Album membership changed: the assets themselves were not touched, so rebuild.
            let before = lock.withLock { live.materialize() }
            guard case .ordered(let rebuilt) = try Self.build(query: query, library: library, albumOrdered: false).index else { return nil }
            let after = rebuilt.materialize()
            let details = FetchResultChangeDetails.diff(before: before, after: after, changed: Set(touched).intersection(after))
            guard !details.isEmpty else { return nil }
            lock.withLock {
                index = .ordered(rebuilt)
                version += 1
            }
            return details
        case .ordered(let live):
            guard !touched.isEmpty else { return nil }
            let updates = touched.map { id in
                LiveUpdate(identifier: id, asset: values[id], matches: matching.contains(id), contentChanged: contentChanged.contains(id))
            }
            let details = lock.withLock { live.apply(updates) }
            guard !details.isEmpty else { return nil }
            lock.withLock { version += 1 }
            return details
        case .albumOrder(let before, _):
            guard albumChanged || !touched.isEmpty else { return nil }
            let after = try library.fetchAssetIdentifiers(query)
            let changed = Set(touched).intersection(after)
            let details = FetchResultChangeDetails.diff(before: before, after: after, changed: changed)
            guard !details.isEmpty else { return nil }
            lock.withLock {
                index = .albumOrder(after, positions: Self.positions(after))
                version += 1
            }
            return details
        }
    }
}
