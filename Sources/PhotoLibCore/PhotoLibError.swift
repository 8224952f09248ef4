/// An error with a gRPC-style code and a message a person can act on.
///
/// Every layer throws this one type, so an error raised in the store reaches a remote
/// client with the same code and message.
public struct PhotoLibError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The status code.
    public var code: StatusCode
    /// What went wrong and, where possible, what to do about it.
    public var message: String
    /// A machine-readable PhotoLib reason for codes that several situations share.
    public var reason: ErrorReason
    /// For a failed `performChanges` batch: the index of the request that failed.
    public var failedRequestIndex: Int?
    /// The underlying failure (a system call's `errno`, SQLite's result code), when there is
    /// one; kept for logs and callers in the same process (the wire carries code, message and
    /// reason, and the message already names the cause).
    public var cause: Cause?

    /// An underlying failure in another error space.
    public struct Cause: Sendable, Hashable, CustomStringConvertible {
        /// Which error space ``code`` belongs to.
        public enum Domain: String, Sendable, Hashable {
            /// POSIX `errno`.
            case posix
            /// An SQLite extended result code.
            case sqlite
        }

        /// The error space.
        public var domain: Domain
        /// The code in that space.
        public var code: Int32
        /// That space's text for it (`strerror`, `sqlite3_errmsg`).
        public var message: String

        /// A cause.
        public init(domain: Domain, code: Int32, message: String) {
            self.domain = domain
            self.code = code
            self.message = message
        }

        /// `sqlite 2067: UNIQUE constraint failed: …`.
        public var description: String { "\(domain.rawValue) \(code): \(message)" }
    }

    /// Creates an error.
    public init(_ code: StatusCode, _ message: String, reason: ErrorReason = .unspecified, failedRequestIndex: Int? = nil) {
        self.code = code
        self.message = message
        self.reason = reason
        self.failedRequestIndex = failedRequestIndex
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}

/// The gRPC status code set, with gRPC's numbers.
public enum StatusCode: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Success.
    case ok = 0
    /// The caller cancelled the call.
    case cancelled = 1
    /// An error without a better code.
    case unknown = 2
    /// The request is malformed: bad argument, predicate, text or image.
    case invalidArgument = 3
    /// The deadline passed before the call finished.
    case deadlineExceeded = 4
    /// An identifier names nothing.
    case notFound = 5
    /// The thing to create exists already.
    case alreadyExists = 6
    /// The credentials do not allow this.
    case permissionDenied = 7
    /// A limit was reached (size, count, memory, connections).
    case resourceExhausted = 8
    /// The system is not in a state that allows this (e.g. an expired history token).
    case failedPrecondition = 9
    /// The operation was aborted (e.g. a transaction conflict).
    case aborted = 10
    /// An index or offset is out of range.
    case outOfRange = 11
    /// The method is not built (yet).
    case unimplemented = 12
    /// A bug or broken invariant in the server.
    case internalError = 13
    /// The server is shutting down or cannot be reached.
    case unavailable = 14
    /// Data was lost or corrupted.
    case dataLoss = 15
    /// No valid credentials.
    case unauthenticated = 16

    /// The gRPC spelling, e.g. `INVALID_ARGUMENT`.
    public var description: String {
        switch self {
        case .ok: return "OK"
        case .cancelled: return "CANCELLED"
        case .unknown: return "UNKNOWN"
        case .invalidArgument: return "INVALID_ARGUMENT"
        case .deadlineExceeded: return "DEADLINE_EXCEEDED"
        case .notFound: return "NOT_FOUND"
        case .alreadyExists: return "ALREADY_EXISTS"
        case .permissionDenied: return "PERMISSION_DENIED"
        case .resourceExhausted: return "RESOURCE_EXHAUSTED"
        case .failedPrecondition: return "FAILED_PRECONDITION"
        case .aborted: return "ABORTED"
        case .outOfRange: return "OUT_OF_RANGE"
        case .unimplemented: return "UNIMPLEMENTED"
        case .internalError: return "INTERNAL"
        case .unavailable: return "UNAVAILABLE"
        case .dataLoss: return "DATA_LOSS"
        case .unauthenticated: return "UNAUTHENTICATED"
        }
    }
}

/// PhotoLib's finer reasons, carried beside the status code (wire enum `ErrorReason`).
public enum ErrorReason: Int, Sendable, Hashable, CaseIterable {
    /// No finer reason.
    case unspecified = 0
    /// A persistent-change token is older than the retained history.
    case persistentChangeTokenExpired = 1
    /// A fetch-result snapshot has expired or was released.
    case fetchResultExpired = 2
    /// A predicate failed to parse or type-check.
    case invalidPredicate = 3
    /// An image could not be decoded.
    case invalidImage = 4
    /// A request in a change batch failed; the batch was not applied.
    case changeRequestFailed = 5
    /// The client's authorization does not cover this.
    case notAuthorized = 6
    /// Text was not valid UTF-8 or contained NUL.
    case invalidText = 7
    /// A protocol rule was broken (framing, stream state).
    case protocolViolation = 8
}
