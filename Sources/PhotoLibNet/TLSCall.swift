internal import CPhotoLibTLS

/// Runs CPhotoLibTLS calls: hands them a message buffer and turns their status codes into
/// ``TLSError``s (the one place the shim's codes are mapped).
enum TLSCall {
    /// Calls `body` with a message buffer and its capacity; throws unless it returns
    /// `CPhotoLibTLS_OK`.
    static func run(_ body: (UnsafeMutablePointer<CChar>, Int) -> Int32) throws(TLSError) {
        var message = [CChar](repeating: 0, count: Int(CPhotoLibTLS_MESSAGE_CAPACITY))
        let status = message.withUnsafeMutableBufferPointer { buffer in
            body(buffer.baseAddress!, buffer.count)
        }
        guard status == CPhotoLibTLS_OK else {
            throw error(status: status, message: text(message))
        }
    }

    /// Calls `body` with a message buffer, returning its status and message (for calls
    /// whose non-OK answers are not all failures).
    static func status(_ body: (UnsafeMutablePointer<CChar>, Int) -> Int32) -> (Int32, String) {
        var message = [CChar](repeating: 0, count: Int(CPhotoLibTLS_MESSAGE_CAPACITY))
        let status = message.withUnsafeMutableBufferPointer { buffer in
            body(buffer.baseAddress!, buffer.count)
        }
        return (status, status == CPhotoLibTLS_OK ? "" : text(message))
    }

    /// The NUL-terminated text in `message`.
    static func text(_ message: [CChar]) -> String {
        let bytes = message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The error for a shim status (other than OK and WANT_INPUT).
    static func error(status: Int32, message: String) -> TLSError {
        switch status {
        case CPhotoLibTLS_PIN_MISMATCH: TLSError(.fingerprintMismatch, message)
        case CPhotoLibTLS_UNTRUSTED: TLSError(.untrustedCertificate, message)
        case CPhotoLibTLS_PEER_ALERT: TLSError(.handshakeRefused, message)
        case CPhotoLibTLS_PROTOCOL, CPhotoLibTLS_CLOSED: TLSError(.protocolViolation, message)
        case CPhotoLibTLS_BAD_IDENTITY: TLSError(.badIdentity, message)
        case CPhotoLibTLS_INVALID_ARGUMENT: TLSError(.invalidArgument, message)
        default: TLSError(.internalError, message.isEmpty ? "TLS failed with status \(status)" : message)
        }
    }
}
