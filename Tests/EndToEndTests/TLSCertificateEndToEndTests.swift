import Foundation
import PhotoLibTestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// `photolibd serve --tls-cert/--tls-key` with certificates a private CA (made with the
/// `openssl` command) issued: `photolib --tls` trusts the CA through `SSL_CERT_FILE`, says
/// what to do when it does not, and `photolibd` warns at start about a certificate that has
/// expired or expires soon.
final class TLSCertificateEndToEndTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var authority: TestCertificateAuthority!

    override func setUpWithError() throws {
        try XCTSkipUnless(TestCertificateAuthority.isAvailable, "needs \(TestCertificateAuthority.openssl)")
        directory = try TemporaryDirectory("photolib-e2e-tls-ca")
        authority = try TestCertificateAuthority(directory: directory.file("ca"))
    }

    override func tearDown() {
        directory?.remove()
    }

    /// A server presenting a certificate the CA issued for `names`, valid `validity`.
    private func server(_ name: String, names: [String] = ["localhost", "127.0.0.1"], validity: TestCertificateAuthority.Validity = .days(30)) throws -> ServerProcess {
        let files = try authority.issue(name, names: names, validity: validity)
        return try ServerProcess.start(library: directory.file(name), extraArguments: ["--tls-cert", files.certificate, "--tls-key", files.key])
    }

    /// The CLI with a private config directory and no pin from the environment.
    private func cli(_ arguments: [String], _ server: ServerProcess, _ environment: [String: String] = [:]) throws -> ProcessResult {
        var env = ["XDG_CONFIG_HOME": directory.file("config"), "PHOTOLIB_FINGERPRINT": ""]
        env.merge(environment) { _, new in new }
        return try runCLI(arguments, server: server, environment: env)
    }

    func testAnUntrustedAuthorityIsNamedAndSSLCertFileTrustsIt() throws {
        let server = try server("signed")
        defer { server.stopGracefully() }
        XCTAssertFalse(server.log.contains("WARNING"), server.log)
        let refused = try cli(["info", "--tls"], server)
        XCTAssertFalse(refused.succeeded, "\(refused)")
        XCTAssertTrue(refused.stderr.contains("unable to get local issuer certificate"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("SSL_CERT_FILE"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("system trust store"), refused.stderr)
        XCTAssertFalse(refused.stderr.contains("self-signed"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("UNAUTHENTICATED"), refused.stderr)

        // The documented remedy: SSL_CERT_FILE names the CA, by address and by name.
        let trusted = try cli(["info", "--tls", "--json"], server, ["SSL_CERT_FILE": authority.certificateFile])
        XCTAssertTrue(trusted.succeeded, "\(trusted)")
        let byName = try cli(["info", "--tls", "--json", "--server", "localhost:\(server.port)"], server, ["SSL_CERT_FILE": authority.certificateFile])
        XCTAssertTrue(byName.succeeded, "\(byName)")
    }

    /// A credential asked for over CA-verified TLS (`auth request --tls`) is stored with that
    /// TLS is needed: later commands without `--tls` use it before they send the token.
    /// Before, they connected in plain text, sent the token, and the TLS port refused them.
    func testACredentialObtainedWithTLSKeepsUsingIt() throws {
        let server = try server("remembered")
        defer { server.stopGracefully() }
        let trust = ["SSL_CERT_FILE": authority.certificateFile, "PHOTOLIB_TOKEN": ""]
        let asked = try cli(["auth", "request", "--name", "Frame", "--access", "read-write", "--tls", "--json"], server, trust)
        XCTAssertTrue(asked.succeeded, "\(asked)")
        struct Grant: Decodable { var clientIdentifier: String }
        let client = try JSONDecoder().decode(Grant.self, from: Data(asked.stdout.utf8)).clientIdentifier
        let approve = try runCLI(["clients", "approve", client, "--tls"], server: server, environment: ["SSL_CERT_FILE": authority.certificateFile, "XDG_CONFIG_HOME": directory.file("owner-config"), "PHOTOLIB_FINGERPRINT": ""])
        XCTAssertTrue(approve.succeeded, "\(approve)")
        let later = try cli(["info", "--json"], server, trust)
        XCTAssertTrue(later.succeeded, "\(later)")
        XCTAssertFalse(server.log.contains("instead of a TLS handshake"), "a later command spoke plain text to the TLS port: \(server.log)")
    }

    func testTheHelpSaysHowToTrustAPrivateAuthority() throws {
        let top = try ChildProcess.run(Paths.photolib, ["--help"])
        XCTAssertTrue(top.stdout.contains("SSL_CERT_FILE"), top.stdout)
        let info = try ChildProcess.run(Paths.photolib, ["info", "--help"])
        XCTAssertTrue(info.stdout.contains("SSL_CERT_FILE"), "the --tls option says it: \(info.stdout)")
    }

    func testACertificateForAnotherNameSaysWhichNamesItHolds() throws {
        let server = try server("other-name", names: ["photos.example"])
        defer { server.stopGracefully() }
        let refused = try cli(["info", "--tls"], server, ["SSL_CERT_FILE": authority.certificateFile])
        XCTAssertFalse(refused.succeeded, "\(refused)")
        XCTAssertTrue(refused.stderr.contains("IP address mismatch"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("is for photos.example, not 127.0.0.1"), refused.stderr)
        XCTAssertFalse(refused.stderr.contains("self-signed"), refused.stderr)
    }

    func testAnExpiredCertificateIsWarnedAboutAtStartAndNamedByClients() throws {
        let server = try server("expired", validity: .between("20200101000000Z", "20200201000000Z"))
        defer { server.stopGracefully() }
        // The server warns, and serves (the operator decides; pinned clients ignore dates).
        XCTAssertTrue(server.log.contains("WARNING: photolibd: the TLS certificate expired on 2020-02-01 00:00:00 UTC"), server.log)
        XCTAssertTrue(server.isRunning)
        let refused = try cli(["info", "--tls"], server, ["SSL_CERT_FILE": authority.certificateFile])
        XCTAssertFalse(refused.succeeded, "\(refused)")
        XCTAssertTrue(refused.stderr.contains("expired on 2020-02-01 00:00:00 UTC"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("renew"), refused.stderr)
        XCTAssertFalse(refused.stderr.contains("self-signed"), refused.stderr)
        XCTAssertFalse(refused.stderr.contains("PHOTOLIB_FINGERPRINT"), refused.stderr)
    }

    func testACertificateThatExpiresSoonIsNoted() throws {
        let server = try server("soon", validity: .days(5))
        defer { server.stopGracefully() }
        XCTAssertTrue(server.log.contains("the TLS certificate expires soon, on "), server.log)
        XCTAssertFalse(server.log.contains("WARNING: photolibd: the TLS certificate"), server.log)
        let connected = try cli(["info", "--tls", "--json"], server, ["SSL_CERT_FILE": authority.certificateFile])
        XCTAssertTrue(connected.succeeded, "\(connected)")
    }
}
