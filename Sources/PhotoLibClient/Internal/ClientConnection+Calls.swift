import PhotoLibCore
import PhotoLibWire

extension ClientConnection {
    /// A unary call: one request, one response.
    func unary<Request: WireMessage, Response: WireMessage>(_ method: MethodDescriptor, _ request: Request, timeout: Double? = nil) async throws -> Response {
        let (id, responses) = try await startCall(method, requests: [request.encoded()], endStream: true, timeout: timeout ?? configuration.callTimeout)
        var response: Response?
        do {
            for try await payload in responses {
                consumed(payload.count, stream: id)
                guard response == nil else {
                    throw PhotoLibError(.internalError, "\(method.name) answered with more than one message", reason: .protocolViolation)
                }
                response = try Response(decoding: payload)
            }
        } catch is CancellationError {
            cancel(id)
            throw PhotoLibError(.cancelled, "\(method.name) was cancelled")
        }
        guard let response else {
            throw PhotoLibError(.internalError, "\(method.name) ended with OK but no response", reason: .protocolViolation)
        }
        return response
    }

    /// A server-streaming call: one request, then each response as it arrives.
    ///
    /// Credit is returned to the server as the caller consumes messages, so a slow reader
    /// slows the server down instead of growing buffers. Stopping the iteration cancels the call.
    func serverStreaming<Request: WireMessage, Response: WireMessage>(_ method: MethodDescriptor, _ request: Request, timeout: Double? = nil) async throws -> AsyncThrowingStream<Response, any Error> {
        let (id, responses) = try await startCall(method, requests: [request.encoded()], endStream: true, timeout: timeout)
        let (stream, continuation) = AsyncThrowingStream<Response, any Error>.makeStream(bufferingPolicy: .bufferingOldest(1))
        let pump = Task {
            do {
                for try await payload in responses {
                    let message = try Response(decoding: payload)
                    // Wait until the consumer has room before returning credit.
                    while case .dropped = continuation.yield(message) {
                        try await Task.sleep(nanoseconds: 1_000_000)
                    }
                    consumed(payload.count, stream: id)
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { [weak self] termination in
            if case .cancelled = termination {
                pump.cancel()
                self?.cancel(id)
            }
        }
        return stream
    }
}

extension ClientConnection {
    /// A client-streaming call: request messages produced by `produce` (each awaited until
    /// flow control lets it go), then the single response.
    func clientStreaming<Response: WireMessage>(
        _ method: MethodDescriptor, timeout: Double? = nil,
        produce: (_ send: (any WireMessage) async throws -> Void) async throws -> Void
    ) async throws -> Response {
        let (id, responses) = try await startCall(method, requests: [], endStream: false, timeout: timeout)
        var previous: [UInt8]?
        do {
            try await produce { message in
                if let pending = previous { try await self.send(pending, stream: id, endStream: false) }
                previous = message.encoded()
            }
            try await send(previous ?? EmptyMessage().encoded(), stream: id, endStream: true)
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
            guard response == nil else {
                throw PhotoLibError(.internalError, "\(method.name) answered with more than one message", reason: .protocolViolation)
            }
            response = try Response(decoding: payload)
        }
        guard let response else {
            throw PhotoLibError(.internalError, "\(method.name) ended with OK but no response", reason: .protocolViolation)
        }
        return response
    }
}
