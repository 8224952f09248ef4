import PhotoLibCore
import PhotoLibNet
import PhotoLibWire

/// One running call as the connection runs it: request payloads in, response payloads out.
/// Handlers see it through the typed ``ServerCall``.
final class UntypedServerCall: Sendable {
    /// The method called.
    let method: MethodInfo
    /// The stream id on the connection.
    let streamID: UInt32
    /// The connection's session (authentication, snapshots…).
    let session: ConnectionSession
    /// Request messages, in order; ends at the client's END_STREAM.
    let requests: AsyncThrowingStream<[UInt8], any Error>
    private let connection: ServerConnection
    /// `nonisolated(unsafe)`: only the handler's one task reads requests (see ``iterator``),
    /// so it is never touched from two threads at once.
    private nonisolated(unsafe) var iteratorStorage: AsyncThrowingStream<[UInt8], any Error>.AsyncIterator?

    /// The one iterator over ``requests`` (a handler reads its requests from one task).
    private var iterator: AsyncThrowingStream<[UInt8], any Error>.AsyncIterator {
        get {
            if let existing = iteratorStorage { return existing }
            let created = requests.makeAsyncIterator()
            iteratorStorage = created
            return created
        }
        set { iteratorStorage = newValue }
    }

    init(method: MethodInfo, streamID: UInt32, session: ConnectionSession, requests: AsyncThrowingStream<[UInt8], any Error>, connection: ServerConnection) {
        self.method = method
        self.streamID = streamID
        self.session = session
        self.requests = requests
        self.connection = connection
    }

    /// The single request message of a unary or server-streaming call, decoded.
    ///
    /// Throws `invalidArgument` when the client sent none or more than one.
    func singleRequest<M: WireMessage>(_ type: M.Type) async throws -> M {
        guard let first = try await iterator.next() else {
            throw PhotoLibError(.invalidArgument, "\(method.name) expects one request message but the client sent none")
        }
        connection.consumed(first.count, stream: streamID)
        guard try await iterator.next() == nil else {
            throw PhotoLibError(.invalidArgument, "\(method.name) expects exactly one request message but the client sent more")
        }
        return try M(decoding: first)
    }

    /// The next request message of a client-streaming call, decoded (`nil` at END_STREAM).
    ///
    /// Its flow-control credit goes back to the client only now, so a slow handler slows
    /// the client down instead of buffering.
    func nextRequest<M: WireMessage>(_ type: M.Type) async throws -> M? {
        guard let payload = try await iterator.next() else { return nil }
        connection.consumed(payload.count, stream: streamID)
        return try M(decoding: payload)
    }

    /// Ends the call from the server side with `CANCELLED` (e.g. `CancelImageRequest`).
    func cancelByServer(_ message: String) {
        connection.cancel(stream: streamID, message: message)
    }

    /// Sends already encoded response messages in order (one hop for all).
    func send(encoded messages: [[UInt8]]) async throws {
        try await connection.send(messages, stream: streamID)
    }

    /// Sends one response message, waiting for flow-control credit.
    func send(_ message: some WireMessage) async throws {
        try await connection.send(message.encoded(), stream: streamID)
    }

    /// From now on the connection also sends what `source` holds, pulling it as credit
    /// allows; returns what tells the connection that `source` has messages (wakes from many
    /// calls of one connection coalesce into one turn of its queue).
    func pull(from source: any ResponseSource) -> ResponseSourceWake {
        connection.attach(source, stream: streamID)
        return ResponseSourceWake(connection: connection, stream: streamID)
    }

    /// Whether ``send(files:)`` may be used: the connection is plain TCP.
    var sendsFiles: Bool { connection.sendsFiles }

    /// Sends messages made of encoded first bytes and a file region sent with `sendfile`, in
    /// order (one hop for all); only when ``sendsFiles``.
    func send(files messages: [(prefix: [UInt8], file: FileRegion)]) async throws {
        try await connection.send(files: messages, stream: streamID)
    }
}

/// One running call as a handler sees it: its typed requests, its typed responses, its
/// session. `Request` and `Response` are the method's (``RPCRouter/register(_:_:)``).
public struct ServerCall<Request: WireMessage, Response: WireMessage>: Sendable {
    private let call: UntypedServerCall

    init(_ call: UntypedServerCall) {
        self.call = call
    }

    /// The method called.
    public var method: MethodInfo { call.method }
    /// The stream id on the connection.
    public var streamID: UInt32 { call.streamID }
    /// The connection's session (authentication, snapshots…).
    public var session: ConnectionSession { call.session }

    /// The single request message of a unary or server-streaming call, decoded.
    ///
    /// Throws `invalidArgument` when the client sent none or more than one.
    public func singleRequest() async throws -> Request {
        try await call.singleRequest(Request.self)
    }

    /// The next request message of a client-streaming call, decoded (`nil` at END_STREAM).
    ///
    /// Its flow-control credit goes back to the client only now, so a slow handler slows
    /// the client down instead of buffering.
    public func nextRequest() async throws -> Request? {
        try await call.nextRequest(Request.self)
    }

    /// Sends one response message, waiting for flow-control credit.
    public func send(_ response: Response) async throws {
        try await call.send(response)
    }

    /// Sends already encoded response messages in order (one hop for all); each must be an
    /// encoded `Response`.
    public func send(encoded messages: [[UInt8]]) async throws {
        try await call.send(encoded: messages)
    }

    /// Whether ``send(files:)`` may be used: the connection is plain TCP (TLS must see the
    /// bytes it encrypts).
    var sendsFiles: Bool { call.sendsFiles }

    /// Sends response messages each made of its encoded first bytes (`prefix`) and a file's
    /// bytes (`file`) that the socket sends with `sendfile(2)`, straight from the page cache;
    /// `prefix` + the region must encode a `Response`. Only when ``sendsFiles``.
    func send(files messages: [(prefix: [UInt8], file: FileRegion)]) async throws {
        try await call.send(files: messages)
    }

    /// Ends the call from the server side with `CANCELLED` (e.g. `CancelImageRequest`).
    public func cancelByServer(_ message: String) {
        call.cancelByServer(message)
    }

    /// Lets the connection pull responses (each an encoded `Response`) from `source`; returns
    /// what tells it some wait (``UntypedServerCall/pull(from:)``).
    func pull(from source: any ResponseSource) -> ResponseSourceWake {
        call.pull(from: source)
    }
}
