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
    }

    /// What ``state`` guards.
    struct State {
        var entries: [String: Entry] = [:]
        /// A logical clock for least-recently-used eviction.
        var clock: UInt64 = 0

        /// Removes the expired snapshots and returns them.
        mutating func purgeExpired(_ now: Date) -> [Entry] {
            let expired = entries.filter { $0.value.expiresAt <= now }
            for id in expired.keys { entries[id] = nil }
            return Array(expired.values)
        }
    }

    /// Guards the snapshots. A leaf lock: nothing else is locked under it.
    private let state = Mutex(State())
    private let lifetime: TimeInterval
    private let capacity: Int

    init(lifetime: TimeInterval, capacity: Int) {
        self.lifetime = lifetime
        self.capacity = capacity
    }

    /// Stores a snapshot; returns its id and expiry. Drops the least recently used beyond capacity.
    func add(_ contents: Contents, now: Date = Date()) -> (id: String, expiresAt: Date) {
        let id = "fr-" + UUID().uuidString.lowercased()
        let expiry = now.addingTimeInterval(lifetime)
        let capacity = self.capacity
        let dropped = state.withLock { state in
            var dropped = state.purgeExpired(now)
            if state.entries.count >= capacity, let oldest = state.entries.min(by: { $0.value.lastUsed < $1.value.lastUsed }) {
                dropped.append(state.entries.removeValue(forKey: oldest.key)!)
            }
            state.clock += 1
            state.entries[id] = Entry(contents: contents, expiresAt: expiry, lastUsed: state.clock)
            return dropped
        }
        for entry in dropped { Self.dropped(entry) }
        return (id, expiry)
    }

    /// The snapshot with `id`, extending its life; `failedPrecondition` when expired or unknown.
    func use(_ id: String, now: Date = Date()) throws(PhotoLibError) -> Contents {
        let lifetime = self.lifetime
        let (found, dropped) = state.withLock { state -> (Contents?, [Entry]) in
            let dropped = state.purgeExpired(now)
            guard var entry = state.entries[id] else { return (nil, dropped) }
            state.clock += 1
            entry.lastUsed = state.clock
            entry.expiresAt = now.addingTimeInterval(lifetime)
            state.entries[id] = entry
            return (entry.contents, dropped)
        }
        for entry in dropped { Self.dropped(entry) }
        guard let found else {
            throw PhotoLibError(.failedPrecondition, "fetch result '\(id.prefix(64))' has expired or was released (snapshots live \(Int(lifetime)) s after their last use); fetch again", reason: .fetchResultExpired)
        }
        return found
    }

    /// Drops a snapshot; `false` when there was none.
    @discardableResult
    func release(_ id: String) -> Bool {
        let removed = state.withLock { $0.entries.removeValue(forKey: id) }
        Self.dropped(removed)
        return removed != nil
    }

    /// Drops every snapshot (connection closed).
    func removeAll() {
        let all = state.withLock { state in
            defer { state.entries.removeAll() }
            return Array(state.entries.values)
        }
        for entry in all { Self.dropped(entry) }
    }

    /// A snapshot still being read in the background stops being read once dropped.
    private static func dropped(_ entry: Entry?) {
        if case .assets(let listing)? = entry?.contents, let pending = listing as? PendingAssetListing {
            pending.cancel()
        }
    }
}
