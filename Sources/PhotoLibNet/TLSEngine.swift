internal import CPhotoLibTLS

/// One TLS 1.3 session with no I/O of its own: ciphertext from the peer in, plaintext out;
/// plaintext in, ciphertext for the peer out. It sits between a connection's socket bytes
/// and its frames, whatever drives the socket (a reader thread, an event loop, a test's
/// byte arrays).
///
/// ```
/// let engine = try TLSEngine.client(context: .client(), serverName: "nas.local", pin: fingerprint)
/// socket.send(engine.takeOutput())                    // ClientHello
/// let plaintext = try engine.receive(socketBytes)      // handshake, then application data
/// socket.send(engine.takeOutput())                    // handshake answers, alerts
/// socket.send(try engine.send(frameBytes))            // encrypted records
/// ```
///
/// Plaintext sent before the handshake completes is held and encrypted as soon as it does.
/// The first bytes received must be a TLS record: anything else (a plaintext client on a
/// TLS port, a plaintext server answering a TLS client) fails at once with
/// ``TLSError/Code/notTLS`` and a message saying what arrived. Any failure is final: later
/// calls throw it again, and ``takeOutput()`` holds the alert for the peer, if any.
///
/// Not thread-safe: use an engine from one thread at a time (a connection's queue).
public final class TLSEngine {
    /// Which side this engine plays.
    public let role: TLSContext.Role
    /// The server's name, for a client (used in messages; sent as SNI when a host name).
    public let serverName: String?
    /// For a client: the pinned fingerprint, if any.
    public let pin: TLSFingerprint?

    private let context: TLSContext
    private let session: OpaquePointer
    private var established = false
    private var failure: TLSError?
    /// The first bytes received, kept until there are enough to tell a TLS record.
    private var firstBytes: [UInt8]? = []
    /// Plaintext given before the handshake completed.
    private var heldPlaintext: [UInt8] = []
    /// Whether the peer closed the session (close_notify).
    public private(set) var isClosedByPeer = false

    private init(context: TLSContext, serverName: String?, pin: TLSFingerprint?) throws(TLSError) {
        self.role = context.role
        self.context = context
        self.serverName = serverName
        self.pin = pin
        var session: OpaquePointer?
        try TLSCall.run { message, capacity in
            if let pin {
                pin.bytes.withUnsafeBufferPointer { pinBytes in
                    CPhotoLibTLS_session_new(context.pointer, serverName, pinBytes.baseAddress, &session, message, capacity)
                }
            } else {
                CPhotoLibTLS_session_new(context.pointer, serverName, nil, &session, message, capacity)
            }
        }
        guard let session else { throw TLSError(.internalError, "OpenSSL returned no session") }
        self.session = session
    }

    deinit {
        CPhotoLibTLS_session_free(session)
    }

    /// The server side of a connection just accepted.
    public static func server(context: TLSContext) throws(TLSError) -> TLSEngine {
        guard context.role == .server else {
            throw TLSError(.invalidArgument, "a server TLS engine needs a server context (TLSContext.server(identity:))")
        }
        return try TLSEngine(context: context, serverName: nil, pin: nil)
    }

    /// The client side of a connection to `serverName` (host name or address, as the user
    /// gave it). With a `pin`, the server must present the certificate of that fingerprint
    /// and nothing else is checked; without one, its certificate must verify against the
    /// system's trust store and name `serverName`. The first flight (ClientHello) is ready
    /// in ``takeOutput()`` at once.
    ///
    /// Related OpenSSL documentation: SSL_CTX_set_cert_verify_callback(3), SSL_set1_host(3).
    public static func client(context: TLSContext, serverName: String, pin: TLSFingerprint?) throws(TLSError) -> TLSEngine {
        guard context.role == .client else {
            throw TLSError(.invalidArgument, "a client TLS engine needs a client context (TLSContext.client())")
        }
        let engine = try TLSEngine(context: context, serverName: serverName, pin: pin)
        // Writes the ClientHello; the answer is awaited.
        try engine.advance()
        return engine
    }

    /// Whether the handshake has completed (and the peer was verified, for a client).
    public var isHandshakeComplete: Bool { established }

    /// For a client, once the server presented its certificate: that certificate's
    /// fingerprint (also when it was refused). `nil` on a server.
    public var peerFingerprint: TLSFingerprint? {
        var bytes = [UInt8](repeating: 0, count: TLSFingerprint.size)
        guard CPhotoLibTLS_session_peer_fingerprint(session, &bytes) == 1 else { return nil }
        return TLSFingerprint(bytes: bytes)
    }

    /// The negotiated version (`TLSv1.3`), or `""` before the handshake completes.
    public var protocolVersion: String {
        String(cString: CPhotoLibTLS_session_version(session))
    }

    /// The error that ended the session, if one did.
    public var error: TLSError? { failure }

    // MARK: Receiving

    /// Takes ciphertext from the peer, in pieces of any size (a record may arrive byte by
    /// byte), and returns the plaintext it completes (often none). Answers it produces
    /// (handshake messages, alerts) wait in ``takeOutput()``: send them after each call.
    /// After the peer's close_notify, ``isClosedByPeer`` is true and further bytes are ignored.
    public func receive(_ ciphertext: [UInt8]) throws(TLSError) -> [UInt8] {
        if let failure { throw failure }
        if isClosedByPeer || ciphertext.isEmpty { return [] }
        if firstBytes != nil { try checkFirstBytes(ciphertext) }
        let (fed, fedMessage) = TLSCall.status { message, capacity in
            ciphertext.withUnsafeBufferPointer { input in
                CPhotoLibTLS_session_feed(session, input.baseAddress, input.count, message, capacity)
            }
        }
        if fed != CPhotoLibTLS_OK { throw fail(TLSCall.error(status: fed, message: fedMessage)) }
        if !established {
            try advance()
            if !established { return [] }
        }
        return try readPlaintext()
    }

    /// Drives the handshake; on completion encrypts the plaintext held meanwhile.
    private func advance() throws(TLSError) {
        let (status, message) = TLSCall.status { message, capacity in
            CPhotoLibTLS_session_advance(session, message, capacity)
        }
        switch status {
        case CPhotoLibTLS_OK:
            established = true
            if !heldPlaintext.isEmpty {
                let held = heldPlaintext
                heldPlaintext = []
                try encrypt(held)
            }
        case CPhotoLibTLS_WANT_INPUT:
            break
        default:
            throw fail(describe(status: status, message: message))
        }
    }

    /// Bytes decrypted per read: one whole TLS record's plaintext.
    private static let recordSize = 16 << 10

    private func readPlaintext() throws(TLSError) -> [UInt8] {
        // A temporary buffer (not a stored one): an idle connection keeps no 16 KiB around.
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.recordSize) { (buffer) throws(TLSError) -> [UInt8] in
            try readPlaintext(into: buffer)
        }
    }

    private func readPlaintext(into buffer: UnsafeMutableBufferPointer<UInt8>) throws(TLSError) -> [UInt8] {
        var plaintext: [UInt8] = []
        while true {
            var count = 0
            let (status, message) = TLSCall.status { message, capacity in
                CPhotoLibTLS_session_read(session, buffer.baseAddress, buffer.count, &count, message, capacity)
            }
            switch status {
            case CPhotoLibTLS_OK:
                if plaintext.isEmpty && count == buffer.count {
                    plaintext.reserveCapacity(count * 2)
                }
                plaintext.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[0..<count]))
            case CPhotoLibTLS_WANT_INPUT:
                return plaintext
            case CPhotoLibTLS_CLOSED:
                isClosedByPeer = true
                return plaintext
            default:
                throw fail(describe(status: status, message: message))
            }
        }
    }

    /// How many of a non-TLS peer's first bytes ``TLSError/receivedBytes`` keeps: enough for
    /// a plaintext GOAWAY with its message.
    static let keptFirstBytes = 1024

    /// Refuses a peer whose first bytes are not a TLS record (handshake, or an alert
    /// answering our ClientHello), with words for what it sent.
    private func checkFirstBytes(_ bytes: [UInt8]) throws(TLSError) {
        var first = firstBytes ?? []
        first.append(contentsOf: bytes.prefix(Self.keptFirstBytes - first.count))
        guard first.count >= 2 else {
            firstBytes = first
            return
        }
        firstBytes = nil
        let contentType = first[0]
        let acceptable: Bool = switch role {
        case .server: contentType == 0x16
        case .client: contentType == 0x16 || contentType == 0x15
        }
        if acceptable && first[1] == 0x03 { return }
        let what = Self.describePlaintext(first)
        let message: String = switch role {
        case .server:
            "the client sent \(what) instead of a TLS handshake: this port speaks TLS only; connect with TLS (photolib --fingerprint SHA256:… or PHOTOLIB_FINGERPRINT, as printed by `photolibd serve --tls`, or --tls for a CA-signed certificate)"
        case .client:
            "the server at \(serverName ?? "?") answered with \(what) instead of a TLS handshake: it does not speak TLS on this port; start it with `photolibd serve --tls`, or connect without TLS (loopback only)"
        }
        throw fail(TLSError(.notTLS, message, receivedBytes: first))
    }

    /// Words for the first bytes of a non-TLS peer: a plaintext PhotoLib frame, HTTP, SSH,
    /// or their hexadecimal.
    static func describePlaintext(_ bytes: [UInt8]) -> String {
        if bytes.count >= 5, bytes[0] == 0, (1...9).contains(bytes[4]) {
            let names = ["HELLO", "WELCOME", "CALL", "MESSAGE", "STATUS", "CANCEL", "WINDOW_UPDATE", "PING", "GOAWAY"]
            return "a plaintext PhotoLib \(names[Int(bytes[4]) - 1]) frame"
        }
        let text = String(decoding: bytes.prefix(8), as: UTF8.self)
        if text.hasPrefix("GET ") || text.hasPrefix("POST ") || text.hasPrefix("HTTP/") || text.hasPrefix("PRI * ") {
            return "HTTP"
        }
        if text.hasPrefix("SSH-") { return "an SSH greeting" }
        let hex = bytes.prefix(8).map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined(separator: " ")
        return "bytes that are not TLS (\(hex)…)"
    }

    /// The error for a failed handshake or record, with what to do about it.
    private func describe(status: Int32, message: String) -> TLSError {
        var error = TLSCall.error(status: status, message: message)
        let server = serverName ?? "the server"
        switch error.code {
        case .fingerprintMismatch:
            let presented = peerFingerprint
            error.expectedFingerprint = pin
            error.presentedFingerprint = presented
            error.message =
                "the TLS certificate of \(server) has fingerprint \(presented?.description ?? "?"), but \(pin?.description ?? "?") is pinned for it: the connection was refused. If the server's certificate was replaced on purpose (a new library, or its tls/ directory removed), compare the fingerprint `photolibd serve` prints on the server and pin it again (photolib tls pin --server HOST:PORT SHA256:…, or PHOTOLIB_FINGERPRINT); otherwise someone may be intercepting the connection"
        case .untrustedCertificate:
            // The advice fits OpenSSL's verify result: pin a self-signed certificate, trust an
            // unknown authority, renew an expired certificate, use a name the certificate holds.
            let presented = peerFingerprint
            error.presentedFingerprint = presented
            if let failure = TLSVerifyFailure(session: session) {
                error.message = failure.message(detail: message, server: server, fingerprint: presented)
            } else {
                error.message = TLSVerifyFailure.selfSignedMessage(detail: message, server: server, fingerprint: presented)
            }
        case .handshakeRefused where role == .server:
            error.message =
                "\(message): a client that refuses the certificate usually pins another fingerprint for this server; give it \(context.fingerprint?.description ?? "the fingerprint photolibd printed")"
        case .handshakeRefused:
            error.message = "\(message) (server \(server)): it may require a newer TLS version or another protocol than photolib/1"
        case .protocolViolation:
            error.message = "\(message): the peer's bytes are not a valid TLS stream"
        default:
            break
        }
        return error
    }

    private func fail(_ error: TLSError) -> TLSError {
        if failure == nil { failure = error }
        return failure!
    }

    // MARK: Sending

    /// Encrypts `plaintext` and returns the ciphertext to send now: the records, after
    /// anything else waiting (see ``takeOutput()``). Before the handshake completes the
    /// plaintext is held, and the result has only what is waiting.
    public func send(_ plaintext: [UInt8]) throws(TLSError) -> [UInt8] {
        if let failure { throw failure }
        if !plaintext.isEmpty {
            if established {
                try encrypt(plaintext)
            } else {
                heldPlaintext.append(contentsOf: plaintext)
            }
        }
        return takeOutput()
    }

    /// Encrypts the bytes `encode` appends to an empty buffer and appends the ciphertext to
    /// `ciphertext` (with anything else waiting before it): for writing frames straight into
    /// a socket's outbound buffer.
    public func send(encoding encode: (inout [UInt8]) -> Void, into ciphertext: inout [UInt8]) throws(TLSError) {
        if let failure { throw failure }
        var plaintext: [UInt8] = []
        encode(&plaintext)
        if !plaintext.isEmpty {
            if established {
                try encrypt(plaintext)
            } else {
                heldPlaintext.append(contentsOf: plaintext)
            }
        }
        appendOutput(to: &ciphertext)
    }

    private func encrypt(_ plaintext: [UInt8]) throws(TLSError) {
        let (status, message) = TLSCall.status { message, capacity in
            plaintext.withUnsafeBufferPointer { input in
                CPhotoLibTLS_session_write(session, input.baseAddress, input.count, message, capacity)
            }
        }
        if status != CPhotoLibTLS_OK { throw fail(describe(status: status, message: message)) }
    }

    /// Ends the session in an orderly way: a close_notify alert joins the output. Nothing
    /// happens before the handshake completes or after a failure.
    public func close() -> [UInt8] {
        if failure == nil && established {
            _ = TLSCall.status { message, capacity in CPhotoLibTLS_session_close(session, message, capacity) }
        }
        return takeOutput()
    }

    /// Ciphertext waiting for the peer (handshake messages, records, alerts); empties it.
    public func takeOutput() -> [UInt8] {
        let waiting = CPhotoLibTLS_session_output_size(session)
        guard waiting > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: waiting) { buffer, initialized in
            initialized = CPhotoLibTLS_session_take_output(session, buffer.baseAddress, waiting)
        }
    }

    /// Bytes of ciphertext waiting for the peer.
    public var pendingOutputCount: Int { CPhotoLibTLS_session_output_size(session) }

    private func appendOutput(to output: inout [UInt8]) {
        if output.isEmpty {
            output = takeOutput()
        } else {
            output.append(contentsOf: takeOutput())
        }
    }
}

@available(*, unavailable)
extension TLSEngine: Sendable {}
