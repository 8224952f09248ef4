import Foundation
import PhotoLibCore
import PhotoLibWire
import Synchronization

/// One `Subscribe` call: what it observes, and a bounded queue of events waiting for the
/// client's flow-control credit, which the connection pulls from (``ResponseSource``): no
/// task runs per subscriber, and a change reaching many subscribers of one connection is
/// written in one turn of its queue.
///
/// The hub never waits for a subscriber: it enqueues and moves on. When a subscriber falls
/// more than ``maxQueued`` notifications behind, its queued notifications are replaced by a
/// single resync (every registered result with `hasIncrementalChanges = false`), so a
/// stalled client costs bounded memory and delays nobody.
///
/// `@unchecked Sendable`: the registrations (``results``, ``objects``, ``token``,
/// ``started``) are read and written only on the hub's queue (`photolibd.changes`); the
/// event queue shared with the connection is in ``outbox``, behind its `Mutex`.
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
    /// The limited client whose selection this subscription sees (`nil`: everything): its
    /// live results are its own, and object details outside the selection never reach it.
    let limitedTo: String?
    /// Registered fetch results, by the client's first snapshot id (stable for the subscription).
    var results: [String: Registration] = [:]
    /// Registered objects.
    var objects: Set<String> = []
    /// The change token the client's state is at (the last notification queued).
    var token: Int64 = 0
    /// Whether the first request has been handled (resume must come first).
    var started = false

    /// An event waiting to be sent, encoded. Immutable, and shared: the hub builds and
    /// encodes a notification once for all the subscribers it is the same for, and queues
    /// one object for each connection's subscribers (``init(copying:)``: the same bytes go to
    /// each, and the reference counts the connections' queues change as they pull are each
    /// one connection's, not one count all of them and the hub change at once).
    final class Outgoing: Sendable {
        /// The event (the resync reads the notifications still waiting).
        let event: Wire.SubscriptionEvent.Event
        /// `Wire.SubscriptionEvent(event: event).encoded()`.
        let bytes: [UInt8]
        /// Whether ``event`` is a change notification (bounded by ``maxQueued``); the match
        /// binds nothing, so the notification is not copied out.
        var isChange: Bool {
            if case .change = event { return true }
            return false
        }

        init(event: Wire.SubscriptionEvent.Event) {
            self.event = event
            self.bytes = Wire.SubscriptionEvent(event: event).encoded()
        }

        /// The same event with bytes of its own (one copy per connection per round).
        init(copying other: Outgoing) {
            event = other.event
            bytes = other.bytes.withUnsafeBufferPointer { [UInt8]($0) }
        }
    }

    /// What ``outbox`` guards: events waiting for the connection to take them, and the
    /// handler waiting for the subscription to end.
    private struct Outbox {
        var queue: [Outgoing] = []
        /// Told when ``queue`` stops being empty (the connection pulls in its next turn).
        var wake: ResponseSourceWake?
        /// The subscription's handler, waiting in ``untilFinished()``.
        var finishWaiter: CheckedContinuation<Void, Never>?
        var finished = false
        /// Notifications replaced by resyncs (for tests and logs).
        var resyncCount = 0
    }

    /// Guards ``Outbox``. The hub's `resync` closure runs under it (it takes the session's
    /// `FetchResultRegistry` lock); the wake and the continuation are called after it is released.
    private let outbox = Mutex(Outbox())

    /// Notifications replaced by resyncs (for tests and logs).
    var resyncCount: Int { outbox.withLock { $0.resyncCount } }

    init(id: UInt64, session: ConnectionSession, maxQueued: Int, limitedTo: String? = nil) {
        self.limitedTo = limitedTo
        self.id = id
        self.session = session
        self.maxQueued = maxQueued
    }

    /// Queues an event (see ``enqueue(_:resync:)-(Outgoing,_)``).
    func enqueue(
        _ event: Wire.SubscriptionEvent.Event, resync: ([Wire.ChangeNotification]) -> Wire.SubscriptionEvent.Event? = { _ in nil }
    ) {
        enqueue(Outgoing(event: event), resync: resync)
    }

    /// Queues an encoded event, possibly shared with other subscribers, and tells the
    /// connection if it was waiting for none (see ``enqueueDeferringWake(_:resync:)``).
    func enqueue(_ outgoing: Outgoing, resync: ([Wire.ChangeNotification]) -> Wire.SubscriptionEvent.Event? = { _ in nil }) {
        enqueueDeferringWake(outgoing, resync: resync)?()
    }

    /// Queues an encoded event, possibly shared with other subscribers. When a notification
    /// finds ``maxQueued`` notifications still waiting, or is itself too large for one frame
    /// to the client, those and it are replaced by the one notification `resync` builds from
    /// them (oldest first; every registered result non-incremental), so the client's token
    /// chain stays contiguous and the subscription goes on. Called on the hub's queue.
    ///
    /// Returns the connection's wake when the outbox was empty (the connection pulls nothing
    /// until told): the caller gives it, with those of the connection's other subscribers
    /// (``ResponseSourceWake/wakeAll(_:)``), once it is done with them.
    func enqueueDeferringWake(
        _ outgoing: Outgoing, resync: ([Wire.ChangeNotification]) -> Wire.SubscriptionEvent.Event? = { _ in nil }
    ) -> ResponseSourceWake? {
        guard outgoing.isChange else { return push(outgoing) }
        let maxQueued = self.maxQueued
        let oversized = outgoing.bytes.count > session.maxResponseSize
        // The usual case in one critical section: room in the outbox.
        enum Fast { case pushed(ResponseSourceWake?), full }
        let fast: Fast = outbox.withLock { outbox in
            guard outbox.queue.count < maxQueued, !oversized else { return .full }
            guard !outbox.finished else { return .pushed(nil) }
            outbox.queue.append(outgoing)
            return .pushed(outbox.queue.count == 1 ? outbox.wake : nil)
        }
        if case .pushed(let wake) = fast { return wake }
        // A change (checked above): bound only here, on the slow path.
        guard case .change(let notification) = outgoing.event else { return push(outgoing) }
        let replacement: Wire.SubscriptionEvent.Event? = outbox.withLock { outbox in
            guard outbox.queue.count >= maxQueued || oversized else { return nil }
            let waiting = outbox.queue.compactMap { item -> Wire.ChangeNotification? in
                if case .change(let change) = item.event { return change } else { return nil }
            }
            guard waiting.count >= maxQueued || oversized, let replacement = resync(waiting + [notification]) else { return nil }
            outbox.queue.removeAll(where: \.isChange)
            outbox.resyncCount += 1
            return replacement
        }
        if replacement == nil, !oversized {
            return push(outgoing)
        }
        let final = replacement ?? outgoing.event
        guard case .change(let change) = final, Self.exceedsFrame(change, maxResponseSize: session.maxResponseSize) else {
            return push(Outgoing(event: final))
        }
        // Still too large: its object details alone are. They follow in notifications of
        // their own with since_token == change_token (nothing new happened between them).
        var wake: ResponseSourceWake?
        for part in Self.split(change, maxResponseSize: session.maxResponseSize) {
            let told = push(Outgoing(event: .change(part)))
            wake = wake ?? told
        }
        return wake
    }

    /// `notification` as several that each fit a frame of `maxResponseSize`: the first has
    /// the fetch-result details and as many object details as fit, the next ones the rest,
    /// with `since_token == change_token`.
    static func split(_ notification: Wire.ChangeNotification, maxResponseSize: Int) -> [Wire.ChangeNotification] {
        let overhead = 64
        var parts: [Wire.ChangeNotification] = []
        var current = notification
        current.objectChanges = []
        var size = Wire.SubscriptionEvent(event: .change(current)).encoded().count + overhead
        for object in notification.objectChanges {
            let cost = object.encoded().count + 8
            if size + cost > maxResponseSize, !(current.objectChanges.isEmpty && current.fetchResultChanges.isEmpty && parts.isEmpty) {
                parts.append(current)
                current = Wire.ChangeNotification(changeToken: notification.changeToken, sinceToken: notification.changeToken)
                size = Wire.SubscriptionEvent(event: .change(current)).encoded().count + overhead
            }
            current.objectChanges.append(object)
            size += cost
        }
        parts.append(current)
        return parts
    }

    /// Whether `notification`, as a `SubscriptionEvent`, is larger than the client's maximum
    /// frame. Small notifications (under 200 objects, a few tens of KB at most, below the
    /// 128 KiB minimum frame) are not encoded to find out.
    static func exceedsFrame(_ notification: Wire.ChangeNotification, maxResponseSize: Int) -> Bool {
        let objects = notification.objectChanges.count + notification.fetchResultChanges.reduce(0) {
            $0 + $1.insertedAndChangedAssets.count + $1.insertedIndexes.count + $1.removedIndexes.count + $1.changedIndexes.count + $1.moves.count
        }
        guard objects >= 200 else { return false }
        return Wire.SubscriptionEvent(event: .change(notification)).encoded().count > maxResponseSize
    }

    /// Appends `event`; returns the wake to give when it is the only one waiting.
    private func push(_ event: Outgoing) -> ResponseSourceWake? {
        outbox.withLock { outbox in
            guard !outbox.finished else { return nil }
            outbox.queue.append(event)
            // Only the first event wakes the connection: while events wait, either a pull is
            // scheduled already or the stream waits for credit, and takes the rest then.
            return outbox.queue.count == 1 ? outbox.wake : nil
        }
    }

    /// Events queued and not yet taken by the connection.
    var queuedCount: Int { outbox.withLock { $0.queue.count } }

    /// Sends the events through the connection from now on: `wake` tells it that events
    /// wait (it then calls ``nextResponse()`` in its next turn, as credit allows).
    func attach(wake: ResponseSourceWake) {
        let waiting = outbox.withLock { outbox in
            outbox.wake = wake
            return !outbox.queue.isEmpty
        }
        if waiting { wake() }
    }

    /// Returns when the subscription has ended (``finish()``: the subscriber was removed, or
    /// the server is stopping). A cancelled task finishes the subscription.
    func untilFinished() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ended = outbox.withLock { outbox in
                    if outbox.finished { return true }
                    outbox.finishWaiter = continuation
                    return false
                }
                if ended { continuation.resume() }
            }
        } onCancel: {
            finish()
        }
    }

    /// Ends the subscription: nothing more is sent, and ``untilFinished()`` returns.
    func finish() {
        let waiting: CheckedContinuation<Void, Never>? = outbox.withLock { outbox in
            outbox.finished = true
            outbox.queue.removeAll()
            outbox.wake = nil
            defer { outbox.finishWaiter = nil }
            return outbox.finishWaiter
        }
        waiting?.resume()
    }
}

extension Subscriber: ResponseSource {
    /// The oldest waiting event's bytes, taken by the connection (on its queue) when the
    /// stream's credit allows one more message.
    func nextResponse() -> [UInt8]? {
        outbox.withLock { outbox in outbox.queue.isEmpty ? nil : outbox.queue.removeFirst().bytes }
    }
}
