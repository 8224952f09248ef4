import Foundation
import PhotoLibClient
import PhotoLibTestSupport
import XCTest

/// A server that stops answering without closing its sockets (SIGSTOP here; a hung process,
/// a host that lost power, a network gone quiet): a client's open subscription and a new
/// connection end with `UNAVAILABLE` within the client's timeouts instead of waiting for ever.
final class StoppedServerTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var server: ServerProcess?

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("photolib-e2e-stopped")
        // An idle timeout of 2 s: the client looks at its connection every half second.
        server = try ServerProcess.start(importing: [Paths.portrait], library: directory.file("library"), extraArguments: ["--idle-timeout", "2"])
    }

    override func tearDown() {
        if let server, server.isRunning {
            server.child.send(SIGCONT)
            server.kill9()
        }
        server = nil
        directory?.remove()
    }

    func testASubscriptionToAStoppedServerEndsWithUnavailable() async throws {
        let server = try XCTUnwrap(server)
        var configuration = ClientConfiguration()
        configuration.keepaliveTimeout = 1
        let client = try await connectClient(server, configuration: configuration)
        defer { client.close() }
        let subscription = try await client.subscribe()
        _ = try await subscription.registerFetch()
        server.child.send(SIGSTOP)
        do {
            _ = try await withTimeout(30, "the changes of a subscription to a stopped server") {
                for try await _ in subscription.changes {}
            }
            XCTFail("the subscription ended without an error")
        } catch let error as PhotoLibError {
            XCTAssertEqual(error.code, .unavailable, "\(error)")
            XCTAssertTrue(error.message.contains("keepalive PING"), error.message)
        }
    }

    func testConnectingToAStoppedServerFailsWithUnavailable() async throws {
        let server = try XCTUnwrap(server)
        server.child.send(SIGSTOP)
        var configuration = ClientConfiguration()
        configuration.connectTimeout = 1
        do {
            // The kernel still accepts the TCP connection; nobody answers HELLO.
            _ = try await connectClient(server, configuration: configuration)
            XCTFail("connected to a stopped server")
        } catch let error as PhotoLibError {
            XCTAssertEqual(error.code, .unavailable, "\(error)")
            XCTAssertTrue(error.message.contains("no WELCOME within 1 s"), error.message)
        }
    }
}
