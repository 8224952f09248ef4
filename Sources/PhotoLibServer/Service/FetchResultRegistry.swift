import Foundation
import PhotoLibCore
import Synchronization

/// The fetch-result snapshots of one connection: immutable lists with a bounded lifetime.
///
/// Used from any handler task of the connection (and the change hub's queue); every access
/// is one short critical section on `state`. Snapshots dropped are cancelled after the
/// lock is released.
public final class FetchResultRegistry: Sendable {
    /// What a snapshot holds.
    enum Contents {
        /// Assets, in fetch order.
        case assets(any AssetListing)
        /// Collections as they were at fetch time.
        case collections([AssetCollection])
        /// Folders as they were at fetch time.
        case collectionLists([CollectionList])

        /// About how many bytes the snapshot holds (for the memory budget).
        var byteCount: Int {
            switch self {
            case .assets(let listing): return listing.byteCount
            case .collections(let collections): return 256 + collections.count * 320
            case .collectionLists(let lists): return 256 + lists.count * 256
            }
        }

        /// Names a list other snapshots may share (charged once).
        var sharedIdentity: ObjectIdentifier? {
            if case .assets(let listing) = self { return listing.sharedIdentity }
            return nil
        }

        /// How many objects.
        var count: Int {
            switch self {
            case .assets(let listing): return listing.count
            case .collections(let collections): return collections.count
            case .collectionLists(let lists): return lists.count
            }
        }
    }

    struct Entry {
        var contents: Contents
        var expiresAt: Date
        var lastUsed: UInt64
        /// What was charged to the budget for it.
        var bytes: Int
    }

    /// What ``state`` guards.
    struct State {
        var entries: [String: Entry] = [:]
        /// A logical clock for least-recently-used eviction.
        var clock: UInt64 = 0
        /// Ids the memory budget released lately (oldest first, at most ``rememberedEvictions``),
        /// so that their next use says why.
        var evicted: [String] = []

        /// When ``purgeExpired(_:)`` next scans the snapshots.
        var nextPurge = Date.distantPast

        /// Removes the expired snapshots and returns them: a scan of every snapshot, so at
        /// most once per ``purgeInterval`` (the change feed adds a snapshot per subscriber and
        /// round; scanning each time made a round quadratic in a connection's subscriptions).
        /// Until then an expired snapshot still counts against the budget, but ``use(_:now:)``
        /// refuses it by its own expiry.
        mutating func purgeExpired(_ now: Date) -> [Entry] {
            guard now >= nextPurge else { return [] }
            nextPurge = now.addingTimeInterval(FetchResultRegistry.purgeInterval)
            let expired = entries.filter { $0.value.expiresAt <= now }
            for id in expired.keys { entries[id] = nil }
            return Array(expired.values)
        }
    }

    /// Guards the snapshots. A leaf lock: nothing else is locked under it (the budget is
    /// charged and credited after it is released).
    private let state = Mutex(State())
    private let lifetime: TimeInterval
    private let capacity: Int
    /// The server-wide budget this connection's snapshots count against (`nil`: unbounded,
    /// for tools and tests that make a registry alone).
    private let budget: SnapshotBudget?
    /// The connection, as the budget knows it.
    private let connectionID: UInt64

    /// The longest an expired snapshot stays counted before a scan removes it, in seconds.
    static let purgeInterval: TimeInterval = 1

    /// How many released ids a registry remembers to explain their next use.
    static let rememberedEvictions = 256

    init(lifetime: TimeInterval, capacity: Int, budget: SnapshotBudget? = nil, connectionID: UInt64 = 0) {
        self.lifetime = lifetime
        self.capacity = capacity
        self.budget = budget
        self.connectionID = connectionID
        budget?.attach(self, connection: connectionID)
    }

    deinit {
        budget?.detach(connection: connectionID)
    }

    /// Stores a snapshot; returns its id and expiry. Drops the least recently used beyond
    /// capacity, and lets the server-wide budget release others when it is exceeded.
    ///
    /// `id` names the snapshot instead of a new random id: the change feed names a live
    /// result's version the same for every subscriber (so their notifications are the same
    /// bytes). A snapshot already held under that id has the same contents: it is kept and
    /// its life extended.
    func add(_ contents: Contents, id given: String? = nil, now: Date = Date()) -> (id: String, expiresAt: Date) {
        let id = given ?? "fr-" + UUID().uuidString.lowercased()
        let expiry = now.addingTimeInterval(lifetime)
        if given != nil {
            let refreshed = state.withLock { state -> Bool in
                guard var entry = state.entries[id] else { return false }
                state.clock += 1
                entry.lastUsed = state.clock
                entry.expiresAt = expiry
                state.entries[id] = entry
                return true
            }
            if refreshed { return (id, expiry) }
        }
        let capacity = self.capacity
        if case .assets(let listing) = contents, let pending = listing as? PendingAssetListing { pending.hold() }
        let bytes = contents.byteCount
        let released = state.withLock { state in
            var dropped = state.purgeExpired(now)
            if state.entries.count >= capacity, let oldest = state.entries.min(by: { $0.value.lastUsed < $1.value.lastUsed }) {
                dropped.append(state.entries.removeValue(forKey: oldest.key)!)
            }
            state.clock += 1
            state.entries[id] = Entry(contents: contents, expiresAt: expiry, lastUsed: state.clock, bytes: bytes)
            return dropped
        }
        budget?.charge(bytes, connection: connectionID, sharedList: contents.sharedIdentity)
        for entry in released { dropped(entry) }
        budget?.enforce(sparing: id)
        return (id, expiry)
    }

    /// Releases the least recently used snapshot other than `sparing` for the memory budget;
    /// `false` when there is none. Its id is remembered so that its next use says why.
    func evictLeastRecentlyUsed(sparing: String) -> Bool {
        let victim = state.withLock { state -> Entry? in
            guard let oldest = state.entries.filter({ $0.key != sparing }).min(by: { $0.value.lastUsed < $1.value.lastUsed }) else { return nil }
            state.evicted.append(oldest.key)
            if state.evicted.count > Self.rememberedEvictions { state.evicted.removeFirst() }
            return state.entries.removeValue(forKey: oldest.key)
        }
        guard let victim else { return false }
        dropped(victim, byBudget: true)
        return true
    }

    /// Bytes and snapshots this connection holds.
    var holdings: (snapshots: Int, bytes: Int) {
        state.withLock { state in (state.entries.count, state.entries.values.reduce(0) { $0 + $1.bytes }) }
    }

    /// The snapshot with `id`, extending its life; `failedPrecondition` when expired or unknown.
    func use(_ id: String, now: Date = Date()) throws(PhotoLibError) -> Contents {
        let lifetime = self.lifetime
        let (found, expired, wasEvicted) = state.withLock { state -> (Contents?, [Entry], Bool) in
            var dropped = state.purgeExpired(now)
            if let entry = state.entries[id], entry.expiresAt <= now {
                dropped.append(state.entries.removeValue(forKey: id)!)
            }
            guard var entry = state.entries[id] else { return (nil, dropped, state.evicted.contains(id)) }
            state.clock += 1
            entry.lastUsed = state.clock
            entry.expiresAt = now.addingTimeInterval(lifetime)
            state.entries[id] = entry
            return (entry.contents, dropped, false)
        }
        for entry in expired { dropped(entry) }
        guard let found else {
            if wasEvicted {
                throw PhotoLibError(
                    .failedPrecondition,
                    "snapshot expired — fetch again: fetch result '\(id.prefix(64))' was released to keep the server within its memory budget for snapshots",
                    reason: .fetchResultExpired)
            }
            throw PhotoLibError(.failedPrecondition, "snapshot expired — fetch again: fetch result '\(id.prefix(64))' has expired or was released (snapshots live \(Int(lifetime)) s after their last use)", reason: .fetchResultExpired)
        }
        return found
    }

    /// Drops a snapshot; `false` when there was none.
    @discardableResult
    func release(_ id: String) -> Bool {
        let removed = state.withLock { $0.entries.removeValue(forKey: id) }
        if let removed { dropped(removed) }
        return removed != nil
    }

    /// Drops every snapshot (connection closed).
    func removeAll() {
        let all = state.withLock { state in
            defer { state.entries.removeAll() }
            return Array(state.entries.values)
        }
        for entry in all { dropped(entry) }
    }

    /// Credits the budget; a snapshot still being read in the background stops being read
    /// once no snapshot holds its listing.
    private func dropped(_ entry: Entry, byBudget: Bool = false) {
        budget?.credit(entry.bytes, connection: connectionID, sharedList: entry.contents.sharedIdentity, byBudget: byBudget)
        if case .assets(let listing) = entry.contents, let pending = listing as? PendingAssetListing {
            pending.letGo()
        }
    }
}
