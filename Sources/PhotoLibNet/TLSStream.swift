/// The seam between a connection's socket and its frames when the connection speaks TLS:
/// socket bytes in → plaintext for the frame decoder; frames out → ciphertext to the socket.
///
/// A connection keeps one (or none, for plain TCP) and routes through it in three places:
/// what the socket read goes to ``receive(_:)`` and the plaintext it returns to the frame
/// decoder; what the connection writes goes to ``write(encoding:)``; and closing calls
/// ``close()`` before the socket's graceful close. Handshake messages and alerts go out
/// through the `send` closure the connection gives (its socket's `write`), so the
/// connection never sees them. Nothing here depends on how the socket is driven.
///
/// Confined like the connection that owns it: call it on that connection's queue only.
public final class TLSStream {
    /// The session.
    public let engine: TLSEngine
    private let send: ([UInt8]) -> Void

    /// A stream over `engine`, writing ciphertext with `send`. A client's ClientHello is
    /// sent by ``start()``.
    public init(engine: TLSEngine, send: @escaping ([UInt8]) -> Void) {
        self.engine = engine
        self.send = send
    }

    /// A server stream presenting `context`'s identity.
    public convenience init(serverContext context: TLSContext, send: @escaping ([UInt8]) -> Void) throws(TLSError) {
        self.init(engine: try TLSEngine.server(context: context), send: send)
    }

    /// Sends what the engine has ready: for a client, its ClientHello. Call once the
    /// socket is ready to write.
    public func start() {
        flush()
    }

    /// Ciphertext from the socket in, plaintext for the frame decoder out (often empty,
    /// during the handshake or with part of a record). Handshake answers are sent.
    /// On failure the alert for the peer, if any, is sent before the error is thrown; the
    /// connection then closes (for ``TLSError/Code/notTLS`` on a server, after telling the
    /// plaintext peer in its own protocol, see `docs/PROTOCOL.md`).
    public func receive(_ ciphertext: [UInt8]) throws(TLSError) -> [UInt8] {
        do {
            let plaintext = try engine.receive(ciphertext)
            flush()
            return plaintext
        } catch {
            flush()
            throw error
        }
    }

    /// Encrypts and sends plaintext (held until the handshake completes).
    public func write(_ plaintext: [UInt8]) {
        write { $0.append(contentsOf: plaintext) }
    }

    /// Encrypts and sends the bytes `encode` appends (a frame's encoder). A failure has
    /// already ended the session; it is thrown by the next ``receive(_:)``, and the write is dropped.
    public func write(encoding encode: (inout [UInt8]) -> Void) {
        var ciphertext: [UInt8] = []
        do {
            try engine.send(encoding: encode, into: &ciphertext)
        } catch {
            ciphertext = engine.takeOutput()
        }
        if !ciphertext.isEmpty { send(ciphertext) }
    }

    /// Sends close_notify (the peer reads an orderly end of the TLS session). Call before
    /// the socket's own graceful close.
    public func close() {
        let ciphertext = engine.close()
        if !ciphertext.isEmpty { send(ciphertext) }
    }

    private func flush() {
        let output = engine.takeOutput()
        if !output.isEmpty { send(output) }
    }
}

@available(*, unavailable)
extension TLSStream: Sendable {}

extension SocketChannel {
    /// Writes the bytes `encode` appends: through `tls`, encrypted, when the connection runs
    /// TLS, else straight to the socket. Call on ``queue``.
    public func write(through tls: TLSStream?, encoding encode: (inout [UInt8]) -> Void) {
        if let tls {
            tls.write(encoding: encode)
        } else {
            write(encoding: encode)
        }
    }
}
