import Dispatch
import PhotoLibNet
import PhotoLibWire

/// A certificate's SHA-256 fingerprint (`SHA256:…`), as a client pins it for a server.
public typealias TLSFingerprint = PhotoLibNet.TLSFingerprint

/// How a client connection uses TLS 1.3, and how it trusts the server's certificate:
/// either a pinned fingerprint (the self-signed certificate `photolibd serve --tls`
/// generates and prints; like SSH's `known_hosts`) or, without one, the system's
/// certificate authorities and the server's host name (a CA-signed certificate).
public struct ClientTLS: Sendable, Hashable {
    /// The fingerprint the server's certificate must have; `nil`: verify against the
    /// system's certificate authorities and the host name instead.
    public var pinnedFingerprint: TLSFingerprint?

    /// TLS to a server whose certificate has `fingerprint`, whoever signed it.
    public static func pinned(_ fingerprint: TLSFingerprint) -> ClientTLS {
        ClientTLS(pinnedFingerprint: fingerprint)
    }

    /// TLS to a server with a certificate a system-trusted authority signed for its name.
    public static var certificateAuthority: ClientTLS { ClientTLS(pinnedFingerprint: nil) }

    /// Creates settings (see ``pinned(_:)`` and ``certificateAuthority``).
    public init(pinnedFingerprint: TLSFingerprint?) {
        self.pinnedFingerprint = pinnedFingerprint
    }

    /// One client context for the process (the system's CA certificates are read once).
    private static let sharedContext = Result<TLSContext, TLSError> { () throws(TLSError) in try TLSContext.client() }

    /// The TLS stream a connection to `host` puts between its socket and its frame
    /// decoder, writing ciphertext with `send`. `host` is the server's name or address as
    /// given (`nil` for an inherited socket, which then needs a pin).
    func makeStream(host: String?, send: @escaping ([UInt8]) -> Void) throws -> TLSStream {
        do throws(TLSError) {
            let context = try Self.sharedContext.get()
            let engine = try TLSEngine.client(context: context, serverName: host ?? "", pin: pinnedFingerprint)
            return TLSStream(engine: engine, send: send)
        } catch {
            throw error.photoLibError
        }
    }

    /// The error a connection reports for a TLS failure. A server that refused the
    /// connection before TLS (too many connections, shutting down) answers with a plaintext
    /// GOAWAY: its reason is reported rather than "not TLS".
    static func connectionError(_ error: TLSError) -> PhotoLibError {
        if error.code == .notTLS, let refusal = plaintextGoAway(error.receivedBytes),
            [.resourceExhausted, .unavailable].contains(refusal.code)
        {
            return PhotoLibError(refusal.code, "\(refusal.message) (the server answered before TLS)")
        }
        return error.photoLibError
    }

    /// The status of a plaintext GOAWAY frame at the start of `bytes`, if they hold one.
    private static func plaintextGoAway(_ bytes: [UInt8]) -> PhotoLibError? {
        var decoder = FrameDecoder(maxPayloadSize: WireLimits.maxHelloSize)
        decoder.append(bytes)
        guard let frame = try? decoder.next(), frame.type == .goAway,
            let goAway = try? Wire.GoAway(decoding: frame.payload)
        else { return nil }
        return goAway.status?.error
    }
}

extension PhotoLibrary {
    /// Whether `server` (`HOST:PORT`) is on this machine's loopback (`localhost`,
    /// `127.0.0.0/8`, `::1`), where a connection without TLS stays on this machine. Anything
    /// else, or text that is not `HOST:PORT`, is `false`: without TLS the token and
    /// everything else would cross the network in plain text, which a program may want to
    /// warn about (this library prints nothing).
    public static func isLoopback(server: String) -> Bool {
        (try? Endpoint(parsing: server))?.isLoopback ?? false
    }

    /// The fingerprint of the certificate `server` (`HOST:PORT`) presents over TLS, without
    /// trusting it or authenticating: for pinning on first use, after comparing it with what
    /// `photolibd serve --tls` printed on the server.
    public static func serverFingerprint(of server: String, timeout: Double = 10) async throws -> TLSFingerprint {
        let endpoint: Endpoint
        do {
            endpoint = try Endpoint(parsing: server)
        } catch {
            throw PhotoLibError(.invalidArgument, error.description)
        }
        return try await withCheckedThrowingContinuation { continuation in
            // The probe blocks (connect, handshake): off the cooperative pool.
            DispatchQueue.global().async {
                do throws(TLSError) {
                    continuation.resume(returning: try TLSProbe.fingerprint(of: endpoint, timeout: timeout))
                } catch {
                    continuation.resume(throwing: ClientTLS.connectionError(error))
                }
            }
        }
    }
}
