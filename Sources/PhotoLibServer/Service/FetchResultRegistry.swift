import Foundation
import PhotoLibCore

/// The fetch-result snapshots of one connection: immutable lists with a bounded lifetime.
public final class FetchResultRegistry: @unchecked Sendable {
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

    private let lock = NSLock()
    private var entries: [String: Entry] = [:]
    private var clock: UInt64 = 0
    private let lifetime: TimeInterval
    private let capacity: Int

    init(lifetime: TimeInterval, capacity: Int) {
        self.lifetime = lifetime
        self.capacity = capacity
    }

    /// Stores a snapshot; returns its id and expiry. Drops the least recently used beyond capacity.
    func add(_ contents: Contents, now: Date = Date()) -> (id: String, expiresAt: Date) {
        lock.withLock {
            purgeExpired(now)
            if entries.count >= capacity, let oldest = entries.min(by: { $0.value.lastUsed < $1.value.lastUsed }) {
                Self.dropped(entries.removeValue(forKey: oldest.key))
            }
            clock += 1
            let id = "fr-" + UUID().uuidString.lowercased()
            let expiry = now.addingTimeInterval(lifetime)
            entries[id] = Entry(contents: contents, expiresAt: expiry, lastUsed: clock)
            return (id, expiry)
        }
    }

    /// The snapshot with `id`, extending its life; `failedPrecondition` when expired or unknown.
    func use(_ id: String, now: Date = Date()) throws(PhotoLibError) -> Contents {
        let found: Contents? = lock.withLock {
            purgeExpired(now)
            guard var entry = entries[id] else { return nil }
            clock += 1
            entry.lastUsed = clock
            entry.expiresAt = now.addingTimeInterval(lifetime)
            entries[id] = entry
            return entry.contents
        }
        guard let found else {
            throw PhotoLibError(.failedPrecondition, "fetch result '\(id.prefix(64))' has expired or was released (snapshots live \(Int(lifetime)) s after their last use); fetch again", reason: .fetchResultExpired)
        }
        return found
    }

    /// Drops a snapshot; `false` when there was none.
    @discardableResult
    func release(_ id: String) -> Bool {
        let removed = lock.withLock { entries.removeValue(forKey: id) }
        Self.dropped(removed)
        return removed != nil
    }

    /// Drops every snapshot (connection closed).
    func removeAll() {
        let all = lock.withLock {
            defer { entries.removeAll() }
            return Array(entries.values)
        }
        for entry in all { Self.dropped(entry) }
    }

    private func purgeExpired(_ now: Date) {
        for (id, entry) in entries where entry.expiresAt <= now {
            entries[id] = nil
            Self.dropped(entry)
        }
    }

    /// A snapshot still being read in the background stops being read once dropped.
    private static func dropped(_ entry: Entry?) {
        if case .assets(let listing)? = entry?.contents, let pending = listing as? PendingAssetListing {
            pending.cancel()
        }
    }
}
