import PhotoLibCore
import PhotoLibWire

/// One running call as a handler sees it: its requests, its response channel, its session.
public final class ServerCall: Sendable {
    /// The method called.
    public let method: MethodDescriptor
    /// The stream id on the connection.
    public let streamID: UInt32
    /// The connection's session (authentication, snapshots…).
    public let session: ConnectionSession
    /// Request messages, in order; ends at the client's END_STREAM.
    let requests: AsyncThrowingStream<[UInt8], any Error>
    private let connection: ServerConnection
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

    init(method: MethodDescriptor, streamID: UInt32, session: ConnectionSession, requests: AsyncThrowingStream<[UInt8], any Error>, connection: ServerConnection) {
        self.method = method
        self.streamID = streamID
        self.session = session
        self.requests = requests
        self.connection = connection
    }

    /// The single request message of a unary or server-streaming call, decoded.
    ///
    /// Throws `invalidArgument` when the client sent none or more than one.
    public func singleRequest<M: WireMessage>(_ type: M.Type) async throws -> M {
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
    public func nextRequest<M: WireMessage>(_ type: M.Type) async throws -> M? {
        guard let payload = try await iterator.next() else { return nil }
        connection.consumed(payload.count, stream: streamID)
        return try M(decoding: payload)
    }

    /// Ends the call from the server side with `CANCELLED` (e.g. `CancelImageRequest`).
    public func cancelByServer(_ message: String) {
        connection.cancel(stream: streamID, message: message)
    }

    /// Sends already encoded response messages in order (one hop for all).
    public func send(encoded messages: [[UInt8]]) async throws {
        try await connection.send(messages, stream: streamID)
    }

    /// Sends one response message, waiting for flow-control credit.
    public func send(_ message: some WireMessage) async throws {
        try await connection.send(message.encoded(), stream: streamID)
    }
}
