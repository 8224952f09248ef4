import Foundation
import PhotoLibCore
import PhotoLibStore
import Synchronization

/// A live fetch result on the server, shared by every subscriber with the same query.
///
/// Ordered fetches keep a ``LiveFetchResult`` (an order-statistic index) so a transaction
/// touching k assets costs O(k log n); a user album in its own order is re-read and diffed
/// (its order lives in the album, not in the assets). Changed on the hub's queue; read by
/// `FetchResultObjects` / `FetchResultIndex` on the library I/O pool. The index and the
/// version that names it live in one ``State`` behind one `Mutex`: a reader holding version
/// v either reads exactly version v's index or is told the result moved on, never a mix.
final class LiveEntry: Sendable {
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

    /// What ``state`` guards: the index and the version naming it, always changed together.
    struct State {
        var index: Index
        /// Bumped with every change of ``index``; snapshots name the version they saw.
        var version = 0
    }

    let query: AssetQuery
    /// Guards ``State``. A leaf lock: nothing else is locked and no I/O is done while holding it.
    private let state: Mutex<State>

    /// Whether this entry is a user album in the album's own order (fixed at build).
    let isAlbumOrdered: Bool

    /// A number no other entry of this process has: names the entry's versions in snapshot
    /// ids (``snapshotID(version:)``).
    let serial: UInt64
    private static let serials = Atomic<UInt64>(0)

    /// The snapshot id of `version` of this entry, the same on every connection: every
    /// subscriber of the entry gets the same `fetch_result_after_id` in a round.
    func snapshotID(version: Int) -> String { "fr-live-\(serial)-\(version)" }

    init(query: AssetQuery, index: sending Index) {
        self.serial = Self.serials.add(1, ordering: .relaxed).newValue
        self.query = query
        if case .albumOrder = index { isAlbumOrdered = true } else { isAlbumOrdered = false }
        self.state = Mutex(State(index: index))
    }

    /// The current version (for tests and logs).
    var version: Int { state.withLock { $0.version } }

    /// The assets the entry keeps: every match of its query with the limit lifted (a limited
    /// result must know what moves into view), or the album's members.
    var memberCount: Int {
        state.withLock { state in
            switch state.index {
            case .ordered(let live): return live.memberCount
            case .albumOrder(let ids, _): return ids.count
            }
        }
    }

    /// Builds the entry from the library's current state (O(n); once per distinct query).
    static func build(query: AssetQuery, library: PhotoLibrary, albumOrdered: Bool) throws(PhotoLibError) -> LiveEntry {
        if albumOrdered {
            let ids = try library.fetchAssetIdentifiers(query)
            return LiveEntry(query: query, index: .albumOrder(ids, positions: Self.positions(ids)))
        }
        let members = try orderedMembers(query: query, library: library)
        return LiveEntry(query: query, index: .ordered(orderedIndex(query: query, members: members)))
    }

    /// Every asset matching `query` with its limit lifted, read in pages (the input of an ordered index).
    private static func orderedMembers(query: AssetQuery, library: PhotoLibrary) throws(PhotoLibError) -> [Asset] {
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
        return members
    }

    private static func orderedIndex(query: AssetQuery, members: [Asset]) -> LiveFetchResult {
        LiveFetchResult(ordering: AssetOrdering(query.sortDescriptors), fetchLimit: query.fetchLimit, members: members)
    }

    static func positions(_ ids: [String]) -> [String: Int] {
        var positions: [String: Int] = [:]
        positions.reserveCapacity(ids.count)
        for (i, id) in ids.enumerated() where positions[id] == nil { positions[id] = i }
        return positions
    }

    /// The current version as a listing.
    func currentListing() -> LiveAssetListing {
        let (version, count) = state.withLock { ($0.version, $0.index.count) }
        return LiveAssetListing(entry: self, version: version, count: count)
    }

    /// All identifiers of the current version.
    func currentIdentifiers() -> [String] {
        state.withLock { $0.index.allIdentifiers }
    }

    /// Reads the index if `version` is still current (checked and read under one lock).
    func read<T: Sendable>(version: Int, _ body: @Sendable (Index) throws(PhotoLibError) -> T) throws(PhotoLibError) -> T {
        try state.withLock { (state) throws(PhotoLibError) -> T in
            guard version == state.version else {
                throw PhotoLibError(
                    .failedPrecondition,
                    "this fetch result was replaced by a newer one (a change notification named it in fetch_result_after_id); read that one or fetch again",
                    reason: .fetchResultExpired)
            }
            return try body(state.index)
        }
    }

    /// Applies one round of touched assets; `nil` when the result did not change. Called on
    /// the hub's queue only (so the index cannot change between the reads and the update
    /// below); each update of the index bumps the version under the same lock.
    ///
    /// `matching` are the touched identifiers that belong to the query now; `values` the
    /// touched assets that still exist; `albumChanged` whether the album itself changed.
    func apply(touched: [String], matching: Set<String>, values: [String: Asset], contentChanged: Set<String>, albumChanged: Bool, library: PhotoLibrary) throws(PhotoLibError) -> FetchResultChangeDetails? {
        if !isAlbumOrdered && albumChanged {
            // Album membership changed: the assets themselves were not touched, so rebuild
            // (store reads outside the lock; the new index is made and installed inside it).
            let members = try Self.orderedMembers(query: query, library: library)
            let query = self.query
            return state.withLock { state -> FetchResultChangeDetails? in
                let before = state.index.allIdentifiers
                let rebuilt = Self.orderedIndex(query: query, members: members)
                let after = rebuilt.materialize()
                let details = FetchResultChangeDetails.diff(before: before, after: after, changed: Set(touched).intersection(after))
                guard !details.isEmpty else { return nil }
                state.index = .ordered(rebuilt)
                state.version += 1
                return details
            }
        }
        if !isAlbumOrdered {
            guard !touched.isEmpty else { return nil }
            let updates = touched.map { id in
                LiveUpdate(identifier: id, asset: values[id], matches: matching.contains(id), contentChanged: contentChanged.contains(id))
            }
            return state.withLock { state -> FetchResultChangeDetails? in
                guard case .ordered(let live) = state.index else { return nil }
                let details = live.apply(updates)
                guard !details.isEmpty else { return nil }
                state.version += 1
                return details
            }
        }
        guard albumChanged || !touched.isEmpty else { return nil }
        let after = try library.fetchAssetIdentifiers(query)
        let changed = Set(touched).intersection(after)
        return state.withLock { state -> FetchResultChangeDetails? in
            let details = FetchResultChangeDetails.diff(before: state.index.allIdentifiers, after: after, changed: changed)
            guard !details.isEmpty else { return nil }
            state.index = .albumOrder(after, positions: Self.positions(after))
            state.version += 1
            return details
        }
    }
}
