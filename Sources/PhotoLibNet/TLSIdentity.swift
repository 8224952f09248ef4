import Foundation
import PhotoLibCore
internal import CPhotoLibTLS

#if canImport(Glibc)
import Glibc
#endif

/// A server's TLS identity: its certificate (PEM, the leaf first, then any intermediates)
/// and private key, and the certificate's fingerprint that clients pin.
///
/// Either generated (an EC P-256 key and a self-signed certificate, ``generate(commonName:alternativeNames:validityDays:)``)
/// and kept in the library (``loadOrCreate(directory:commonName:)``), or a CA-signed
/// certificate read from files (``load(certificateFile:keyFile:)``).
public struct TLSIdentity: Sendable {
    /// The certificate chain, PEM.
    public let certificatePEM: [UInt8]
    /// The private key, PEM (PKCS #8 when generated here). Secret: never log or send it.
    let keyPEM: [UInt8]
    /// The SHA-256 fingerprint of the (first) certificate.
    public let fingerprint: TLSFingerprint
    /// When the (first) certificate becomes valid (its notBefore).
    public let notBefore: Date
    /// When the (first) certificate expires (its notAfter).
    public let notAfter: Date

    /// An identity from PEM texts. Throws ``TLSError/Code/badIdentity`` when the
    /// certificate does not parse; the key is checked against it by ``TLSContext/server(identity:)``.
    public init(certificatePEM: [UInt8], keyPEM: [UInt8]) throws(TLSError) {
        self.certificatePEM = certificatePEM
        self.keyPEM = keyPEM
        self.fingerprint = try TLSFingerprint(certificatePEM: certificatePEM)
        var notBefore: Int64 = 0
        var notAfter: Int64 = 0
        try TLSCall.run { message, capacity in
            certificatePEM.withUnsafeBufferPointer { certificate in
                CPhotoLibTLS_certificate_validity(certificate.baseAddress, certificate.count, &notBefore, &notAfter, message, capacity)
            }
        }
        self.notBefore = Date(timeIntervalSince1970: TimeInterval(notBefore))
        self.notAfter = Date(timeIntervalSince1970: TimeInterval(notAfter))
    }

    /// What is wrong with the certificate's dates at `date`, for a server to say when it
    /// starts: it has expired or is not valid yet (clients refuse it unless they pinned it),
    /// or it expires within `soon` seconds (14 days by default). `nil` when it is fine.
    public func validityProblem(at date: Date = Date(), soon: TimeInterval = 14 * 86_400) -> ValidityProblem? {
        if date > notAfter { return .expired(notAfter) }
        if date < notBefore { return .notYetValid(notBefore) }
        if notAfter.timeIntervalSince(date) < soon { return .expiresSoon(notAfter) }
        return nil
    }

    /// A certificate's dates that need the server operator's attention (see ``validityProblem(at:soon:)``).
    public enum ValidityProblem: Sendable, Hashable, CustomStringConvertible {
        /// Expired at this date: clients verifying against authorities refuse it.
        case expired(Date)
        /// Not valid before this date: clients verifying against authorities refuse it.
        case notYetValid(Date)
        /// Still valid, but expires at this date, soon.
        case expiresSoon(Date)

        /// Whether clients refuse the certificate now (expired or not yet valid).
        public var refusedNow: Bool {
            if case .expiresSoon = self { return false }
            return true
        }

        /// One line for a person, naming the date.
        public var description: String {
            switch self {
            case .expired(let date):
                "the TLS certificate expired on \(TLSVerifyFailure.utcText(Int64(date.timeIntervalSince1970))): clients that verify it against certificate authorities refuse to connect; renew it and restart with the new --tls-cert/--tls-key"
            case .notYetValid(let date):
                "the TLS certificate is not valid before \(TLSVerifyFailure.utcText(Int64(date.timeIntervalSince1970))): clients that verify it against certificate authorities refuse to connect until then; check this machine's clock, or use a certificate valid now"
            case .expiresSoon(let date):
                "the TLS certificate expires soon, on \(TLSVerifyFailure.utcText(Int64(date.timeIntervalSince1970))): renew it before then and restart with the new --tls-cert/--tls-key"
            }
        }
    }

    /// Days a generated certificate is valid: about ten years (pinned certificates are
    /// replaced by choice, not by expiry).
    public static let defaultValidityDays = 3650

    /// Generates an EC P-256 key and a self-signed certificate with subject
    /// `CN=commonName` and the subject alternative names `alternativeNames` (host names, or
    /// IPv4/IPv6 addresses), valid for `validityDays` days from an hour ago.
    ///
    /// Related OpenSSL documentation: EVP_PKEY_Q_keygen(3), X509_sign(3), x509v3_config(5).
    public static func generate(
        commonName: String = TLSIdentity.defaultCommonName,
        alternativeNames: [String] = TLSIdentity.defaultAlternativeNames,
        validityDays: Int = TLSIdentity.defaultValidityDays
    ) throws(TLSError) -> TLSIdentity {
        let names = alternativeNames.compactMap(Self.alternativeName).joined(separator: ",")
        var certificate: UnsafeMutablePointer<UInt8>?
        var certificateSize = 0
        var key: UnsafeMutablePointer<UInt8>?
        var keySize = 0
        try TLSCall.run { message, capacity in
            CPhotoLibTLS_generate_identity(
                commonName, names, UInt32(clamping: validityDays), &certificate, &certificateSize, &key, &keySize,
                message, capacity)
        }
        defer {
            CPhotoLibTLS_free(certificate)
            if let key {
                // The key's text is secret: wipe the C copy before it is freed.
                key.update(repeating: 0, count: keySize)
                CPhotoLibTLS_free(key)
            }
        }
        let certificatePEM = Array(UnsafeBufferPointer(start: certificate, count: certificateSize))
        let keyPEM = Array(UnsafeBufferPointer(start: key, count: keySize))
        return try TLSIdentity(certificatePEM: certificatePEM, keyPEM: keyPEM)
    }

    /// This machine's host name when it is a plain DNS name of at most 64 bytes, else `photolibd`.
    public static var defaultCommonName: String {
        let host = hostName
        return host.map { $0.isEmpty ? "photolibd" : $0 } ?? "photolibd"
    }

    /// The host name, `localhost`, `127.0.0.1` and `::1`: names a client may use for the
    /// server (a pinned certificate is accepted whatever the name; these help clients that
    /// check names).
    public static var defaultAlternativeNames: [String] {
        var names: [String] = []
        if let host = hostName, !host.isEmpty, host != "localhost" { names.append(host) }
        return names + ["localhost", "127.0.0.1", "::1"]
    }

    private static var hostName: String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return nil }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let allowed = name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2D || byte == 0x2E
        }
        return allowed && (1...64).contains(name.utf8.count) ? name : nil
    }

    /// `DNS:name` or `IP:address` (x509v3_config syntax); `nil` for text that is neither.
    private static func alternativeName(_ name: String) -> String? {
        var address = in6_addr()
        if inet_pton(AF_INET, name, &address) == 1 || inet_pton(AF_INET6, name, &address) == 1 {
            return "IP:" + name
        }
        let plain = !name.isEmpty && name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2D || byte == 0x2E || byte == 0x2A
        }
        return plain ? "DNS:" + name : nil
    }

    // MARK: Files

    /// Reads a certificate chain and its key from PEM files (for a CA-signed certificate,
    /// `photolibd serve --tls-cert FILE --tls-key FILE`).
    public static func load(certificateFile: String, keyFile: String) throws(TLSError) -> TLSIdentity {
        let certificate = try readFile(certificateFile, what: "certificate")
        let key = try readFile(keyFile, what: "private key")
        do {
            return try TLSIdentity(certificatePEM: certificate, keyPEM: key)
        } catch {
            throw TLSError(.badIdentity, "\(certificateFile): \(error.message)")
        }
    }

    /// The library's own identity: `directory/cert.pem` and `directory/key.pem`, generated on
    /// first use (key and certificate mode 0600, the directory 0700). Returns the identity and
    /// whether it was created now.
    ///
    /// A certificate without its key is an error (the identity clients pinned is lost: the
    /// message says to remove the certificate, which makes a new one that every client must
    /// pin again); a key without a certificate (a first start that stopped half-way) is
    /// replaced, since no client can have pinned it.
    public static func loadOrCreate(
        directory: String, commonName: String = TLSIdentity.defaultCommonName
    ) throws(TLSError) -> (identity: TLSIdentity, created: Bool) {
        let certificateFile = directory + "/cert.pem"
        let keyFile = directory + "/key.pem"
        let haveCertificate = access(certificateFile, F_OK) == 0
        let haveKey = access(keyFile, F_OK) == 0
        if haveCertificate {
            guard haveKey else {
                throw TLSError(
                    .badIdentity,
                    "\(certificateFile) exists but its key \(keyFile) is missing; restore the key, or remove \(certificateFile) to generate a new identity (every client must then pin the new fingerprint)"
                )
            }
            // Keep the key private even if its mode was loosened by hand.
            _ = chmod(keyFile, 0o600)
            return (try load(certificateFile: certificateFile, keyFile: keyFile), false)
        }
        try makePrivateDirectory(directory)
        let identity = try generate(commonName: commonName)
        // The key first: a certificate on disk always has its key beside it.
        try writePrivateFile(keyFile, identity.keyPEM)
        try writePrivateFile(certificateFile, identity.certificatePEM)
        return (identity, true)
    }

    private static func readFile(_ path: String, what: String) throws(TLSError) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            let code = access(path, R_OK) == 0 ? EIO : errno
            throw TLSError(.fileSystem, SystemError(errno: code, action: "read the TLS \(what) \(path)").description)
        }
        return Array(data)
    }

    private static func makePrivateDirectory(_ path: String) throws(TLSError) {
        if mkdir(path, 0o700) != 0 && errno != EEXIST {
            throw TLSError(.fileSystem, SystemError(errno: errno, action: "create \(path)").description)
        }
        if chmod(path, 0o700) != 0 {
            throw TLSError(.fileSystem, SystemError(errno: errno, action: "make \(path) private (0700)").description)
        }
    }

    /// Writes `bytes` to a new private file (0600) beside `path`, syncs it and renames it
    /// into place, so a crash leaves the old file or the new one, never half of one.
    private static func writePrivateFile(_ path: String, _ bytes: [UInt8]) throws(TLSError) {
        let temporary = path + ".tmp-\(getpid())"
        _ = unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw TLSError(.fileSystem, SystemError(errno: errno, action: "create \(temporary)").description)
        }
        var written = 0
        var failure: Int32 = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { raw in write(fd, raw.baseAddress! + written, raw.count - written) }
            if count < 0 {
                if errno == EINTR { continue }
                failure = errno
                break
            }
            written += count
        }
        if failure == 0 && fsync(fd) != 0 { failure = errno }
        _ = close(fd)
        if failure == 0 && rename(temporary, path) != 0 { failure = errno }
        guard failure == 0 else {
            _ = unlink(temporary)
            throw TLSError(.fileSystem, SystemError(errno: failure, action: "write \(path)").description)
        }
        // The directory entry too, so the renamed file survives a crash.
        let directory = open((path as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            _ = fsync(directory)
            _ = close(directory)
        }
    }
}
