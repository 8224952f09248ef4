import PhotoLibCore
import PhotoLibNet
import PhotoLibWire

/// What the server's connections need for TLS beyond `TLSStream` itself: what a
/// plaintext client on a TLS port is told, and which addresses are loopback (where plain TCP
/// is fine).
public enum ServerTLS {
    /// The plaintext GOAWAY a TLS server sends a client that spoke plaintext to it (the
    /// engine's `TLSError.Code.notTLS`), so that a plaintext PhotoLib client reports why
    /// instead of a bare disconnection. It carries no fingerprint: a plaintext channel
    /// cannot vouch for one.
    public static func plaintextRefusal() -> [UInt8] {
        let error = PhotoLibError(
            .failedPrecondition,
            "this server accepts TLS connections only: connect with TLS, pinning the certificate fingerprint `photolibd serve --tls` printed (photolib --fingerprint SHA256:…, PHOTOLIB_FINGERPRINT, or photolib tls pin), or with --tls when the server has a CA-signed certificate"
        )
        return Frame(.goAway, payload: Wire.GoAway(lastStreamID: 0, status: Wire.Status(error)).encoded()).encoded
    }

    /// Whether `host` is a loopback name or address (`localhost`, `127.0.0.0/8`, `::1`):
    /// the only places plain TCP is served without a warning.
    public static func isLoopback(_ host: String) -> Bool {
        Endpoint.isLoopback(host)
    }
}
