import PhotoLibCore
import PhotoLibWire

/// Takes the single response message of a unary call on the connection's queue and hands it
/// to the waiting caller when the call ends.
///
/// `@unchecked Sendable`: `response` is touched only on the connection's queue (see
/// ``ResponseConsumer``).
final class UnaryResponseConsumer: ResponseConsumer, @unchecked Sendable {
    private let method: MethodInfo
    private let continuation: CheckedContinuation<[UInt8], any Error>
    private var response: [UInt8]?

    init(method: MethodInfo, continuation: CheckedContinuation<[UInt8], any Error>) {
        self.method = method
        self.continuation = continuation
    }

    func receive(_ payload: [UInt8]) throws(PhotoLibError) {
        guard response == nil else {
            throw Self.extraResponse(method)
        }
        response = payload
    }

    func finish(_ error: PhotoLibError?) {
        if let error {
            continuation.resume(throwing: error)
        } else if let response {
            continuation.resume(returning: response)
        } else {
            continuation.resume(throwing: Self.noResponse(method))
        }
    }

    /// A unary answer with a second message.
    static func extraResponse(_ method: MethodInfo) -> PhotoLibError {
        PhotoLibError(.internalError, "\(method.name) answered with more than one message", reason: .protocolViolation)
    }

    /// A unary call that ended with OK and no message.
    static func noResponse(_ method: MethodInfo) -> PhotoLibError {
        PhotoLibError(.internalError, "\(method.name) ended with OK but no response", reason: .protocolViolation)
    }
}
