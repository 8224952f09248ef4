import Foundation
import PhotoLibCore
import PhotoLibWire

/// One `Subscribe` call: what it observes, and a bounded queue of events waiting for the
/// client's flow-control credit.
///
/// The hub never waits for a subscriber: it enqueues and moves on. When a subscriber falls
/// more than ``maxQueued`` notifications behind, its queued notifications are replaced by a
/// single resync (every registered result with `hasIncrementalChanges = false`), so a
/// stalled client costs bounded memory and delays nobody.
final class Subscriber: @unchecked Sendable {
    /// A registered fetch result: the shared entry and the client's current snapshot of it.
    struct Registration {
        var entry: LiveEntry
        var snapshotID: String
        var count: Int
        /// Resync snapshots (static copies) that may have been sent: kept readable after the
        /// live result moves on, since the client reads them after the notification (at most
        /// ``maxPinned``; the oldest is released first).
        var pinned: [String] = []
    }
    /// Resync snapshots kept per registration.
    static let maxPinned = 2

    let id: UInt64
    let session: ConnectionSession
    let maxQueued: Int
    /// Registered fetch results, by the client's first snapshot id (stable for the subscription).
    var results: [String: Registration] = [:]
    /// Registered objects.
    var objects: Set<String> = []
    /// The change token the client's state is at (the last notification queued).
    var token: Int64 = 0
    /// Whether the first request has been handled (resume must come first).
    var started = false

    private let lock = NSLock()
    private var queue: [Wire.SubscriptionEvent.Event] = []
    private var waiter: CheckedContinuation<Wire.SubscriptionEvent.Event?, Never>?
    private var finished = false
    /// Notifications replaced by resyncs (for tests and logs).
    private(set) var resyncCount = 0

    init(id: UInt64, session: ConnectionSession, maxQueued: Int) {
        self.id = id
        self.session = session
        self.maxQueued = maxQueued
    }

    /// Queues an event. When a notification finds ``maxQueued`` notifications still waiting,
    /// those and it are replaced by the one notification `resync` builds from them (oldest
    /// first), so the client's token chain stays contiguous. Called on the hub's queue.
    func enqueue(_ event: Wire.SubscriptionEvent.Event, resync: ([Wire.ChangeNotification]) -> Wire.SubscriptionEvent.Event? = { _ in nil }) {
        guard case .change(let notification) = event else {
            push(event)
            return
        }
        let replacement: Wire.SubscriptionEvent.Event? = lock.withLock {
            let waiting = queue.compactMap { event -> Wire.ChangeNotification? in
                if case .change(let change) = event { return change } else { return nil }
            }
            guard waiting.count >= maxQueued, let replacement = resync(waiting + [notification]) else { return nil }
            queue.removeAll { if case .change = $0 { return true } else { return false } }
            resyncCount += 1
            return replacement
        }
        push(replacement ?? event)
    }

    private func push(_ event: Wire.SubscriptionEvent.Event) {
        let waiting: CheckedContinuation<Wire.SubscriptionEvent.Event?, Never>? = lock.withLock {
            guard !finished else { return nil }
            if let waiter {
                self.waiter = nil
                return waiter
            }
            queue.append(event)
            return nil
        }
        waiting?.resume(returning: event)
    }

    /// Events queued and not yet sent.
    var queuedCount: Int { lock.withLock { queue.count } }

    /// The next event to send, waiting for one; `nil` once finished.
    func next() async -> Wire.SubscriptionEvent.Event? {
        await withCheckedContinuation { continuation in
            let ready: Wire.SubscriptionEvent.Event?? = lock.withLock {
                if finished { return .some(nil) }
                if !queue.isEmpty { return .some(queue.removeFirst()) }
                waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Ends the subscription: the sender stops.
    func finish() {
        let waiting: CheckedContinuation<Wire.SubscriptionEvent.Event?, Never>? = lock.withLock {
            finished = true
            queue.removeAll()
            defer { waiter = nil }
            return waiter
        }
        waiting?.resume(returning: nil)
    }
}
