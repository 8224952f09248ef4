import Foundation
import PhotoLibCore
import PhotoLibWire
import Synchronization

/// One `Subscribe` call: what it observes, and a bounded queue of events waiting for the
/// client's flow-control credit.
///
/// The hub never waits for a subscriber: it enqueues and moves on. When a subscriber falls
/// more than ``maxQueued`` notifications behind, its queued notifications are replaced by a
/// single resync (every registered result with `hasIncrementalChanges = false`), so a
/// stalled client costs bounded memory and delays nobody.
///
/// `@unchecked Sendable`: the registrations (``results``, ``objects``, ``token``,
/// ``started``) are read and written only on the hub's queue (`photolibd.changes`); the
/// event queue shared with the sending task is in ``outbox``, behind its `Mutex`.
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

    /// What ``outbox`` guards: events waiting for the sender, and the sender waiting for one.
    private struct Outbox {
        var queue: [Wire.SubscriptionEvent.Event] = []
        var waiter: CheckedContinuation<Wire.SubscriptionEvent.Event?, Never>?
        var finished = false
        /// Notifications replaced by resyncs (for tests and logs).
        var resyncCount = 0
    }

    /// Guards ``Outbox``. The hub's `resync` closure runs under it (it takes the session's
    /// `FetchResultRegistry` lock); a continuation is resumed only after it is released.
    private let outbox = Mutex(Outbox())

    /// Notifications replaced by resyncs (for tests and logs).
    var resyncCount: Int { outbox.withLock { $0.resyncCount } }

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
        let maxQueued = self.maxQueued
        let replacement: Wire.SubscriptionEvent.Event? = outbox.withLock { outbox in
            let waiting = outbox.queue.compactMap { event -> Wire.ChangeNotification? in
                if case .change(let change) = event { return change } else { return nil }
            }
            guard waiting.count >= maxQueued, let replacement = resync(waiting + [notification]) else { return nil }
            outbox.queue.removeAll { if case .change = $0 { return true } else { return false } }
            outbox.resyncCount += 1
            return replacement
        }
        push(replacement ?? event)
    }

    private func push(_ event: Wire.SubscriptionEvent.Event) {
        let waiting: CheckedContinuation<Wire.SubscriptionEvent.Event?, Never>? = outbox.withLock { outbox in
            guard !outbox.finished else { return nil }
            if let waiter = outbox.waiter {
                outbox.waiter = nil
                return waiter
            }
            outbox.queue.append(event)
            return nil
        }
        waiting?.resume(returning: event)
    }

    /// Events queued and not yet sent.
    var queuedCount: Int { outbox.withLock { $0.queue.count } }

    /// The next event to send, waiting for one; `nil` once finished.
    func next() async -> Wire.SubscriptionEvent.Event? {
        await withCheckedContinuation { continuation in
            let ready: Wire.SubscriptionEvent.Event?? = outbox.withLock { outbox in
                if outbox.finished { return .some(nil) }
                if !outbox.queue.isEmpty { return .some(outbox.queue.removeFirst()) }
                outbox.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Ends the subscription: the sender stops.
    func finish() {
        let waiting: CheckedContinuation<Wire.SubscriptionEvent.Event?, Never>? = outbox.withLock { outbox in
            outbox.finished = true
            outbox.queue.removeAll()
            defer { outbox.waiter = nil }
            return outbox.waiter
        }
        waiting?.resume(returning: nil)
    }
}
