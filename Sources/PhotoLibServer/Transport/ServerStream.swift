import Dispatch
import PhotoLibCore
import PhotoLibWire

/// The state of one call on a connection. Confined to the connection's queue.
final class ServerStream {
    let id: UInt32
    /// The method's handler and fast path.
    let route: RPCRoute
    /// The method called.
    var method: MethodInfo { route.method }
    /// The running handler; `nil` until it starts (a call with a fast path waits for its
    /// request first, and may finish without one).
    var task: Task<Void, Never>?
    /// Credit for our response MESSAGE bytes.
    var sendWindow: SendWindow
    /// Credit the client has left for request MESSAGE bytes.
    var receiveWindow: FlowWindow
    /// Responses waiting for credit, with the handler continuations to resume once sent.
    /// Only the last message of a batch carries a continuation.
    var pending: [(payload: [UInt8], continuation: CheckedContinuation<Void, any Error>?)] = []
    /// A status waiting behind `pending`.
    var pendingStatus: Wire.Status?
    /// Feeds the handler's request messages; `nil` until the handler starts.
    var inbound: AsyncThrowingStream<[UInt8], any Error>.Continuation?
    var requestEnded = false
    var requestCount = 0
    /// Request MESSAGE bytes handed to the handler and not yet consumed by it: their
    /// connection credit goes back when it consumes them, or when the call ends first.
    var unconsumedRequestBytes = 0
    var deadline: DispatchWorkItem?

    init(id: UInt32, route: RPCRoute, sendWindow: Int, maxSendWindow: Int, receiveWindow: Int) {
        self.id = id
        self.route = route
        self.sendWindow = SendWindow(initial: sendWindow, maximum: maxSendWindow)
        self.receiveWindow = FlowWindow(initial: receiveWindow)
    }

    /// Whether the call waits for its request to try the method's fast path.
    var awaitsInlineRequest: Bool { task == nil && route.inline != nil }

    /// Fails every waiting send and stops the request stream and the handler.
    func abandon(_ error: any Error) {
        let waiting = pending
        pending = []
        pendingStatus = nil
        deadline?.cancel()
        deadline = nil
        inbound?.finish(throwing: error)
        task?.cancel()
        for entry in waiting { entry.continuation?.resume(throwing: error) }
    }
}
