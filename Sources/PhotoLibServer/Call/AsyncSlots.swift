import Synchronization

/// At most `limit` holders at once; a task asking for a slot when all are taken waits,
/// suspended and holding nothing, until one is given back (first come, first served).
/// A waiting task that is cancelled stops waiting at once with `CancellationError`.
///
/// Used per connection for the image deliveries that may be large
/// (``ConnectionSession/largeImages``): a client that opens many of them and reads nothing
/// makes the server hold at most `limit` images, not one per open call.
final class AsyncSlots: Sendable {
    /// The most holders at once.
    let limit: Int

    private struct Waiter {
        var id: UInt64
        var continuation: CheckedContinuation<Void, any Error>
    }

    /// What a task about to wait found under the lock.
    private enum QueueOutcome {
        case cancelled, acquired, queued
    }

    private struct State {
        var free: Int
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
        /// Waiters cancelled before they were queued (their cancellation handler ran
        /// first); at most one entry per task waiting now.
        var cancelledEarly: Set<UInt64> = []
    }

    /// Guards the free count and the waiters. A leaf lock: continuations are resumed after
    /// it is released.
    private let state: Mutex<State>

    /// Slots for at most `limit` holders at once (at least one).
    init(limit: Int) {
        self.limit = max(1, limit)
        state = Mutex(State(free: max(1, limit)))
    }

    /// Holders now.
    var inUse: Int { state.withLock { limit - $0.free } }

    /// Tasks waiting for a slot now.
    var waiting: Int { state.withLock { $0.waiters.count } }

    /// Takes a slot, waiting for one if all are taken; every successful call is matched by
    /// one ``release()``. Throws `CancellationError` if the task is cancelled first.
    func acquire() async throws {
        try Task.checkCancellation()
        let id: UInt64? = state.withLock { state in
            if state.free > 0 {
                state.free -= 1
                return nil
            }
            state.nextID &+= 1
            return state.nextID
        }
        guard let id else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: QueueOutcome = state.withLock { state in
                    if state.cancelledEarly.remove(id) != nil { return .cancelled }
                    // A slot may have come back between the first look and now.
                    if state.free > 0 && state.waiters.isEmpty {
                        state.free -= 1
                        return .acquired
                    }
                    state.waiters.append(Waiter(id: id, continuation: continuation))
                    return .queued
                }
                switch outcome {
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .acquired: continuation.resume()
                case .queued: break  // release() or the cancellation handler resumes it
                }
            }
        } onCancel: {
            let waiter: Waiter? = state.withLock { state in
                if let index = state.waiters.firstIndex(where: { $0.id == id }) {
                    return state.waiters.remove(at: index)
                }
                // Not queued yet (or already given a slot): remember, unless it was served.
                state.cancelledEarly.insert(id)
                return nil
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
        // Served: a cancellation that came after the slot was given left a mark; drop it.
        state.withLock { _ = $0.cancelledEarly.remove(id) }
    }

    /// Gives a slot back: to the longest waiting task, else to the free count.
    func release() {
        let next: Waiter? = state.withLock { state in
            if !state.waiters.isEmpty { return state.waiters.removeFirst() }
            state.free = min(limit, state.free + 1)
            return nil
        }
        next?.continuation.resume()
    }
}
