import Foundation
import Logging
import PhotoLibCore
import PhotoLibNet
import PhotoLibServer
import PhotoLibServerTestSupport
import PhotoLibStore
import PhotoLibTestSupport
import PhotoLibWire
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// Every buffer bounded (issue 17): PING floods, clamped flow-control windows, and the limits
/// on connections that have not completed the handshake. Each test drives the real server.
final class TransportLimitsTests: XCTestCase {
    /// Before: every PING got its ACK, so a client sending PINGs and reading nothing grew the
    /// server's send buffer without bound. Now one is answered per interval, and too many
    /// unanswered ones close the connection.
    func testAPingFloodGetsOneAnswerThenGoAway() async throws {
        var configuration = ServerConfiguration()
        configuration.controlFrameInterval = 60
        configuration.maxUnansweredControlFrames = 5
        let server = try InProcessServer(configuration: configuration)
        addTeardownBlock { await server.tearDown() }
        let connection = try server.rawConnection()
        _ = try connection.handshake(token: server.token)
        var flood: [UInt8] = []
        for index in 0..<10 {
            flood += Frame(.ping, payload: Wire.Ping(opaque: UInt64(index)).encoded()).encoded
        }
        connection.send(flood)
        var acks = 0
        var goAway: Wire.Status?
        while goAway == nil, case .frame(let frame) = connection.readFrame(timeout: 10) {
            if frame.type == .ping && frame.flags.contains(.ack) { acks += 1 }
            if frame.type == .goAway { goAway = try Wire.GoAway(decoding: frame.payload).status }
        }
        XCTAssertEqual(acks, 1, "one PING answered within the interval")
        let status = try XCTUnwrap(goAway, "the flood was not ended with GOAWAY")
        XCTAssertEqual(status.code, .resourceExhausted)
        XCTAssertTrue(status.message.contains("PING"), status.message)
        XCTAssertTrue(connection.waitForClose(timeout: 10))
    }

    /// PINGs at a normal pace are all answered.
    func testPingsOncePerIntervalAreAllAnswered() async throws {
        var configuration = ServerConfiguration()
        configuration.controlFrameInterval = 0.01
        let server = try InProcessServer(configuration: configuration)
        addTeardownBlock { await server.tearDown() }
        let connection = try server.rawConnection()
        _ = try connection.handshake(token: server.token)
        for index in 0..<3 {
            connection.send(Frame(.ping, payload: Wire.Ping(opaque: UInt64(index)).encoded()))
            let (read, _) = connection.readUntil(timeout: 10) { $0.type == .ping && $0.flags.contains(.ack) }
            guard case .frame = read else { return XCTFail("PING \(index) was not answered: \(read)") }
            usleep(20_000)
        }
    }

    /// Two PINGs sent together (a keepalive right after an RTT probe) are both answered: the
    /// second waits for the next interval instead of being dropped.
    func testAPingTooSoonIsAnsweredAtTheNextInterval() async throws {
        var configuration = ServerConfiguration()
        configuration.controlFrameInterval = 0.3
        let server = try InProcessServer(configuration: configuration)
        addTeardownBlock { await server.tearDown() }
        let connection = try server.rawConnection()
        _ = try connection.handshake(token: server.token)
        let started = Date()
        connection.send(
            Frame(.ping, payload: Wire.Ping(opaque: 1).encoded()).encoded + Frame(.ping, payload: Wire.Ping(opaque: 2).encoded()).encoded)
        var answered: [UInt64: Double] = [:]
        while answered.count < 2, case .frame(let frame) = connection.readFrame(timeout: 10) {
            if frame.type == .ping && frame.flags.contains(.ack) {
                answered[try Wire.Ping(decoding: frame.payload).opaque] = Date().timeIntervalSince(started)
            }
        }
        XCTAssertEqual(Set(answered.keys), [1, 2], "both PINGs answered")
        XCTAssertGreaterThanOrEqual(answered[2] ?? 0, 0.25, "the second one interval after the first")
    }

    /// Before: a client sending requests and reading no answers made the server queue answers
    /// without bound (a PING flood: +128 MiB). Now the server stops reading that client once
    /// its send queue is full: the client's own sends stall, and resume once it reads.
    func testAClientThatReadsNothingStopsBeingRead() async throws {
        var configuration = ServerConfiguration()
        configuration.controlFrameInterval = 0
        configuration.maxSendQueueBytes = 64 << 10
        let server = try InProcessServer(configuration: configuration)
        addTeardownBlock { await server.tearDown() }
        let fd = try server.connectedSocket()
        // The handshake through a RawConnection on a duplicate; the flood on `fd` itself,
        // with MSG_DONTWAIT so that a full socket shows instead of blocking.
        let connection = RawConnection(connectedSocket: dup(fd))
        _ = try connection.handshake(token: server.token)
        var flood: [UInt8] = []
        for index in 0..<256 { flood += Frame(.ping, payload: Wire.Ping(opaque: UInt64(index)).encoded()).encoded }
        var written = 0
        var stalledSince: Date?
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let sent = flood.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if sent == flood.count {
                written += sent
                stalledSince = nil
                continue
            }
            if sent > 0 {
                // Finish the frame boundary blocking-free later: keep what is left for now.
                written += sent
                flood = Array(flood[sent...]) + flood[0..<sent]
            }
            if stalledSince == nil { stalledSince = Date() }
            if Date().timeIntervalSince(stalledSince!) > 0.5 { break }
            usleep(10_000)
        }
        XCTAssertNotNil(stalledSince, "the server kept reading PINGs from a client that read nothing (\(written) bytes taken in 20 s)")
        // The client reads: answers flow again.
        let (read, _) = connection.readUntil(timeout: 10) { $0.type == .ping && $0.flags.contains(.ack) }
        guard case .frame = read else { return XCTFail("no PING answer once the client read: \(read)") }
        connection.close()
        close(fd)
    }

    /// Before: a client announcing 2^31−1 windows got everything its calls produced queued
    /// towards it at once (+325 MiB). Now the server uses at most its configured maxima.
    func testAnnouncedWindowsAreClampedToTheServersMaximum() async throws {
        var configuration = ServerConfiguration()
        configuration.maxResponseStreamWindow = 131_072
        configuration.maxResponseConnectionWindow = 131_072
        let server = try InProcessServer(photos: [Fixtures.landscape], configuration: configuration)
        addTeardownBlock { await server.tearDown() }
        let connection = try server.rawConnection()
        let huge = UInt32(Int32.max)
        _ = try connection.handshake(token: server.token, maxFrameSize: 131_072, streamWindow: huge, connectionWindow: huge)
        let original = try Fixtures.bytes(at: Fixtures.landscape)
        XCTAssertGreaterThan(original.count, 4 * 131_072, "the fixture is large enough to tell")
        // The configured 128 KiB is raised to twice the client's maximum frame size (256 KiB):
        // room for one more largest message while the client holds credit back (PROTOCOL.md 9.3).
        let effectiveMaximum = 2 * 131_072
        let request = try Wire.ImageRequest(
            assetIdentifier: server.assets[0], targetSize: .maximum,
            options: ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .none, version: .original))
        connection.send(Frame(.call, stream: 1, payload: Wire.CallStart(method: PhotoLibraryMethods.requestImage.path).encoded()))
        connection.send(Frame(.message, stream: 1, flags: .endStream, payload: request.encoded()))
        // What arrives before any WINDOW_UPDATE (a bounded wait for nothing more to come).
        var received = 0
        var ended = false
        while case .frame(let frame) = connection.readFrame(timeout: 0.5) {
            if frame.type == .message && frame.streamID == 1 { received += frame.payload.count }
            if frame.type == .status { ended = true }
        }
        XCTAssertGreaterThan(received, 0)
        XCTAssertLessThanOrEqual(received, effectiveMaximum, "more than the server's maximum window was sent before credit came back")
        XCTAssertFalse(ended, "the call waits for credit")
        // Credit returned: the rest follows.
        let update = Wire.WindowUpdate(increment: UInt32(received)).encoded()
        connection.send(Frame(.windowUpdate, stream: 1, payload: update))
        connection.send(Frame(.windowUpdate, stream: 0, payload: update))
        let (read, _) = connection.readUntil(timeout: 10) { $0.type == .message && $0.streamID == 1 }
        guard case .frame = read else { return XCTFail("nothing more arrived after credit: \(read)") }
    }

    /// Before: connections that never sent HELLO counted like any other, and ~1,100 of them
    /// locked every client out. Now an address may hold only a few connections in the
    /// handshake: a newer one takes the place of the oldest, which gets GOAWAY; so a client
    /// that says HELLO at once gets in, from another address or from the flooding one.
    func testSilentConnectionsBeyondTheLimitMakeRoomAndCredentialedClientsGetIn() async throws {
        var configuration = ServerConfiguration()
        configuration.maxPendingHandshakesPerAddress = 3
        configuration.maxPendingHandshakes = 8
        configuration.maxConnections = 16
        let (library, port) = try serveOnLoopback(configuration)
        // Three silent connections from 127.0.0.2 are held (nothing comes back on them)…
        var silent: [RawConnection] = []
        for _ in 0..<3 {
            silent.append(try Self.connect(from: "127.0.0.2", port: port))
        }
        for connection in silent {
            if case .frame(let frame) = connection.readFrame(timeout: 0.3) {
                XCTFail("a silent connection within the limit got \(frame.type)")
            }
        }
        // …a fourth from the same address takes the oldest one's place: that one gets GOAWAY.
        let fourth = try Self.connect(from: "127.0.0.2", port: port)
        let (read, _) = silent[0].readUntil(timeout: 10) { $0.type == .goAway }
        guard case .frame(let frame) = read else { return XCTFail("the oldest silent connection was not closed: \(read)") }
        let status = try XCTUnwrap(try Wire.GoAway(decoding: frame.payload).status)
        XCTAssertEqual(status.code, .resourceExhausted)
        XCTAssertTrue(status.message.contains("handshake"), status.message)
        XCTAssertTrue(silent[0].waitForClose(timeout: 10))
        if case .frame(let frame) = fourth.readFrame(timeout: 0.3) { XCTFail("the newest silent connection got \(frame.type)") }
        // A client with the owner's token gets in from another address, and from the flooding
        // one: it says HELLO at once.
        let owner = try RawConnection(port: port)
        XCTAssertTrue(try owner.handshake(token: try library.ownerToken()).isOwner)
        let neighbour = try Self.connect(from: "127.0.0.2", port: port)
        XCTAssertTrue(try neighbour.handshake(token: try library.ownerToken()).isOwner)
        // A silent connection that completes its handshake is not closed later.
        _ = try silent[2].handshake(token: try library.ownerToken())
        for _ in 0..<3 { _ = try Self.connect(from: "127.0.0.2", port: port) }
        silent[2].send(Frame(.ping, payload: Wire.Ping(opaque: 7).encoded()))
        let (pong, _) = silent[2].readUntil(timeout: 10) { $0.type == .ping || $0.type == .goAway }
        guard case .frame(let answer) = pong else { return XCTFail("no answer: \(pong)") }
        XCTAssertEqual(answer.type, .ping, "a connection past its handshake is never evicted")
        for connection in silent + [fourth, owner, neighbour] { connection.close() }
    }

    /// A burst of clients that each send HELLO as soon as they connect, many more than may
    /// wait for their handshake from one address: every one gets in. Before, connections
    /// accepted faster than their first read turns counted as silent while their HELLO sat
    /// unread in the socket, and the oldest were closed ("… sent no HELLO in time").
    func testABurstOfClientsThatSayHelloAtOnceAllGetIn() async throws {
        var configuration = ServerConfiguration()
        configuration.maxPendingHandshakesPerAddress = 2
        configuration.maxPendingHandshakes = 4
        let (library, port) = try serveOnLoopback(configuration)
        let hello = Frame(.hello, payload: Wire.Hello(protocolVersion: 1, token: try library.ownerToken(), clientName: "burst").encoded())
        var clients: [RawConnection] = []
        for _ in 0..<60 {
            let client = try Self.connect(from: "127.0.0.3", port: port)
            client.send(hello)
            clients.append(client)
        }
        var refused: [String] = []
        for (index, client) in clients.enumerated() {
            let (read, _) = client.readUntil(timeout: 10) { $0.type == .welcome || $0.type == .goAway }
            guard case .frame(let frame) = read else { return XCTFail("client \(index): no answer: \(read)") }
            if frame.type == .goAway { refused.append("\(index): \(try Wire.GoAway(decoding: frame.payload).status?.message ?? "")") }
        }
        XCTAssertEqual(refused, [], "clients that sent HELLO at once were closed as silent")
        for client in clients { client.close() }
    }

    /// A server with `configuration` on a new library, on 127.0.0.1 (a real listener: the
    /// limits depend on peer addresses), shut down when the test ends; its library and port.
    private func serveOnLoopback(_ configuration: ServerConfiguration) throws -> (PhotoLibrary, Int) {
        let directory = try TestDirectory()
        addTeardownBlock { directory.cleanUp() }
        let library = try PhotoLibrary.open(at: directory.library)
        var logger = Logger(label: "photolibd.test")
        logger.logLevel = .critical
        let server = try PhotoLibServer(library: library, endpoint: Endpoint(host: "127.0.0.1", port: 0), configuration: configuration, logger: logger)
        server.start()
        addTeardownBlock {
            server.beginGracefulShutdown()
            await server.serve()
        }
        return (library, try XCTUnwrap(server.listeningEndpoint?.port))
    }

    /// A TCP connection to 127.0.0.1:`port` from the loopback address `source`.
    private static func connect(from source: String, port: Int) throws -> RawConnection {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawConnectionError("socket() failed: errno \(errno)") }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = in_port_t(UInt16(port).bigEndian)
        remote.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        let connected = withUnsafePointer(to: &remote) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0, connected == 0 else {
            let code = errno
            Glibc.close(fd)
            throw RawConnectionError("connect from \(source) to 127.0.0.1:\(port) failed: errno \(code)")
        }
        return RawConnection(connectedSocket: fd)
    }
}
