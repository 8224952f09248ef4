import Foundation
import PhotoLibNet
import PhotoLibServer
import XCTest

@testable import PhotoLibClient

#if canImport(Glibc)
import Glibc
#endif

/// The TLS pieces around the connections: what a client reports for a TLS failure (a
/// server's plaintext refusal included), what a plaintext client on a TLS port is told, the
/// loopback rule for plain TCP, and the pins kept beside the credentials.
final class TLSSettingsTests: XCTestCase {
    private func goAway(_ error: PhotoLibError) -> [UInt8] {
        Frame(.goAway, payload: Wire.GoAway(lastStreamID: 0, status: Wire.Status(error)).encoded()).encoded
    }

    func testAServerRefusalBeforeTLSIsReportedWithItsReason() {
        let refusal = goAway(PhotoLibError(.resourceExhausted, "too many connections"))
        let error = ClientTLS.connectionError(TLSError(.notTLS, "not TLS", receivedBytes: refusal))
        XCTAssertEqual(error.code, .resourceExhausted)
        XCTAssertEqual(error.message, "too many connections (the server answered before TLS)")
    }

    func testAPlaintextServerIsReportedAsNotSpeakingTLS() {
        // A plaintext server cannot read a ClientHello as a frame and says so: that is not a
        // refusal to retry, so the TLS message (what to do) is reported.
        let confused = goAway(PhotoLibError(.invalidArgument, "frame of 369164545 bytes exceeds the limit"))
        let error = ClientTLS.connectionError(TLSError(.notTLS, "the server answered without TLS", receivedBytes: confused))
        XCTAssertEqual(error.code, .unavailable)
        XCTAssertEqual(error.message, "the server answered without TLS")
        XCTAssertEqual(ClientTLS.connectionError(TLSError(.fingerprintMismatch, "pinned another")).code, .unauthenticated)
    }

    func testAPlaintextClientOnATLSPortIsToldInItsOwnProtocol() throws {
        var decoder = FrameDecoder(maxPayloadSize: WireLimits.maxHelloSize)
        decoder.append(ServerTLS.plaintextRefusal())
        let frame = try XCTUnwrap(try decoder.next())
        XCTAssertEqual(frame.type, .goAway)
        let status = try XCTUnwrap(try Wire.GoAway(decoding: frame.payload).status?.error)
        XCTAssertEqual(status.code, .failedPrecondition)
        XCTAssertTrue(status.message.contains("accepts TLS connections only"), status.message)
    }

    func testLoopbackAddresses() {
        for host in ["127.0.0.1", "127.8.9.10", "localhost", "LOCALHOST", "::1", "photos.localhost"] {
            XCTAssertTrue(ServerTLS.isLoopback(host), host)
        }
        for host in ["0.0.0.0", "::", "192.168.1.2", "10.0.0.1", "nas.local", "127.0.0", "127.0.0.1.example.com", "1270.0.0.1"] {
            XCTAssertFalse(ServerTLS.isLoopback(host), host)
        }
        // What a client checks before connecting without TLS (HOST:PORT as the user gives it).
        for server in ["127.0.0.1:7800", "127.8.9.10:1", "localhost:7800", "[::1]:7800"] {
            XCTAssertTrue(PhotoLibrary.isLoopback(server: server), server)
        }
        for server in ["0.0.0.0:7800", "[::]:7800", "192.168.1.2:7800", "nas.local:7800", "127.0.0.1", "not an endpoint"] {
            XCTAssertFalse(PhotoLibrary.isLoopback(server: server), server)
        }
    }

    func testACredentialObtainedOverAPinnedConnectionIsStoredWithItsPin() throws {
        let directory = NSTemporaryDirectory() + "tls-grant-pin-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = CredentialStore(path: directory + "/photolib/credentials")
        let pin = try XCTUnwrap(TLSFingerprint(bytes: Array(repeating: 7, count: 32)))
        let grant = ClientGrant(clientIdentifier: "client-1", token: "secret", status: .notDetermined, accessLevel: .readWrite)
        XCTAssertEqual(try store.save(grant, for: "nas:7800", verifiedBy: .pinned(pin)), pin)
        XCTAssertEqual(try store.grant(for: "nas:7800")?.token, "secret")
        XCTAssertEqual(try store.pinnedFingerprint(for: "nas:7800"), pin)
        XCTAssertEqual(try store.knownServer("nas:7800"), .pinned(pin))
        // Without a pin nothing is pinned; a credential obtained over CA-verified TLS keeps
        // that TLS is needed (later commands use it before sending the token), plain TCP nothing.
        XCTAssertNil(try store.save(grant, for: "other:7800", verifiedBy: nil))
        XCTAssertNil(try store.save(grant, for: "ca:7800", verifiedBy: .certificateAuthority))
        XCTAssertNil(try store.pinnedFingerprint(for: "other:7800"))
        XCTAssertNil(try store.pinnedFingerprint(for: "ca:7800"))
        XCTAssertNil(try store.knownServer("other:7800"))
        XCTAssertEqual(try store.knownServer("ca:7800"), .certificateAuthority)
        // The file stays readable as before: fingerprints, and the one word for the authorities.
        let data = try Data(contentsOf: URL(fileURLWithPath: store.knownServersPath))
        let entries = try JSONDecoder().decode([String: String].self, from: data)
        XCTAssertEqual(entries, ["nas:7800": pin.description, "ca:7800": "certificate-authority"])
        // A later pin replaces the trust in the authorities.
        try store.pin(pin, for: "ca:7800")
        XCTAssertEqual(try store.knownServer("ca:7800"), .pinned(pin))
    }

    func testPinsAreKeptBesideTheCredentialsPrivately() throws {
        let directory = NSTemporaryDirectory() + "tls-known-servers-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = CredentialStore(path: directory + "/photolib/credentials")
        XCTAssertEqual(store.knownServersPath, directory + "/photolib/known_servers")
        XCTAssertNil(try store.pinnedFingerprint(for: "nas:7800"))
        let one = try XCTUnwrap(TLSFingerprint(bytes: Array(repeating: 1, count: 32)))
        let two = try XCTUnwrap(TLSFingerprint(bytes: Array(repeating: 2, count: 32)))
        try store.pin(one, for: "nas:7800")
        try store.pin(two, for: "10.0.0.5:7800")
        XCTAssertEqual(try store.pinnedFingerprint(for: "nas:7800"), one)
        XCTAssertEqual(try store.pinnedFingerprint(for: "10.0.0.5:7800"), two)
        var info = stat()
        XCTAssertEqual(stat(store.knownServersPath, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o600)
        let text = try String(contentsOfFile: store.knownServersPath, encoding: .utf8)
        XCTAssertTrue(text.contains(one.description), "fingerprints are stored as SHA256:…: \(text)")
        try store.pin(two, for: "nas:7800")
        XCTAssertEqual(try store.pinnedFingerprint(for: "nas:7800"), two)
        XCTAssertTrue(try store.forgetPin(for: "nas:7800"))
        XCTAssertFalse(try store.forgetPin(for: "nas:7800"))
        XCTAssertNil(try store.pinnedFingerprint(for: "nas:7800"))
        // The credentials file is untouched by pins.
        XCTAssertFalse(FileManager.default.fileExists(atPath: store.path))

        XCTAssertTrue(FileManager.default.createFile(atPath: store.knownServersPath, contents: Data("{".utf8)))
        XCTAssertThrowsError(try store.pinnedFingerprint(for: "nas:7800")) { error in
            XCTAssertEqual((error as? PhotoLibError)?.code, .dataLoss)
            XCTAssertTrue("\(error)".contains("known_servers"))
        }
    }
}
