import Foundation
import PhotoLibTestSupport
import XCTest

@testable import PhotoLibNet

#if canImport(Glibc)
import Glibc
#endif

/// A client verifying a CA-signed certificate (no pin): the advice for a refusal fits
/// OpenSSL's reason (an authority this machine does not trust, an expired or not yet valid
/// certificate, a certificate for other names), and `SSL_CERT_FILE` trusts a private
/// authority. The certificates are made with the `openssl` command by a private CA.
final class TLSVerificationTests: XCTestCase {
    nonisolated(unsafe) private static var authority: TestCertificateAuthority?
    nonisolated(unsafe) private static var directory: TestDirectory?

    override func setUpWithError() throws {
        try XCTSkipUnless(TestCertificateAuthority.isAvailable, "needs \(TestCertificateAuthority.openssl)")
        if Self.authority == nil {
            let directory = try TestDirectory()
            Self.directory = directory
            Self.authority = try TestCertificateAuthority(directory: directory.path + "/ca")
        }
    }

    override class func tearDown() {
        directory?.cleanUp()
        directory = nil
        authority = nil
    }

    private var authority: TestCertificateAuthority { Self.authority! }

    /// A server identity the test CA issued for `names`, valid `validity`.
    private func identity(_ name: String, names: [String], validity: TestCertificateAuthority.Validity = .days(30)) throws -> TLSIdentity {
        let files = try authority.issue(name, names: names, validity: validity)
        return try TLSIdentity.load(certificateFile: files.certificate, keyFile: files.key)
    }

    /// A client context that trusts the system's authorities, or, with `trusting`, the
    /// authorities in that PEM file (`SSL_CERT_FILE`, read when the context is made).
    private func clientContext(trusting file: String? = nil) throws -> TLSContext {
        guard let file else { return try TLSContext.client() }
        let previous = getenv("SSL_CERT_FILE").map { String(cString: $0) }
        setenv("SSL_CERT_FILE", file, 1)
        defer {
            if let previous { setenv("SSL_CERT_FILE", previous, 1) } else { unsetenv("SSL_CERT_FILE") }
        }
        return try TLSContext.client()
    }

    /// Runs a handshake between a client of `context` connecting to `host` (no pin) and a
    /// server presenting `identity`; returns the client's error, if any.
    private func handshake(_ identity: TLSIdentity, host: String, context: TLSContext) throws -> TLSError? {
        let client = try TLSEngine.client(context: context, serverName: host, pin: nil)
        let server = try TLSEngine.server(context: try TLSContext.server(identity: identity))
        do throws(TLSError) {
            for _ in 0..<10 {
                let up = client.takeOutput()
                let down = server.takeOutput()
                if up.isEmpty && down.isEmpty { break }
                _ = try server.receive(up)
                _ = try client.receive(down)
            }
        } catch {
            XCTAssertEqual(client.error, error, "the client refuses, not the server: \(error)")
            return error
        }
        XCTAssertTrue(client.isHandshakeComplete)
        return nil
    }

    func testAnAuthorityThisMachineDoesNotTrustIsNamedWithHowToTrustIt() throws {
        let signed = try identity("unknown-issuer", names: ["localhost", "127.0.0.1"])
        let error = try XCTUnwrap(try handshake(signed, host: "127.0.0.1", context: clientContext()))
        XCTAssertEqual(error.code, .untrustedCertificate)
        XCTAssertEqual(error.photoLibError.code, .unauthenticated)
        XCTAssertEqual(error.presentedFingerprint, signed.fingerprint)
        let message = error.message
        XCTAssertTrue(message.contains("unable to get local issuer certificate"), message)
        XCTAssertTrue(message.contains("not trusted by this machine"), message)
        XCTAssertTrue(message.contains("system trust store"), message)
        XCTAssertTrue(message.contains("SSL_CERT_FILE"), message)
        XCTAssertTrue(message.contains("photolib tls pin \(signed.fingerprint)"), "pinning is the other way: \(message)")
        XCTAssertFalse(message.contains("self-signed"), message)
        XCTAssertFalse(message.contains("\n"), message)
    }

    func testSSLCertFileTrustsAPrivateAuthority() throws {
        let signed = try identity("trusted", names: ["localhost", "127.0.0.1"])
        let context = try clientContext(trusting: authority.certificateFile)
        XCTAssertNil(try handshake(signed, host: "127.0.0.1", context: context))
        XCTAssertNil(try handshake(signed, host: "localhost", context: context))
    }

    func testAnExpiredCertificateIsNamedWithItsDateAndNotSentToPinning() throws {
        let expired = try identity("expired", names: ["localhost", "127.0.0.1"], validity: .between("20200101000000Z", "20200201000000Z"))
        let error = try XCTUnwrap(try handshake(expired, host: "127.0.0.1", context: clientContext(trusting: authority.certificateFile)))
        XCTAssertEqual(error.code, .untrustedCertificate)
        let message = error.message
        XCTAssertTrue(message.contains("expired on 2020-02-01 00:00:00 UTC"), message)
        XCTAssertTrue(message.contains("certificate has expired"), "OpenSSL's reason: \(message)")
        XCTAssertTrue(message.contains("operator must renew it"), message)
        XCTAssertFalse(message.contains("self-signed"), message)
        XCTAssertFalse(message.contains("pin"), "pinning is not the fix for an expired certificate: \(message)")
    }

    func testACertificateNotValidYetIsNamedWithItsDate() throws {
        let future = try identity("future", names: ["localhost", "127.0.0.1"], validity: .between("20990101000000Z", "20991231000000Z"))
        let error = try XCTUnwrap(try handshake(future, host: "localhost", context: clientContext(trusting: authority.certificateFile)))
        XCTAssertEqual(error.code, .untrustedCertificate)
        XCTAssertTrue(error.message.contains("not valid before 2099-01-01 00:00:00 UTC"), error.message)
        XCTAssertFalse(error.message.contains("self-signed"), error.message)
        XCTAssertFalse(error.message.contains("pin"), error.message)
    }

    func testACertificateForAnotherNameSaysWhatItIsForAndWhatWasAsked() throws {
        let other = try identity("other-name", names: ["other.example", "10.1.2.3"])
        let context = try clientContext(trusting: authority.certificateFile)
        let byAddress = try XCTUnwrap(try handshake(other, host: "127.0.0.1", context: context))
        XCTAssertEqual(byAddress.code, .untrustedCertificate)
        XCTAssertTrue(byAddress.message.contains("IP address mismatch"), byAddress.message)
        XCTAssertTrue(byAddress.message.contains("is for other.example, 10.1.2.3, not 127.0.0.1"), byAddress.message)
        XCTAssertTrue(byAddress.message.contains("connect by a name it holds"), byAddress.message)
        XCTAssertFalse(byAddress.message.contains("self-signed"), byAddress.message)

        let byName = try XCTUnwrap(try handshake(other, host: "localhost", context: context))
        XCTAssertTrue(byName.message.contains("is for other.example, 10.1.2.3, not localhost"), byName.message)
        XCTAssertNil(try handshake(other, host: "other.example", context: context), "the name it holds is accepted")
    }

    func testAnIdentityKnowsItsDatesAndWhatIsWrongWithThem() throws {
        let expired = try identity("dates-expired", names: ["localhost"], validity: .between("20200101000000Z", "20200201000000Z"))
        XCTAssertEqual(expired.notBefore, Date(timeIntervalSince1970: 1_577_836_800))
        XCTAssertEqual(expired.notAfter, Date(timeIntervalSince1970: 1_580_515_200))
        let problem = try XCTUnwrap(expired.validityProblem())
        XCTAssertEqual(problem, .expired(expired.notAfter))
        XCTAssertTrue(problem.refusedNow)
        XCTAssertTrue(problem.description.contains("expired on 2020-02-01 00:00:00 UTC"), problem.description)

        let future = try identity("dates-future", names: ["localhost"], validity: .between("20990101000000Z", "20991231000000Z"))
        XCTAssertEqual(future.validityProblem(), .notYetValid(future.notBefore))
        XCTAssertTrue(future.validityProblem()?.description.contains("not valid before 2099-01-01 00:00:00 UTC") ?? false)

        let soon = try identity("dates-soon", names: ["localhost"], validity: .days(5))
        XCTAssertEqual(soon.validityProblem(), .expiresSoon(soon.notAfter))
        XCTAssertFalse(soon.validityProblem()?.refusedNow ?? true)

        XCTAssertNil(try identity("dates-fine", names: ["localhost"], validity: .days(60)).validityProblem())
        XCTAssertNil(try TLSIdentity.generate().validityProblem(), "a generated identity is valid for ten years")
    }
}
