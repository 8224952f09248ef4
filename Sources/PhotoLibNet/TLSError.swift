import PhotoLibCore

/// A TLS failure as a value: what went wrong (``code``), what to do about it (``message``),
/// and for a refused certificate the fingerprints involved.
///
/// Every failure of a session is final: the connection should send what the engine still
/// has to say (an alert, see ``TLSEngine/takeOutput()``) and close.
public struct TLSError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure; an extensible set (compare with the static members).
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String {
            case notTLS = "NOT_TLS"
            case fingerprintMismatch = "FINGERPRINT_MISMATCH"
            case untrustedCertificate = "UNTRUSTED_CERTIFICATE"
            case handshakeRefused = "HANDSHAKE_REFUSED"
            case protocolViolation = "PROTOCOL_VIOLATION"
            case badIdentity = "BAD_IDENTITY"
            case invalidArgument = "INVALID_ARGUMENT"
            case fileSystem = "FILE_SYSTEM"
            case connectionFailed = "CONNECTION_FAILED"
            case internalError = "INTERNAL"
        }

        private let value: Value

        private init(_ value: Value) {
            self.value = value
        }

        /// The peer's first bytes are not a TLS record: it speaks plaintext (or another
        /// protocol) to a TLS endpoint, or answers a TLS client without TLS.
        public static let notTLS = Code(.notTLS)
        /// The server's certificate does not have the fingerprint pinned for it.
        public static let fingerprintMismatch = Code(.fingerprintMismatch)
        /// The server's certificate does not verify against the system's trust store, or
        /// does not name the host (no pin was given).
        public static let untrustedCertificate = Code(.untrustedCertificate)
        /// The peer ended the handshake with an alert (it refused our certificate, our
        /// protocol version or our ALPN protocol).
        public static let handshakeRefused = Code(.handshakeRefused)
        /// The peer's bytes broke the TLS protocol: a malformed or truncated record, a bad
        /// MAC, an unexpected message, or a close in the middle of the handshake.
        public static let protocolViolation = Code(.protocolViolation)
        /// A certificate or key cannot be read, or they do not belong together.
        public static let badIdentity = Code(.badIdentity)
        /// An argument is unusable (a fingerprint that does not parse, a bad host name).
        public static let invalidArgument = Code(.invalidArgument)
        /// Reading or writing the identity's files failed.
        public static let fileSystem = Code(.fileSystem)
        /// The peer could not be reached, or the connection broke (only where this module
        /// does the I/O itself: ``TLSProbe``).
        public static let connectionFailed = Code(.connectionFailed)
        /// Out of memory or an unexpected OpenSSL state.
        public static let internalError = Code(.internalError)

        /// `NOT_TLS`, `FINGERPRINT_MISMATCH`, ….
        public var description: String { value.rawValue }
    }

    /// What kind of failure.
    public var code: Code
    /// What happened and what to do about it, for a person.
    public var message: String
    /// For ``Code/fingerprintMismatch``: the fingerprint that was pinned.
    public var expectedFingerprint: TLSFingerprint?
    /// For ``Code/fingerprintMismatch`` and ``Code/untrustedCertificate``: the fingerprint
    /// of the certificate the server presented.
    public var presentedFingerprint: TLSFingerprint?
    /// For ``Code/notTLS``: the first bytes received (at most 1,024), so that a caller that
    /// knows a plaintext protocol can read what the peer said (a server's refusal, say).
    public var receivedBytes: [UInt8]

    /// Creates an error.
    public init(
        _ code: Code, _ message: String, expectedFingerprint: TLSFingerprint? = nil,
        presentedFingerprint: TLSFingerprint? = nil, receivedBytes: [UInt8] = []
    ) {
        self.code = code
        self.message = message
        self.expectedFingerprint = expectedFingerprint
        self.presentedFingerprint = presentedFingerprint
        self.receivedBytes = receivedBytes
    }

    /// `message (CODE)`.
    public var description: String { "\(message) (TLS \(code))" }

    /// The error as PhotoLib reports it to callers: a refused certificate is
    /// `UNAUTHENTICATED` (the server could not prove who it is), a peer that does not speak
    /// TLS or breaks it `UNAVAILABLE`, an unusable identity or argument `FAILED_PRECONDITION`
    /// or `INVALID_ARGUMENT`.
    public var photoLibError: PhotoLibError {
        let status: StatusCode
        switch code {
        case .fingerprintMismatch, .untrustedCertificate: status = .unauthenticated
        case .notTLS, .handshakeRefused, .protocolViolation, .connectionFailed: status = .unavailable
        case .badIdentity, .fileSystem: status = .failedPrecondition
        case .invalidArgument: status = .invalidArgument
        default: status = .internalError
        }
        return PhotoLibError(status, message)
    }
}
