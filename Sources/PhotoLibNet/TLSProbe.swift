#if canImport(Glibc)
import Glibc
#endif

/// Asks a TLS server which certificate it presents, without trusting it: how a client
/// learns the fingerprint to pin on first use (`photolib tls pin --trust-on-first-use`),
/// or checks a fingerprint someone read out before pinning it.
///
/// The probe connects, runs a client handshake that accepts no certificate at all (its pin
/// is all zeros), reads the fingerprint the refused certificate had, and closes. No
/// credential or request is sent. Blocks the caller (at most `timeout` for the connection
/// and as long again for the handshake).
public enum TLSProbe {
    /// The fingerprint of the certificate `endpoint` presents.
    public static func fingerprint(of endpoint: Endpoint, timeout: Double = 10) throws(TLSError) -> TLSFingerprint {
        let milliseconds = Int32(clamping: Int(timeout * 1000))
        let fd: Int32
        do {
            fd = try Connector.connect(to: endpoint, timeoutMilliseconds: milliseconds)
        } catch {
            throw TLSError(.connectionFailed, "cannot connect to \(endpoint): \(error) — is photolibd running there?")
        }
        defer { _ = close(fd) }
        let nothing = TLSFingerprint(bytes: [UInt8](repeating: 0, count: TLSFingerprint.size))!
        let engine = try TLSEngine.client(context: TLSContext.client(), serverName: endpoint.host, pin: nothing)
        try sendAll(engine.takeOutput(), to: fd, endpoint: endpoint)
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            var waiter = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&waiter, 1, milliseconds)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else {
                throw TLSError(.protocolViolation, "\(endpoint) did not complete a TLS handshake within \(timeout) s")
            }
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard count > 0 else {
                throw TLSError(.protocolViolation, "\(endpoint) closed the connection during the TLS handshake")
            }
            do throws(TLSError) {
                _ = try engine.receive(Array(buffer[0..<count]))
                try sendAll(engine.takeOutput(), to: fd, endpoint: endpoint)
            } catch {
                guard error.code == .fingerprintMismatch, let presented = error.presentedFingerprint else { throw error }
                // The expected refusal: say why to the server, and report what it presented.
                try? sendAll(engine.takeOutput(), to: fd, endpoint: endpoint)
                return presented
            }
        }
    }

    private static func sendAll(_ bytes: [UInt8], to fd: Int32, endpoint: Endpoint) throws(TLSError) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent > 0 {
                offset += sent
                continue
            }
            if errno == EINTR { continue }
            if errno == EAGAIN {
                var waiter = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&waiter, 1, 1000)
                continue
            }
            throw TLSError(.connectionFailed, "cannot send to \(endpoint): \(SocketError(call: "send", errno: errno))")
        }
    }
}
