import Foundation
import PhotoLibClient
import PhotoLibNet
import PhotoLibServer
import PhotoLibServerTestSupport
import PhotoLibTestSupport
import XCTest

/// The real client and server over the in-process transport with TLS: pinned, refused for a
/// wrong pin, and each side meeting a peer that does not speak TLS.
final class TLSConnectionTests: XCTestCase {
    static let identity: TLSIdentity = try! TLSIdentity.generate(commonName: "photolibd-test")

    private func tlsServer(photos: [String] = []) throws -> InProcessServer {
        var configuration = ServerConfiguration()
        configuration.tls = try TLSContext.server(identity: Self.identity)
        return try InProcessServer(photos: photos, configuration: configuration)
    }

    private func pinned(_ fingerprint: TLSFingerprint = TLSConnectionTests.identity.fingerprint) -> ClientConfiguration {
        var configuration = ClientConfiguration.minimalWindows
        configuration.tls = .pinned(fingerprint)
        return configuration
    }

    func testFetchAndAnOriginalByteForByteOverTLS() async throws {
        let server = try tlsServer(photos: [Fixtures.landscape, Fixtures.portrait])
        addTeardownBlock { await server.tearDown() }
        let library = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: server.token, configuration: pinned())
        defer { library.close() }
        let info = try await library.libraryInfo()
        XCTAssertEqual(info.assetCount, 2)
        // Many records and many flow-control windows: the original of the portrait.
        let original = try await library.imageManager.image(
            forAssetIdentifier: server.assets[1], targetSize: .maximum,
            options: ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .none, version: .original))
        XCTAssertEqual(original.data, try Fixtures.bytes(at: Fixtures.portrait), "byte for byte")
    }

    func testAWrongPinIsRefusedBeforeTheToken() async throws {
        let server = try tlsServer()
        addTeardownBlock { await server.tearDown() }
        var bytes = Self.identity.fingerprint.bytes
        bytes[0] ^= 0x80
        do {
            let library = try await PhotoLibrary.connect(
                connectedSocket: try server.connectedSocket(), token: server.token, configuration: pinned(try XCTUnwrap(TLSFingerprint(bytes: bytes))))
            library.close()
            XCTFail("connected with a wrong pin")
        } catch let error as PhotoLibError {
            XCTAssertEqual(error.code, .unauthenticated, "\(error)")
            XCTAssertTrue(error.message.contains(Self.identity.fingerprint.description), error.message)
        }
    }

    func testAPlaintextClientIsToldTheServerSpeaksTLSOnly() async throws {
        let server = try tlsServer()
        addTeardownBlock { await server.tearDown() }
        do {
            let library = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: server.token)
            library.close()
            XCTFail("a plaintext client connected to a TLS server")
        } catch let error as PhotoLibError {
            XCTAssertEqual(error.code, .failedPrecondition, "\(error)")
            XCTAssertTrue(error.message.contains("accepts TLS connections only"), error.message)
        }
    }

    func testATLSClientIsToldAPlaintextServerDoesNotSpeakTLS() async throws {
        let server = try InProcessServer()
        addTeardownBlock { await server.tearDown() }
        do {
            let library = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: server.token, configuration: pinned())
            library.close()
            XCTFail("a TLS client connected to a plaintext server")
        } catch let error as PhotoLibError {
            XCTAssertEqual(error.code, .unavailable, "\(error)")
            XCTAssertTrue(error.message.contains("does not speak TLS"), error.message)
        }
    }
}
