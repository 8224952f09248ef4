import Foundation
import PhotoLibClient
import XCTest

/// A wrong token is refused by the CLI and by `PhotoLibClient`; the owner token works.
final class AuthenticationTests: XCTestCase {
    nonisolated(unsafe) private static var fixture: LibraryFixture?
    private var server: ServerProcess { Self.fixture!.server }

    override func setUpWithError() throws {
        if Self.fixture == nil { Self.fixture = try LibraryFixture("auth", photos: [Paths.portrait]) }
    }

    override class func tearDown() {
        fixture?.shutDown()
        fixture = nil
    }

    func testCLIWithWrongTokenExitsNonZeroAndSaysUnauthenticated() throws {
        let wrong = try runCLI(["ls", "--json"], server: server, environment: ["PHOTOLIB_TOKEN": "not-the-owner-token"])
        XCTAssertFalse(wrong.succeeded, "\(wrong)")
        XCTAssertFalse(wrong.signalled, "\(wrong)")
        XCTAssertTrue(wrong.stderr.contains("UNAUTHENTICATED"), "stderr: \(wrong.stderr)")
        XCTAssertEqual(wrong.stdout, "", "nothing is listed")

        let viaOption = try runCLI(["albums", "--token", server.token + "x"], server: server)
        XCTAssertFalse(viaOption.succeeded, "\(viaOption)")
        XCTAssertTrue(viaOption.stderr.contains("UNAUTHENTICATED"), "stderr: \(viaOption.stderr)")

        let right = try runCLI(["ls", "--json"], server: server)
        XCTAssertTrue(right.succeeded, "the owner token works: \(right)")
    }

    func testCLIWithTokenFileWorks() throws {
        let result = try runCLI(["ls", "--json", "--token-file", server.library + "/owner.token"], server: server, environment: ["PHOTOLIB_TOKEN": ""])
        XCTAssertTrue(result.succeeded, "\(result)")
    }

    func testClientConnectWithWrongTokenThrowsUnauthenticated() async throws {
        for token in ["wrong", String(server.token.dropLast())] {
            do {
                let library = try await connectClient(server, token: token)
                library.close()
                XCTFail("connect with token \(token.debugDescription) succeeded")
            } catch let error as PhotoLibError {
                XCTAssertEqual(error.code, .unauthenticated, "token \(token.debugDescription): \(error)")
            }
        }
        // The server still serves the owner.
        let library = try await connectClient(server)
        defer { library.close() }
        XCTAssertTrue(library.isOwner)
        let assets = try await fetchAllAssets(library)
        XCTAssertEqual(assets.count, 1)
    }
}
