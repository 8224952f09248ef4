import Foundation
import PhotoLibServer
import PhotoLibServerTestSupport
import PhotoLibTestSupport
import PhotoLibWire
import XCTest

/// docs/PROTOCOL.md section 10: idle is "no complete frame and no call in progress on the
/// server's side"; the handshake has its own deadline.
final class IdleTimeoutTests: XCTestCase {
    private func server(idle: Double, handshake: Double = 10) throws -> InProcessServer {
        var configuration = ServerConfiguration()
        configuration.idleTimeout = idle
        configuration.handshakeTimeout = handshake
        return try InProcessServer(configuration: configuration)
    }

    private func goAway(_ connection: RawConnection, within timeout: TimeInterval) -> Wire.Status? {
        let (read, _) = connection.readUntil(timeout: timeout) { $0.type == .goAway }
        guard case .frame(let frame) = read else { return nil }
        return try? Wire.GoAway(decoding: frame.payload).status
    }

    /// Before: every byte reset the timer, so one byte every few seconds held a connection
    /// (and its thread) forever.
    func testBytesOfAnUnfinishedFrameDoNotKeepAConnectionAlive() async throws {
        let server = try server(idle: 0.4)
        addTeardownBlock { await server.tearDown() }
        let connection = try server.rawConnection()
        _ = try connection.handshake(token: server.token)
        // A PING frame's header, one byte at a time, never finished.
        let bytes = RawConnection.rawFrame(length: 8, type: FrameType.ping.rawValue)
        let started = Date()
        var closedAfter: TimeInterval?
        for byte in bytes {
            connection.send([byte])
            // A byte every 0.2 s: each well inside the 0.4 s timeout, the frame never done.
            if let status = goAway(connection, within: 0.2) {
                XCTAssertEqual(status.code, .unavailable)
                XCTAssertTrue(status.message.hasPrefix("idle"), status.message)
                closedAfter = Date().timeIntervalSince(started)
                break
            }
        }
        XCTAssertNotNil(closedAfter, "a connection trickling a byte every 0.2 s was not closed as idle within 2 s (timeout 0.4 s)")
    }

    /// Before: any open call skipped the check, so a stalled upload held its connection forever.
    func testAStalledUploadDoesNotKeepAConnectionAlive() throws {
        let server = try server(idle: 0.4)
        addTeardownBlock { await server.tearDown() }
        let connection = try server.rawConnection()
        _ = try connection.handshake(token: server.token)
        connection.send(Frame(.call, stream: 1, payload: Wire.CallStart(method: PhotoLibraryMethods.uploadAsset.path).encoded()))
        let header = Wire.UploadHeader(originalFilename: "stalled.jpg", size: 1_000_000, uniformTypeIdentifier: "public.jpeg")
        connection.send(Frame(.message, stream: 1, payload: Wire.UploadChunk(part: .header(header)).encoded()))
        connection.send(Frame(.message, stream: 1, payload: Wire.UploadChunk(part: .data([0xFF, 0xD8, 0xFF, 0xE0])).encoded()))
        let status = try XCTUnwrap(goAway(connection, within: 5), "the stalled upload's connection was never closed")
        XCTAssertTrue(status.message.hasPrefix("idle"), status.message)
    }

    /// PINGs are complete frames: a client that pings stays connected past the timeout.
    func testPingsKeepAConnectionAlive() throws {
        let server = try server(idle: 0.4)
        addTeardownBlock { await server.tearDown() }
        let connection = try server.rawConnection()
        _ = try connection.handshake(token: server.token)
        for index in 0..<8 {
            connection.send(Frame(.ping, payload: Wire.Ping(opaque: UInt64(index)).encoded()))
            let (read, _) = connection.readUntil(timeout: 2) { $0.type == .ping || $0.type == .goAway }
            guard case .frame(let frame) = read, frame.type == .ping else { return XCTFail("no PING ACK at round \(index): \(read)") }
            Thread.sleep(forTimeInterval: 0.15)
        }
        let info = try connection.call(stream: 1, method: PhotoLibraryMethods.getLibraryInfo.path)
        XCTAssertEqual(info.status.code, .ok, "still connected after 1.2 s of pings with a 0.4 s idle timeout")
    }

    /// The handshake deadline holds whatever the peer sends before HELLO is complete.
    func testTheHandshakeHasItsOwnDeadline() throws {
        let server = try server(idle: 60, handshake: 0.4)
        addTeardownBlock { await server.tearDown() }
        let connection = try server.rawConnection()
        let hello = Frame(.hello, payload: Wire.Hello(protocolVersion: WireLimits.protocolVersion, token: server.token, clientName: "slow").encoded()).encoded
        var closed = false
        for byte in hello.dropLast() {
            connection.send([byte])
            if let status = goAway(connection, within: 0.05) {
                XCTAssertEqual(status.code, .deadlineExceeded, status.message)
                closed = true
                break
            }
        }
        if !closed { closed = goAway(connection, within: 3)?.code == .deadlineExceeded }
        XCTAssertTrue(closed, "a HELLO sent a byte at a time outlived the handshake deadline")
    }
}
