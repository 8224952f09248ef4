internal import CPhotoLibTLS

/// Settings shared by many TLS sessions (OpenSSL's `SSL_CTX`): for a server, its identity;
/// for a client, how servers are verified. Make one per server identity, or one client
/// context for a process (``client()``), and an engine per connection from it.
///
/// Only TLS 1.3 is spoken, with the ALPN protocol `photolib/1`, no session tickets (a
/// server keeps no state beyond its connections) and no compression.
///
/// `@unchecked Sendable`: the OpenSSL context is immutable once made, and OpenSSL allows
/// making sessions from one context on many threads at once.
public final class TLSContext: @unchecked Sendable {
    /// Which side of a connection the context is for.
    public enum Role: Sendable, Hashable {
        /// Accepts connections and presents a certificate.
        case server
        /// Connects and verifies the server's certificate.
        case client
    }

    /// Which side sessions made from this context play.
    public let role: Role
    /// For a server context: the fingerprint of the certificate it presents.
    public let fingerprint: TLSFingerprint?
    let pointer: OpaquePointer

    private init(role: Role, fingerprint: TLSFingerprint?, pointer: OpaquePointer) {
        self.role = role
        self.fingerprint = fingerprint
        self.pointer = pointer
    }

    deinit {
        CPhotoLibTLS_context_free(pointer)
    }

    /// A server context presenting `identity`. Throws ``TLSError/Code/badIdentity`` when
    /// the key does not belong to the certificate.
    ///
    /// Related OpenSSL documentation: SSL_CTX_use_certificate(3), SSL_CTX_check_private_key(3).
    public static func server(identity: TLSIdentity) throws(TLSError) -> TLSContext {
        var context: OpaquePointer?
        try TLSCall.run { message, capacity in
            identity.certificatePEM.withUnsafeBufferPointer { certificate in
                identity.keyPEM.withUnsafeBufferPointer { key in
                    CPhotoLibTLS_server_context_new(
                        certificate.baseAddress, certificate.count, key.baseAddress, key.count, &context, message,
                        capacity)
                }
            }
        }
        guard let context else { throw TLSError(.internalError, "OpenSSL returned no server context") }
        return TLSContext(role: .server, fingerprint: identity.fingerprint, pointer: context)
    }

    /// A client context: servers are verified by a pinned fingerprint or, without one,
    /// against the system's trust store and the host name (see ``TLSEngine/client(context:serverName:pin:)``).
    ///
    /// Related OpenSSL documentation: SSL_CTX_set_verify(3), SSL_CTX_set_default_verify_paths(3).
    public static func client() throws(TLSError) -> TLSContext {
        var context: OpaquePointer?
        try TLSCall.run { message, capacity in
            CPhotoLibTLS_client_context_new(&context, message, capacity)
        }
        guard let context else { throw TLSError(.internalError, "OpenSSL returned no client context") }
        return TLSContext(role: .client, fingerprint: nil, pointer: context)
    }
}
