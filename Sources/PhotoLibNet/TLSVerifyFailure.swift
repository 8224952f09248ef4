internal import CPhotoLibTLS

#if canImport(Glibc)
import Glibc
#endif

/// Why a server's certificate failed verification against the trust store and the host
/// name, as OpenSSL's verify result (`X509_V_ERR_*`) says, read from the shim after a
/// handshake failed `CPhotoLibTLS_UNTRUSTED`; and the advice that fits it.
struct TLSVerifyFailure {
    /// The kind of failure (OpenSSL's verify results grouped by what a person does about them).
    enum Reason {
        case selfSigned, unknownIssuer, expired, notYetValid, nameMismatch, other
    }

    var reason: Reason
    /// OpenSSL's `X509_V_ERR_*` code.
    var verifyCode: Int
    /// 0: the server's own certificate; 1 and up: an authority's in its chain.
    var depth: Int
    /// The failed certificate's validity, seconds since 1970 (UTC).
    var notBefore: Int64
    var notAfter: Int64
    /// The names the server's own certificate is for (DNS names and addresses).
    var names: String

    /// The failure the session recorded, if any.
    init?(session: OpaquePointer) {
        var failure = CPhotoLibTLS_VerifyFailure()
        guard CPhotoLibTLS_session_verify_failure(session, &failure) == 1 else { return nil }
        switch failure.reason {
        case CPhotoLibTLS_DISTRUST_SELF_SIGNED: reason = .selfSigned
        case CPhotoLibTLS_DISTRUST_UNKNOWN_ISSUER: reason = .unknownIssuer
        case CPhotoLibTLS_DISTRUST_EXPIRED: reason = .expired
        case CPhotoLibTLS_DISTRUST_NOT_YET_VALID: reason = .notYetValid
        case CPhotoLibTLS_DISTRUST_NAME_MISMATCH: reason = .nameMismatch
        default: reason = .other
        }
        verifyCode = Int(failure.verify_code)
        depth = Int(failure.depth)
        notBefore = failure.not_before
        notAfter = failure.not_after
        names = withUnsafeBytes(of: failure.names) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    /// The message for a refused certificate: what OpenSSL said (`detail`), the server, and
    /// what to do about this kind of failure. `fingerprint`: the certificate's, for pinning.
    func message(detail: String, server: String, fingerprint: TLSFingerprint?) -> String {
        let pinning = "photolib tls pin \(fingerprint?.description ?? "SHA256:…")"
        let whose = depth == 0 ? "the TLS certificate of \(server)" : "the certificate of an authority in the chain of \(server) (depth \(depth))"
        switch reason {
        case .selfSigned:
            return Self.selfSignedMessage(detail: detail, server: server, fingerprint: fingerprint)
        case .unknownIssuer:
            return "\(detail) (connecting to \(server)): the certificate authority that signed it is not trusted by this machine; add the authority's certificate to the system trust store (e.g. /usr/local/share/ca-certificates, then update-ca-certificates) or point SSL_CERT_FILE at its PEM file, or pin this certificate instead (\(pinning), after checking the fingerprint with the server's operator)"
        case .expired:
            return "\(whose) expired on \(Self.utcText(notAfter)) (\(detail)): the server's operator must renew it; connections are refused until then"
        case .notYetValid:
            return "\(whose) is not valid before \(Self.utcText(notBefore)) (\(detail)): check this machine's clock; if it is right, the server's operator must install a certificate that is valid now"
        case .nameMismatch:
            let names = names.isEmpty ? "no name" : names
            return "\(whose) is for \(names), not \(server) (\(detail)): connect by a name it holds (e.g. --server \(names.split(separator: ",").first.map(String.init) ?? "NAME"):PORT), or have the server's operator issue a certificate that names \(server)"
        case .other:
            return "\(detail) (connecting to \(server)): the server's operator must fix its certificate, or pin it (\(pinning), after checking the fingerprint with the server's operator)"
        }
    }

    /// The message for a self-signed certificate: trust it by pinning (also when the failure
    /// was not recorded).
    static func selfSignedMessage(detail: String, server: String, fingerprint: TLSFingerprint?) -> String {
        "\(detail) (connecting to \(server)): a self-signed server certificate is trusted by pinning its fingerprint (photolib tls pin, or PHOTOLIB_FINGERPRINT=\(fingerprint?.description ?? "SHA256:…") after checking it against what `photolibd serve` printed)"
    }

    /// `2026-02-01 00:00:00 UTC`.
    static func utcText(_ seconds: Int64) -> String {
        var time = time_t(seconds)
        var parts = tm()
        guard gmtime_r(&time, &parts) != nil else { return "\(seconds) s after 1970" }
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) UTC"
    }
}
