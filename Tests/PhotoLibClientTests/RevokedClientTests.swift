import Foundation
import PhotoLibClient
import PhotoLibServerTestSupport
import PhotoLibTestSupport
import PhotoLibWire
import XCTest

/// A client the owner revokes learns it from its next call: the server's GOAWAY says why, and
/// calls made after it fail with that reason (`permissionDenied`, "revoked"), not with a bare
/// `unavailable` "the server closed the connection" a program would take for a lost network
/// and retry.
final class RevokedClientTests: XCTestCase {
    func testCallsAfterARevocationSayTheClientWasRevoked() async throws {
        let server = try InProcessServer(photos: [Fixtures.landscape])
        addTeardownBlock { await server.tearDown() }
        let owner = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: server.token)
        defer { owner.close() }
        let anonymous = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: "")
        let state = try await anonymous.call(
            PhotoLibraryMethods.requestAuthorization, Wire.AuthorizationRequest(accessLevel: .readWrite, clientName: "Old laptop"))
        anonymous.close()
        try await owner.setAuthorization(.authorized, for: .readWrite, client: state.clientIdentifier)
        let client = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: state.clientToken)
        defer { client.close() }
        let count = try await client.fetchAssets().count
        XCTAssertEqual(count, 1)

        try await owner.revoke(client: state.clientIdentifier)
        // The server ends the connection with a GOAWAY at once; any call after it fails.
        var last: PhotoLibError?
        for _ in 0..<100 {
            do {
                _ = try await client.libraryInfo()
                try await Task.sleep(nanoseconds: 20_000_000)
            } catch let error as PhotoLibError {
                last = error
                break
            }
        }
        let error = try XCTUnwrap(last, "calls still answered after the revocation")
        XCTAssertEqual(error.code, .permissionDenied, "\(error)")
        XCTAssertTrue(error.message.contains("revoked"), error.message)
        // And so does every later call.
        do {
            _ = try await client.libraryInfo()
            XCTFail("a call answered after the revocation")
        } catch let later as PhotoLibError {
            XCTAssertEqual(later.code, .permissionDenied, "\(later)")
        }
    }
}
