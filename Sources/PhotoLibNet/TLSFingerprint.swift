import Foundation
internal import CPhotoLibTLS

/// The SHA-256 of a certificate's DER encoding: what a client pins for a server, as SSH's
/// `known_hosts` pins a host key.
///
/// Written as OpenSSH writes key fingerprints, `SHA256:` and the unpadded base64 of the 32
/// bytes (`SHA256:q6u5cJ…`). Parsing also takes the hexadecimal form OpenSSL prints
/// (`openssl x509 -noout -fingerprint -sha256 -in cert.pem`: `AB:CD:…`, with or without the
/// colons and its `sha256 Fingerprint=` prefix), so either can be pasted.
public struct TLSFingerprint: Sendable, Hashable, CustomStringConvertible, Codable {
    /// The 32 bytes of the SHA-256.
    public let bytes: [UInt8]

    /// Bytes in a SHA-256.
    public static let size = 32

    /// A fingerprint of these 32 bytes; `nil` for any other count.
    public init?(bytes: [UInt8]) {
        guard bytes.count == Self.size else { return nil }
        self.bytes = bytes
    }

    /// Parses `SHA256:<base64>` or 64 hexadecimal digits (colons and spaces allowed, an
    /// OpenSSL `sha256 Fingerprint=` prefix ignored). Throws a message saying what the
    /// expected shapes are.
    public init(parsing text: String) throws(TLSError) {
        var body = Substring(text.trimmingCharacters(in: .whitespacesAndNewlines))
        if let equals = body.firstIndex(of: "="), body[..<equals].lowercased().contains("fingerprint") {
            body = body[body.index(after: equals)...]
        }
        if body.lowercased().hasPrefix("sha256:") {
            let encoded = String(body.dropFirst("sha256:".count))
            // OpenSSH leaves the padding off; Foundation wants it.
            let padded = encoded + String(repeating: "=", count: (4 - encoded.count % 4) % 4)
            if let data = Data(base64Encoded: padded), let fingerprint = TLSFingerprint(bytes: Array(data)) {
                self = fingerprint
                return
            }
            // A hexadecimal fingerprint written after "SHA256:" is fine too.
            body = Substring(encoded)
        }
        let digits = body.filter { $0 != ":" && $0 != " " }
        var bytes: [UInt8] = []
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2, limitedBy: digits.endIndex) ?? digits.endIndex
            guard let byte = UInt8(digits[index..<next], radix: 16), digits.distance(from: index, to: next) == 2 else {
                bytes = []
                break
            }
            bytes.append(byte)
            index = next
        }
        guard let fingerprint = TLSFingerprint(bytes: bytes) else {
            throw TLSError(
                .invalidArgument,
                "'\(text)' is not a certificate fingerprint: expected SHA256:<base64>, as photolibd prints it, or 64 hexadecimal digits (as `openssl x509 -noout -fingerprint -sha256` prints them)"
            )
        }
        self = fingerprint
    }

    /// The fingerprint of the first certificate in `certificatePEM`.
    ///
    /// Related OpenSSL documentation: X509_digest(3).
    public init(certificatePEM: [UInt8]) throws(TLSError) {
        var bytes = [UInt8](repeating: 0, count: Self.size)
        try TLSCall.run { message, capacity in
            certificatePEM.withUnsafeBufferPointer { pem in
                bytes.withUnsafeMutableBufferPointer { out in
                    CPhotoLibTLS_certificate_fingerprint(pem.baseAddress, pem.count, out.baseAddress, message, capacity)
                }
            }
        }
        self.bytes = bytes
    }

    /// `SHA256:` and the unpadded base64 of the bytes (OpenSSH's notation).
    public var description: String {
        var encoded = Data(bytes).base64EncodedString()
        while encoded.hasSuffix("=") { encoded.removeLast() }
        return "SHA256:" + encoded
    }

    /// The bytes as colon-separated upper-case hexadecimal, as OpenSSL prints them.
    public var hexadecimal: String {
        bytes.map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }.joined(separator: ":")
    }

    /// Encodes as its ``description``.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// Decodes from any form ``init(parsing:)`` reads.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            self = try TLSFingerprint(parsing: text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.message)
        }
    }
}
