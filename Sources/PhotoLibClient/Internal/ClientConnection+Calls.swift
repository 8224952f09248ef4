import PhotoLibCore
import PhotoLibWire

// The four call shapes, typed by `PhotoLibraryMethods`' descriptors: a call whose request or
// response type does not match its method does not compile.

extension ClientConnection {
    /// A unary call: one request, one response. The response is taken on the connection's
    /// queue (see ``consume(_:request:timeout:_:)``); cancelling the task cancels the call.
    func unary<Request, Response>(
        _ method: MethodDescriptor<Request, Response, CallKinds.Unary>, _ request: Request, timeout: Double? = nil
    ) async throws -> Response {
        let payload = try await consume(method.info, request: request.encoded(), timeout: timeout ?? configuration.callTimeout) {
            UnaryResponseConsumer(method: method.info, continuation: $0)
        }
        return try Response.decoded(payload)
    }
}

extension ClientConnection {
    /// A client-streaming call: request messages produced by `produce` (each awaited until
    /// flow control lets it go), then the single response.
    func clientStreaming<Request, Response>(
        _ method: MethodDescriptor<Request, Response, CallKinds.ClientStreaming>, timeout: Double? = nil,
        produce: (_ send: (Request) async throws -> Void) async throws -> Void
    ) async throws -> Response {
        let (id, responses) = try await startCall(method.info, requests: [], endStream: false, timeout: timeout)
        var previous: [UInt8]?
        do {
            try await produce { message in
                if let pending = previous { try await self.send(pending, stream: id, endStream: false) }
                previous = message.encoded()
            }
            // No message at all: an empty one (every field at its default) ends the stream.
            try await send(previous ?? [], stream: id, endStream: true)
        } catch {
            cancel(id)
            // Prefer the server's reason (e.g. a STATUS that ended the call while we were sending).
            do {
                for try await _ in responses {}
            } catch let status as PhotoLibError where status.code != .cancelled {
                throw status
            } catch {}
            throw error
        }
        var response: Response?
        for try await payload in responses {
            consumed(payload.count, stream: id)
            guard response == nil else { throw UnaryResponseConsumer.extraResponse(method.info) }
            response = try Response(decoding: payload)
        }
        guard let response else { throw UnaryResponseConsumer.noResponse(method.info) }
        return response
    }
}

/// The responses of a server-streaming call, decoded as the caller
/// iterates: no intermediate buffer and no polling. Each message's flow-control credit goes
/// back to the server when the caller takes it, so a slow reader still slows the server down
/// (the connection's receive windows bound what is buffered). Dropping the sequence before
/// its end cancels the call.
struct ServerStreamResponses<Response: WireMessage>: AsyncSequence, Sendable {
    typealias Element = Response
    let id: UInt32
    let connection: ClientConnection
    let payloads: AsyncThrowingStream<[UInt8], any Error>

    struct AsyncIterator: AsyncIteratorProtocol {
        let id: UInt32
        let connection: ClientConnection
        var payloads: AsyncThrowingStream<[UInt8], any Error>.AsyncIterator

        mutating func next() async throws -> Response? {
            guard let payload = try await payloads.next() else { return nil }
            connection.consumed(payload.count, stream: id)
            return try Response(decoding: payload)
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(id: id, connection: connection, payloads: payloads.makeAsyncIterator())
    }
}

extension ClientConnection {
    /// A server-streaming call: one request, then the responses, decoded as the caller
    /// iterates (see ``ServerStreamResponses``).
    func serverStreaming<Request, Response>(
        _ method: MethodDescriptor<Request, Response, CallKinds.ServerStreaming>, _ request: Request, timeout: Double? = nil
    ) async throws -> ServerStreamResponses<Response> {
        let (id, payloads) = try await startCall(method.info, requests: [request.encoded()], endStream: true, timeout: timeout)
        return ServerStreamResponses(id: id, connection: self, payloads: payloads)
    }
}
