import Foundation
import PhotoLibStore
import Synchronization

/// Identical fetches share one snapshot list: a `FetchAssets` with the same query at the
/// same library version as a snapshot some connection still holds gets that list (no SQL,
/// no second copy). Fifty clients opening the same 50,000-photo library hold one 0.8 MB list.
///
/// Holds its lists weakly: a list lives as long as a snapshot holds it.
final class SharedSnapshotCache: Sendable {
    private struct Weak {
        weak var listing: PendingAssetListing?
        var version: Int
    }

    /// The most queries remembered (dead entries are pruned first).
    static let capacity = 256

    /// Guards the lists by query. A leaf lock.
    private let lists = Mutex<[AssetQuery: Weak]>([:])

    /// The list of `query` read at library version `version`, if a snapshot still holds it
    /// and it can still be read; it is returned held once more (the caller lets go once the
    /// new snapshot holds it).
    func listing(for query: AssetQuery, version: Int) -> PendingAssetListing? {
        lists.withLock { lists in
            guard let held = lists[query], held.version == version, let listing = held.listing, listing.holdIfUsable() else { return nil }
            return listing
        }
    }

    /// Remembers `listing` as the list of `query` at `version`.
    func remember(_ listing: PendingAssetListing, for query: AssetQuery, version: Int) {
        lists.withLock { lists in
            if lists.count >= Self.capacity {
                lists = lists.filter { $0.value.listing != nil }
                if lists.count >= Self.capacity, let any = lists.first?.key { lists[any] = nil }
            }
            lists[query] = Weak(listing: listing, version: version)
        }
    }
}
