import Foundation
import Synchronization

/// The server-wide memory budget of fetch-result snapshots.
///
/// Every connection's ``FetchResultRegistry`` charges the bytes of the snapshots it holds
/// here; a list shared by several snapshots (identical fetches at the same library version)
/// is charged once. When the total is over the limit, the least recently used snapshots of
/// the connection holding the most are released until it is not, and a later use of one of
/// them fails with a typed "snapshot dropped — fetch again" error (reason
/// `FETCH_RESULT_EXPIRED`). The snapshot just made is never the one released.
final class SnapshotBudget: Sendable {
    /// The most bytes all snapshots may hold at once.
    let limit: Int

    /// What ``state`` guards.
    private struct State {
        /// Bytes held, each shared list counted once.
        var total = 0
        /// Bytes attributed to each connection (a shared list counts for each holder).
        var perConnection: [UInt64: Int] = [:]
        /// Shared lists and how many snapshots hold each.
        var shared: [ObjectIdentifier: (bytes: Int, holders: Int)] = [:]
        /// The registries that may be asked to give snapshots back.
        var registries: [UInt64: WeakRegistry] = [:]
        /// Snapshots released by the budget so far (for stats).
        var released = 0
    }

    private struct WeakRegistry {
        weak var registry: FetchResultRegistry?
    }

    /// Guards ``State``. A leaf lock: registries are asked to evict after it is released.
    private let state = Mutex(State())

    init(limit: Int) {
        self.limit = max(0, limit)
    }

    /// What the budget holds now.
    struct Usage: Sendable {
        /// Bytes held (shared lists once).
        var bytes: Int
        /// The limit.
        var limit: Int
        /// Connections holding snapshots.
        var connections: Int
        /// Snapshots released to stay within the limit since the server started.
        var released: Int
    }

    /// What the budget holds now.
    var usage: Usage {
        state.withLock { Usage(bytes: $0.total, limit: limit, connections: $0.perConnection.count, released: $0.released) }
    }

    /// Lets the budget ask `registry` (the snapshots of connection `connection`) to evict.
    func attach(_ registry: FetchResultRegistry, connection: UInt64) {
        state.withLock { $0.registries[connection] = WeakRegistry(registry: registry) }
    }

    /// Forgets a connection (its registry has released everything).
    func detach(connection: UInt64) {
        state.withLock { state in
            state.registries[connection] = nil
            state.perConnection[connection] = nil
        }
    }

    /// Charges a snapshot of `bytes` held by `connection`; `sharedList` names a list other
    /// snapshots may hold too (charged once).
    func charge(_ bytes: Int, connection: UInt64, sharedList: ObjectIdentifier?) {
        state.withLock { state in
            state.perConnection[connection, default: 0] += bytes
            if let key = sharedList {
                if let held = state.shared[key] {
                    state.shared[key] = (held.bytes, held.holders + 1)
                    return
                }
                state.shared[key] = (bytes, 1)
            }
            state.total += bytes
        }
    }

    /// Gives back what ``charge(_:connection:sharedList:)`` charged.
    func credit(_ bytes: Int, connection: UInt64, sharedList: ObjectIdentifier?, byBudget: Bool = false) {
        state.withLock { state in
            if let held = state.perConnection[connection] {
                let remaining = held - bytes
                state.perConnection[connection] = remaining > 0 ? remaining : nil
            }
            if byBudget { state.released += 1 }
            if let key = sharedList, let held = state.shared[key] {
                if held.holders > 1 {
                    state.shared[key] = (held.bytes, held.holders - 1)
                    return
                }
                state.shared[key] = nil
            }
            state.total -= bytes
        }
    }

    /// Releases snapshots, least recently used first from the connection holding the most,
    /// until the total is within the limit; `sparing` (the snapshot just made) is kept.
    func enforce(sparing: String) {
        var tried = Set<UInt64>()
        while true {
            let victim: FetchResultRegistry? = state.withLock { state in
                guard state.total > limit else { return nil }
                let candidates = state.perConnection.filter { !tried.contains($0.key) }
                guard let heaviest = candidates.max(by: { $0.value < $1.value })?.key else { return nil }
                tried.insert(heaviest)
                return state.registries[heaviest]?.registry
            }
            guard let victim else { return }
            // Evict from this connection until within the limit or it has nothing left to give.
            while state.withLock({ $0.total > limit }), victim.evictLeastRecentlyUsed(sparing: sparing) {}
        }
    }
}
