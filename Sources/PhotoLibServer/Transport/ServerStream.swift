import PhotoLibCore
import PhotoLibNet
import PhotoLibWire
import Synchronization

/// A call's work handed to a ``BlockingPool`` (``PooledRPCHandler``): the one thing the pool's
/// thread and the connection's queue share about it.
final class PooledWork: Sendable {
    /// Set when the call ended before its work started (cancelled, past its deadline, the
    /// connection closed): the work is skipped.
    let abandoned = Atomic<Bool>(false)
}

/// The application side of one call on a connection (its protocol state is the
/// connection's `ConnectionStateMachine`'s). Confined to the connection's queue.
///
/// Its stored `var`s are `@exclusivity(unchecked)`: confined to one queue, and never accessed
/// while an access to the same one is in progress (docs/ARCHITECTURE.md, "Exclusivity").
final class ServerStream {
    let id: UInt32
    /// The method's handler and fast path.
    let route: RPCRoute
    /// The method called.
    var method: MethodInfo { route.method }
    /// The running handler; `nil` until it starts (a call with a fast path waits for its
    /// request first, and may finish without one).
    @exclusivity(unchecked) var task: Task<Void, Never>?
    /// The call's work on a pool, while it runs there (pooled routes only).
    @exclusivity(unchecked) var pooledWork: PooledWork?
    /// `CallStart.timeoutMs` (0: no deadline); the connection's state machine keeps the deadline.
    let timeoutMs: UInt64
    /// A response waiting for credit.
    struct PendingResponse {
        /// The encoded message; with ``file``, the message's first bytes.
        var payload: [UInt8]
        /// The message's last bytes, a file's, sent with `sendfile` (plain TCP only).
        var file: FileRegion?
        /// The handler continuation to resume once sent (only the last message of a batch has one).
        var continuation: CheckedContinuation<Void, any Error>?

        /// The whole message's size.
        var size: Int { payload.count + (file?.count ?? 0) }
    }

    /// Responses waiting for credit, in order.
    @exclusivity(unchecked) var pending: [PendingResponse] = []
    /// Where responses come from besides `pending`: pulled when `pending` is empty and
    /// credit allows (``ResponseSource``).
    @exclusivity(unchecked) var source: (any ResponseSource)?
    /// A status waiting behind `pending`.
    @exclusivity(unchecked) var pendingStatus: Wire.Status?
    /// Feeds the handler's request messages; `nil` until the handler starts.
    @exclusivity(unchecked) var inbound: AsyncThrowingStream<[UInt8], any Error>.Continuation?
    /// The client sent END_STREAM (the machine enforces what follows; this feeds the handler).
    @exclusivity(unchecked) var requestEnded = false
    @exclusivity(unchecked) var requestCount = 0

    init(id: UInt32, route: RPCRoute, timeoutMs: UInt64) {
        self.id = id
        self.route = route
        self.timeoutMs = timeoutMs
    }

    /// Whether the call waits for its request to try the method's fast or pooled path.
    var awaitsInlineRequest: Bool { task == nil && pooledWork == nil && route.waitsForRequest }

    /// Fails every waiting send and stops the request stream and the handler.
    func abandon(_ error: any Error) {
        let waiting = pending
        pending = []
        pendingStatus = nil
        source = nil
        inbound?.finish(throwing: error)
        task?.cancel()
        pooledWork?.abandoned.store(true, ordering: .relaxed)
        for entry in waiting { entry.continuation?.resume(throwing: error) }
    }
}
