import PhotoLibCore
import XCTest

@testable import PhotoLibWire

/// The protocol state machine driven by bytes alone: every test feeds exact frames and checks
/// the events and the exact bytes the machine writes back.
final class ConnectionStateMachineTests: XCTestCase {
    typealias Machine = ConnectionStateMachine
    typealias Event = ConnectionStateMachine.Event

    private let millisecond: UInt64 = 1_000_000
    private let second: UInt64 = 1_000_000_000

    // MARK: Helpers

    private func bytes(_ frames: Frame...) -> [UInt8] {
        var bytes: [UInt8] = []
        for frame in frames { frame.encode(into: &bytes) }
        return bytes
    }

    private func hello(_ hello: Wire.Hello = Wire.Hello(protocolVersion: 1, token: "t", clientName: "test")) -> Frame {
        Frame(.hello, payload: hello.encoded())
    }

    private func call(_ stream: UInt32, _ method: String = "/photolib.v1.PhotoLibrary/Ping", timeoutMs: UInt64 = 0, endStream: Bool = false) -> Frame {
        Frame(.call, stream: stream, flags: endStream ? .endStream : [], payload: Wire.CallStart(method: method, timeoutMs: timeoutMs).encoded())
    }

    private func message(_ stream: UInt32, _ payload: [UInt8], endStream: Bool = false) -> Frame {
        Frame(.message, stream: stream, flags: endStream ? .endStream : [], payload: payload)
    }

    private func windowUpdate(_ stream: UInt32, _ increment: UInt32) -> Frame {
        Frame(.windowUpdate, stream: stream, payload: Wire.WindowUpdate(increment: increment).encoded())
    }

    private func status(_ stream: UInt32, _ status: Wire.Status) -> Frame {
        Frame(.status, stream: stream, payload: status.encoded())
    }

    private func ping(_ opaque: UInt64, ack: Bool = false) -> Frame {
        Frame(.ping, flags: ack ? .ack : [], payload: Wire.Ping(opaque: opaque).encoded())
    }

    private func goAway(last: UInt32, _ code: Wire.StatusCode, _ message: String, violation: Bool = false) -> Frame {
        let reason: Wire.ErrorReason = violation ? .init(ErrorReason.protocolViolation) : .init(rawValue: 0)
        return Frame(.goAway, payload: Wire.GoAway(lastStreamID: last, status: Wire.Status(code: code, message: message, reason: reason)).encoded())
    }

    private func server(_ configure: (inout Machine.Configuration) -> Void = { _ in }) -> Machine {
        var configuration = Machine.Configuration(role: .server)
        configure(&configuration)
        return Machine(configuration: configuration, now: 0)
    }

    /// Feeds `input` and pulls every event (answering none).
    private func feed(_ machine: inout Machine, _ input: [UInt8], now: UInt64 = 0) -> [Event] {
        machine.receive(input)
        var events: [Event] = []
        while let event = machine.nextEvent(now: now) { events.append(event) }
        return events
    }

    /// Feeds `input` for borrowing (``Machine/receive(borrowing:)``), pulls every event, then
    /// overwrites the bytes, as the next read into the loop's buffer would. Lent messages are
    /// copied out while they are valid; returns the events with those as `.message`, and how
    /// many were lent.
    private func feedBorrowing(_ machine: inout Machine, _ input: [UInt8], now: UInt64 = 0) -> (events: [Event], lent: Int) {
        var buffer = input
        var events: [Event] = []
        var lent = 0
        buffer.withUnsafeMutableBytes { raw in
            machine.receive(borrowing: UnsafeRawBufferPointer(raw))
            while let event = machine.nextEvent(now: now) {
                if case .borrowedMessage(let stream, let payload, let endStream) = event {
                    lent += 1
                    events.append(.message(stream: stream, payload: payload.copied(), endStream: endStream))
                } else {
                    events.append(event)
                }
            }
            raw.initializeMemory(as: UInt8.self, repeating: 0xEE)
        }
        return (events, lent)
    }

    /// The WELCOME a server with `configuration` writes for `Wire.Welcome(serverName: "s")`.
    private func welcomeFrame(_ configuration: Machine.Configuration) -> Frame {
        Frame(.welcome, payload: Wire.Welcome(
            protocolVersion: 1, serverName: "s", maxFrameSize: UInt32(configuration.maxFrameSize),
            initialStreamWindow: UInt32(configuration.initialStreamWindow), initialConnectionWindow: UInt32(configuration.initialConnectionWindow),
            maxConcurrentStreams: UInt32(configuration.maxConcurrentStreams), idleTimeoutMs: UInt32(configuration.idleTimeout * 1000)).encoded())
    }

    /// A server past the handshake (its WELCOME taken).
    private func openServer(hello helloMessage: Wire.Hello = Wire.Hello(protocolVersion: 1, token: "t"), _ configure: (inout Machine.Configuration) -> Void = { _ in }) throws -> Machine {
        var machine = server(configure)
        machine.receive(bytes(hello(helloMessage)))
        XCTAssertEqual(machine.nextEvent(now: 0), .hello(helloMessage))
        try machine.accept(Wire.Welcome(serverName: "s"))
        XCTAssertNil(machine.nextEvent(now: 0))
        XCTAssertEqual(machine.takeOutbound(), bytes(welcomeFrame(machine.configuration)))
        return machine
    }

    /// Asserts that `input` makes an open server send GOAWAY `expected` and close.
    private func assertViolation(
        _ input: [UInt8], _ expected: Frame, before setup: [UInt8] = [], file: StaticString = #filePath, line: UInt = #line
    ) throws {
        var machine = try openServer()
        _ = feed(&machine, setup)
        _ = machine.takeOutbound()
        let events = feed(&machine, input)
        guard case .closed(let error?) = events.last else {
            return XCTFail("no close: \(events)", file: file, line: line)
        }
        XCTAssertEqual(Wire.Status(error), try Wire.GoAway(decoding: expected.payload).status, file: file, line: line)
        XCTAssertEqual(machine.takeOutbound(), expected.encoded, file: file, line: line)
        XCTAssertTrue(machine.isClosed, file: file, line: line)
        XCTAssertNil(machine.nextDeadline, file: file, line: line)
    }

    // MARK: Handshake

    func testServerHandshakeAnswersHelloWithWelcome() throws {
        var machine = server { $0.maxFrameSize = 256 << 10; $0.initialStreamWindow = 512 << 10; $0.idleTimeout = 30 }
        XCTAssertEqual(machine.nextDeadline, 10 * second)
        let helloMessage = Wire.Hello(protocolVersion: 1, token: "secret", clientName: "me")
        machine.receive(bytes(hello(helloMessage)))
        XCTAssertEqual(machine.nextEvent(now: 5), .hello(helloMessage))
        // Nothing more is decoded until the HELLO is answered.
        XCTAssertNil(machine.nextEvent(now: 5))
        XCTAssertFalse(machine.hasOutbound)
        try machine.accept(Wire.Welcome(serverName: "s", maxFrameSize: 1))
        XCTAssertEqual(machine.takeOutbound(), bytes(welcomeFrame(machine.configuration)))
        XCTAssertTrue(machine.isOpen)
        XCTAssertEqual(machine.nextDeadline, 5 + 30 * second)
    }

    func testClientHandshakeSendsHelloAndTakesWelcome() throws {
        var machine = Machine(configuration: .init(role: .client, maxFrameSize: 128 << 10, initialStreamWindow: 128 << 10, initialConnectionWindow: 192 << 10), now: 0)
        machine.start(token: "tok", clientName: "cli")
        XCTAssertEqual(machine.takeOutbound(), bytes(hello(Wire.Hello(
            protocolVersion: 1, token: "tok", clientName: "cli", maxFrameSize: 128 << 10, initialStreamWindow: 128 << 10, initialConnectionWindow: 192 << 10))))
        // The WELCOME is awaited until the handshake timeout (10 s by default).
        XCTAssertEqual(machine.nextDeadline, 10 * second)
        XCTAssertThrowsError(try machine.openStream(Wire.CallStart(method: "/m"), endStream: true, now: 0))
        let welcome = Wire.Welcome(protocolVersion: 1, serverName: "s", idleTimeoutMs: 4000)
        XCTAssertEqual(feed(&machine, bytes(Frame(.welcome, payload: welcome.encoded())), now: 7), [.welcome(welcome)])
        XCTAssertEqual(machine.peerMaxFrameSize, 1 << 20)
        // Keepalive looks every quarter of the idle timeout.
        XCTAssertEqual(machine.nextDeadline, 7 + 1000 * millisecond)
    }

    func testHandshakeViolationsAreAnsweredWithGoAway() throws {
        let cases: [([UInt8], Frame)] = [
            (bytes(call(1)), goAway(last: 0, .invalidArgument, "the first frame must be HELLO on stream 0, got CALL on stream 1", violation: true)),
            (bytes(Frame(.hello, stream: 3, payload: [])), goAway(last: 0, .invalidArgument, "the first frame must be HELLO on stream 0, got HELLO on stream 3", violation: true)),
            (bytes(hello(Wire.Hello(protocolVersion: 2))), goAway(last: 0, .failedPrecondition, "protocol version 2 is not supported; this server speaks version 1")),
            (bytes(Frame(.hello, payload: [UInt8](repeating: 0, count: 70_000))),
             goAway(last: 0, .resourceExhausted, "HELLO frame of 70000 bytes exceeds the maximum frame size of 65536 bytes", violation: true)),
        ]
        for (input, expected) in cases {
            var machine = server()
            let events = feed(&machine, input)
            XCTAssertEqual(events.count, 1)
            XCTAssertEqual(machine.takeOutbound(), expected.encoded, "\(expected)")
            XCTAssertTrue(machine.isClosed)
        }
    }

    /// A frame size above the default windows (`photolibd serve --max-frame-size 16777216`)
    /// raises the windows announced in WELCOME and HELLO to it: a client refuses a WELCOME whose
    /// window is below its frame size (docs/PROTOCOL.md 4.3), and a message the frame size
    /// allows must fit a fresh stream's window.
    func testWindowsAreRaisedToTheFrameSize() throws {
        var machine = server { $0.maxFrameSize = 16 << 20 }
        machine.receive(bytes(hello()))
        _ = machine.nextEvent(now: 0)
        try machine.accept(Wire.Welcome(serverName: "s"))
        var decoder = FrameDecoder(maxPayloadSize: 1 << 20)
        decoder.append(machine.takeOutbound())
        let welcome = try Wire.Welcome(decoding: try XCTUnwrap(try decoder.next()).payload)
        XCTAssertEqual(welcome.maxFrameSize, 16 << 20)
        XCTAssertEqual(welcome.initialStreamWindow, 16 << 20)
        XCTAssertEqual(welcome.initialConnectionWindow, 16 << 20)

        var client = Machine(configuration: .init(role: .client, maxFrameSize: 2 << 20, initialStreamWindow: 1 << 20, initialConnectionWindow: 8 << 20), now: 0)
        var serverSide = server()
        client.start(token: "t", clientName: "c")
        serverSide.receive(client.takeOutbound())
        guard case .hello(let helloMessage)? = serverSide.nextEvent(now: 0) else { return XCTFail("no HELLO") }
        XCTAssertEqual(helloMessage.initialStreamWindow, 2 << 20)
        XCTAssertEqual(helloMessage.initialConnectionWindow, 8 << 20, "a window above the frame size stays")
        XCTAssertNoThrow(try serverSide.accept(Wire.Welcome(serverName: "s")), "the server refused the client's HELLO")
        let events = feed(&client, serverSide.takeOutbound())
        guard case .welcome? = events.first else { return XCTFail("the client refused the WELCOME: \(events)") }
    }

    func testHelloWithWindowsBelowItsFrameSizeIsRefusedByAccept() {
        var machine = server()
        let helloMessage = Wire.Hello(protocolVersion: 1, maxFrameSize: 256 << 10, initialStreamWindow: 128 << 10)
        XCTAssertEqual(feed(&machine, bytes(hello(helloMessage))), [.hello(helloMessage)])
        XCTAssertThrowsError(try machine.accept(Wire.Welcome()))
        XCTAssertEqual(machine.takeOutbound(), goAway(
            last: 0, .invalidArgument,
            "Hello.initial_stream_window 131072 must be at least the maximum frame size (262144) and at most 2^31−1 (0 means the default)",
            violation: true).encoded)
        XCTAssertTrue(machine.isClosed)
    }

    func testDriverRefusesHelloWithFail() {
        var machine = server()
        _ = feed(&machine, bytes(hello()))
        machine.fail(PhotoLibError(.unauthenticated, "wrong token"))
        XCTAssertEqual(machine.takeOutbound(), goAway(last: 0, .unauthenticated, "wrong token").encoded)
        XCTAssertTrue(machine.isClosed)
    }

    func testHandshakeDeadline() {
        var machine = server { $0.handshakeTimeout = 2 }
        // Bytes of a HELLO that never completes do not help.
        XCTAssertEqual(feed(&machine, Array(bytes(hello()).prefix(5)), now: second), [])
        XCTAssertEqual(machine.tick(now: 2 * second), [])
        let error = PhotoLibError(.deadlineExceeded, "no HELLO within 2.0 s of connecting")
        XCTAssertEqual(machine.tick(now: 2 * second + 1), [.closed(error)])
        XCTAssertEqual(machine.takeOutbound(), goAway(last: 0, .deadlineExceeded, "no HELLO within 2.0 s of connecting").encoded)
        XCTAssertTrue(machine.isClosed)
    }

    // MARK: Calls

    func testUnaryCall() throws {
        var machine = try openServer()
        let request: [UInt8] = [0x0A, 0x01, 0x41]
        XCTAssertEqual(feed(&machine, bytes(call(1), message(1, request, endStream: true))), [
            .callOpened(stream: 1, call: Wire.CallStart(method: "/photolib.v1.PhotoLibrary/Ping"), endStream: false),
            .message(stream: 1, payload: request, endStream: true),
        ])
        XCTAssertFalse(machine.hasOutbound)
        // The handler consumed the request: connection credit only (the request side ended).
        machine.consumed(3, stream: 1)
        XCTAssertEqual(machine.takeOutbound(), bytes(windowUpdate(0, 3)))
        XCTAssertEqual(machine.send([1, 2], stream: 1), .sent)
        XCTAssertTrue(machine.finish(stream: 1, status: .ok))
        XCTAssertEqual(machine.takeOutbound(), bytes(message(1, [1, 2]), status(1, .ok)))
        XCTAssertFalse(machine.finish(stream: 1, status: .ok))
        XCTAssertEqual(machine.send([3], stream: 1), .notOpen)
    }

    func testUnconsumedRequestCreditReturnsWhenTheCallEnds() throws {
        var machine = try openServer()
        _ = feed(&machine, bytes(call(1), message(1, [1, 2, 3, 4])))
        machine.finish(stream: 1, status: Wire.Status(code: .invalidArgument, message: "no"))
        XCTAssertEqual(machine.takeOutbound(), bytes(windowUpdate(0, 4), status(1, Wire.Status(code: .invalidArgument, message: "no"))))
        // A request crossing the STATUS: dropped, its credit returned in one update per read.
        XCTAssertEqual(feed(&machine, bytes(message(1, [9, 9]), message(1, [9]))), [])
        XCTAssertEqual(machine.takeOutbound(), bytes(windowUpdate(0, 3)))
    }

    func testStreamingRequestCreditGoesBackOnBothWindows() throws {
        var machine = try openServer()
        _ = feed(&machine, bytes(call(1), message(1, [1, 2, 3])))
        machine.consumed(3, stream: 1)
        XCTAssertEqual(machine.takeOutbound(), bytes(windowUpdate(0, 3), windowUpdate(1, 3)))
        _ = feed(&machine, bytes(message(1, [1, 2]), message(1, [3])))
        machine.release(2, stream: 1)
        XCTAssertEqual(machine.takeOutbound(), bytes(windowUpdate(0, 2)))
    }

    /// docs/PROTOCOL.md 9.5, step by step.
    func testServerStreamingStallsAndResumesWithWindowUpdates() throws {
        var machine = try openServer(hello: Wire.Hello(protocolVersion: 1, maxFrameSize: 131_072, initialStreamWindow: 131_072, initialConnectionWindow: 196_608))
        _ = feed(&machine, bytes(call(1, endStream: true), call(3, endStream: true)))
        let start = [UInt8](repeating: 1, count: 25), chunk = [UInt8](repeating: 2, count: 65_544), big = [UInt8](repeating: 3, count: 65_548)
        XCTAssertEqual(machine.send(start, stream: 1), .sent)
        XCTAssertEqual(machine.send(chunk, stream: 1), .sent)
        XCTAssertEqual(machine.send(start, stream: 3), .sent)
        XCTAssertEqual(machine.send(chunk, stream: 3), .sent)
        XCTAssertEqual(machine.takeOutbound(), bytes(message(1, start), message(1, chunk), message(3, start), message(3, chunk)))
        // Step 5: both windows too small.
        XCTAssertEqual(machine.send(big, stream: 1), .blockedOnStream)
        XCTAssertFalse(machine.canSend(big.count, stream: 1))
        // Step 6: the client consumed message 2.
        XCTAssertEqual(feed(&machine, bytes(windowUpdate(1, 65_544))), [.windowOpened(stream: 1)])
        XCTAssertEqual(machine.send(big, stream: 1), .blockedOnConnection)
        XCTAssertEqual(feed(&machine, bytes(windowUpdate(0, 65_544))), [.windowOpened(stream: 1)])
        XCTAssertEqual(machine.send(big, stream: 1), .sent)
        // Step 8: stream 3 waits for both.
        XCTAssertEqual(machine.send(big, stream: 3), .blockedOnStream)
        _ = feed(&machine, bytes(windowUpdate(1, 25), windowUpdate(3, 25), windowUpdate(0, 50)))
        XCTAssertEqual(machine.send(big, stream: 3), .blockedOnStream)
        XCTAssertEqual(feed(&machine, bytes(windowUpdate(3, 65_544))), [.windowOpened(stream: 3)])
        XCTAssertEqual(machine.send(big, stream: 3), .blockedOnConnection)
        XCTAssertEqual(feed(&machine, bytes(windowUpdate(0, 65_544))), [.windowOpened(stream: 3)])
        XCTAssertEqual(machine.send(big, stream: 3), .sent)
        XCTAssertEqual(machine.takeOutbound(), bytes(message(1, big), message(3, big)))
    }

    /// A message whose last bytes the driver writes itself (a file sent with `sendfile`): the
    /// header announces the whole payload, only the header and the first bytes are written,
    /// and both windows are charged for all of it, exactly like the same message sent whole.
    func testServerSendsAMessageWhoseBodyTheDriverWrites() throws {
        var machine = try openServer(hello: Wire.Hello(protocolVersion: 1, maxFrameSize: 131_072, initialStreamWindow: 131_072, initialConnectionWindow: 196_608))
        _ = feed(&machine, bytes(call(1, endStream: true)))
        let prefix: [UInt8] = [0x18, 0x80, 0x80, 0x04, 0x12, 0x80, 0x80, 0x04], body = [UInt8](repeating: 7, count: 65_536)
        XCTAssertEqual(machine.send(prefix: prefix, bodyCount: body.count, stream: 1), .sent)
        let whole = message(1, prefix + body).encoded
        XCTAssertEqual(machine.takeOutbound(), Array(whole.prefix(Frame.headerSize + prefix.count)))
        // 131,072 − 65,544 = 65,528 left in the stream window: another 65,544 bytes do not fit,
        // whether sent whole or with a body, and 65,528 do.
        XCTAssertEqual(machine.send(prefix: prefix, bodyCount: body.count, stream: 1), .blockedOnStream)
        XCTAssertFalse(machine.canSend(prefix.count + body.count, stream: 1))
        XCTAssertEqual(machine.send(prefix: prefix, bodyCount: 65_520, stream: 1), .sent)
        XCTAssertEqual(machine.send(prefix: [], bodyCount: 1, stream: 1), .blockedOnStream)
        // The connection window (196,608 − 131,072 = 65,536 left) holds the next one back.
        XCTAssertEqual(feed(&machine, bytes(windowUpdate(1, 131_072))), [.windowOpened(stream: 1)])
        XCTAssertEqual(machine.send(prefix: prefix, bodyCount: 65_529, stream: 1), .blockedOnConnection)
        XCTAssertEqual(machine.send(prefix: prefix, bodyCount: 65_528, stream: 1), .sent)
        // Not on a call that is not open, and never for a client.
        XCTAssertEqual(machine.send(prefix: prefix, bodyCount: 1, stream: 3), .notOpen)
        var client = try openClient()
        XCTAssertEqual(client.send(prefix: [], bodyCount: 1, stream: 1), .notOpen)
    }

    func testServerUsesAtMostItsShareOfAHugeWindow() throws {
        var machine = try openServer(hello: Wire.Hello(protocolVersion: 1, initialStreamWindow: UInt32(Int32.max))) {
            $0.maxSendStreamWindow = 2 << 20
        }
        _ = feed(&machine, bytes(call(1, endStream: true)))
        let megabyte = [UInt8](repeating: 0, count: 1 << 20)
        XCTAssertEqual(machine.send(megabyte, stream: 1), .sent)
        XCTAssertEqual(machine.send(megabyte, stream: 1), .sent)
        XCTAssertEqual(machine.send([0], stream: 1), .blockedOnStream)
        // The client's own accounting still decides what is a violation.
        try assertViolation(
            bytes(windowUpdate(1, 1)),
            goAway(last: 1, .invalidArgument, "flow control: WINDOW_UPDATE of 1 is 0 or takes the window past 2^31−1", violation: true),
            before: bytes(call(1, endStream: true), windowUpdate(1, UInt32(Int32.max) - (1 << 20))))
    }

    func testServerShareIsAtLeastTwoOfTheClientsLargestMessages() throws {
        // Configured below the client's 256 KiB frames: raised to two of them.
        var machine = try openServer(hello: Wire.Hello(protocolVersion: 1, maxFrameSize: 256 << 10, initialStreamWindow: UInt32(Int32.max))) {
            $0.maxSendStreamWindow = 128 << 10
        }
        _ = feed(&machine, bytes(call(1, endStream: true)))
        let message = [UInt8](repeating: 0, count: 256 << 10)
        XCTAssertEqual(machine.send(message, stream: 1), .sent)
        XCTAssertEqual(machine.send(message, stream: 1), .sent)
        XCTAssertEqual(machine.send([0], stream: 1), .blockedOnStream)
    }

    func testCancelEndsTheCallAndLateFramesAreIgnored() throws {
        var machine = try openServer()
        _ = feed(&machine, bytes(call(1), message(1, [1, 2, 3])))
        XCTAssertEqual(feed(&machine, bytes(Frame(.cancel, stream: 1, payload: Wire.Cancel(reason: "scrolled").encoded()))), [
            .cancelled(stream: 1, reason: "scrolled")
        ])
        // The cancelled call's unconsumed request bytes went back to the connection.
        XCTAssertEqual(machine.takeOutbound(), bytes(windowUpdate(0, 3)))
        XCTAssertEqual(machine.send([1], stream: 1), .notOpen)
        // CANCEL and WINDOW_UPDATE for an ended call are races, not errors.
        XCTAssertEqual(feed(&machine, bytes(Frame(.cancel, stream: 1), windowUpdate(1, 5))), [])
        XCTAssertFalse(machine.hasOutbound)
        XCTAssertFalse(machine.isClosed)
    }

    func testCallsBeyondTheConcurrencyLimitAndUndecodableCallsFailAlone() throws {
        var machine = try openServer { $0.maxConcurrentStreams = 1 }
        XCTAssertEqual(feed(&machine, bytes(call(1), call(3), Frame(.call, stream: 5, payload: [0xFF]))).count, 1)
        let outbound = machine.takeOutbound()
        XCTAssertEqual(Array(outbound.prefix(bytes(status(3, Wire.Status(code: .resourceExhausted, message: "more than 1 concurrent calls on one connection"))).count)),
                       bytes(status(3, Wire.Status(code: .resourceExhausted, message: "more than 1 concurrent calls on one connection"))))
        var decoder = FrameDecoder(maxPayloadSize: 1 << 20)
        decoder.append(outbound)
        _ = try decoder.next()
        let refusal = try XCTUnwrap(decoder.next())
        XCTAssertEqual(refusal.type, .status)
        XCTAssertEqual(refusal.streamID, 5)
        // The undecodable CALL fails alone with the decoding error.
        XCTAssertNotEqual(try Wire.Status(decoding: refusal.payload).code, .ok)
        XCTAssertFalse(machine.isClosed)
    }

    func testCallDeadline() throws {
        var machine = try openServer()
        _ = feed(&machine, bytes(call(1, timeoutMs: 250, endStream: true)), now: second)
        XCTAssertEqual(machine.nextDeadline, second + 250 * millisecond)
        XCTAssertEqual(machine.tick(now: second + 249 * millisecond), [])
        XCTAssertEqual(machine.tick(now: second + 250 * millisecond), [.deadlineExceeded(stream: 1)])
        // Reported once; the driver ends the call.
        XCTAssertEqual(machine.tick(now: second + 300 * millisecond), [])
        machine.finish(stream: 1, status: Wire.Status(code: .deadlineExceeded, message: "late"))
        XCTAssertEqual(machine.takeOutbound(), bytes(status(1, Wire.Status(code: .deadlineExceeded, message: "late"))))
    }

    /// Calls with deadlines that end in any order: the next deadline is always the earliest of
    /// the calls still open, and the idle timeout's once none is.
    func testNextDeadlineIsTheEarliestOfTheOpenCalls() throws {
        var machine = try openServer { $0.idleTimeout = 30 }
        _ = feed(&machine, bytes(
            call(1, timeoutMs: 200, endStream: true), call(3, timeoutMs: 100, endStream: true),
            call(5, timeoutMs: 100, endStream: true), call(7, timeoutMs: 300, endStream: true)))
        XCTAssertEqual(machine.nextDeadline, 100 * millisecond)
        machine.finish(stream: 7, status: .ok)
        XCTAssertEqual(machine.nextDeadline, 100 * millisecond, "a later call ended")
        machine.finish(stream: 3, status: .ok)
        XCTAssertEqual(machine.nextDeadline, 100 * millisecond, "another call has the same deadline")
        machine.finish(stream: 5, status: .ok)
        XCTAssertEqual(machine.nextDeadline, 200 * millisecond)
        _ = feed(&machine, bytes(call(9, timeoutMs: 50, endStream: true)), now: 100 * millisecond)
        XCTAssertEqual(machine.nextDeadline, 150 * millisecond, "a new call's deadline is earlier")
        let cancel = Frame(.cancel, stream: 9, payload: Wire.Cancel(reason: "no").encoded())
        XCTAssertEqual(feed(&machine, bytes(cancel), now: 120 * millisecond), [.cancelled(stream: 9, reason: "no")])
        XCTAssertEqual(machine.nextDeadline, 200 * millisecond)
        machine.finish(stream: 1, status: .ok)
        XCTAssertEqual(machine.nextDeadline, 120 * millisecond + 30 * second, "the idle timeout, from the last frame")
        XCTAssertTrue(machine.hasOutbound, "the STATUS frames")
        _ = machine.takeOutbound()
        XCTAssertFalse(machine.hasOutbound)
    }

    // MARK: Protocol violations

    func testEveryViolationIsAnsweredWithGoAway() throws {
        func invalid(_ message: String, last: UInt32 = 0) -> Frame { goAway(last: last, .invalidArgument, message, violation: true) }
        var unknownType = bytes(ping(1))
        unknownType[4] = 42
        var reservedBit = bytes(windowUpdate(1, 1))
        reservedBit[6] |= 0x80
        try assertViolation(unknownType, invalid("unknown frame type 42 (known types are 1…9, see docs/PROTOCOL.md)"))
        try assertViolation(reservedBit, invalid("stream id 2147483649 has the reserved top bit set"))
        try assertViolation(
            bytes(message(1, [UInt8](repeating: 0, count: (1 << 20) + 1))),
            goAway(last: 0, .resourceExhausted, "MESSAGE frame of 1048577 bytes exceeds the maximum frame size of 1048576 bytes", violation: true))
        try assertViolation(bytes(call(0)), invalid("CALL on stream 0: stream 0 is for HELLO, WELCOME, PING and GOAWAY; a call opens on a new stream id from 1 up"))
        try assertViolation(bytes(call(3)), invalid("CALL on stream 3 does not exceed the highest stream id used so far (5)", last: 5), before: bytes(call(5)))
        try assertViolation(bytes(message(0, [1])), invalid("MESSAGE on stream 0"))
        try assertViolation(bytes(message(7, [1])), invalid("MESSAGE on stream 7, which no CALL opened", last: 1), before: bytes(call(1)))
        try assertViolation(bytes(message(1, [2])), invalid("MESSAGE on stream 1 after END_STREAM", last: 1), before: bytes(call(1), message(1, [1], endStream: true)))
        try assertViolation(bytes(message(1, [2])), invalid("MESSAGE on stream 1 after END_STREAM", last: 1), before: bytes(call(1, endStream: true)))
        try assertViolation(bytes(hello()), invalid("a client may not send HELLO after the handshake"))
        try assertViolation(bytes(status(1, .ok)), invalid("a client may not send STATUS after the handshake"))
        try assertViolation(bytes(Frame(.ping, stream: 3, payload: [])), invalid("PING must be sent on stream 0"))
        try assertViolation(bytes(Frame(.cancel, payload: [])), invalid("CANCEL on stream 0"))
        try assertViolation(bytes(Frame(.goAway, stream: 5, payload: [])), invalid("GOAWAY must be sent on stream 0"))
        try assertViolation(bytes(windowUpdate(0, 0)), invalid("flow control: WINDOW_UPDATE of 0 is 0 or takes the window past 2^31−1"))
        try assertViolation(
            bytes(windowUpdate(0, UInt32(Int32.max))),
            invalid("flow control: WINDOW_UPDATE of 2147483647 is 0 or takes the window past 2^31−1"))
        try assertViolation(bytes(windowUpdate(1, 0)), invalid("flow control: WINDOW_UPDATE of 0 is 0 or takes the window past 2^31−1", last: 1), before: bytes(call(1)))
        try assertViolation(
            bytes(message(1, [UInt8](repeating: 0, count: 1 << 20))),
            goAway(last: 1, .resourceExhausted, "flow control: a 1048576-byte message exceeds the 1048575 bytes of credit left", violation: true),
            before: bytes(call(1), message(1, [0])))
        // A control frame whose payload does not decode is a violation like the others (it
        // had no reason before).
        try assertViolation(
            bytes(Frame(.windowUpdate, payload: [0xFF])),
            invalid("\(try decodingError { () throws(PhotoLibError) in _ = try Wire.WindowUpdate(decoding: [0xFF]) })"))
        try assertViolation(
            bytes(Frame(.ping, payload: [0xFF])),
            invalid("\(try decodingError { () throws(PhotoLibError) in _ = try Wire.Ping(decoding: [0xFF]) })"))
        try assertViolation(
            bytes(Frame(.cancel, stream: 1, payload: [0xFF])),
            invalid("\(try decodingError { () throws(PhotoLibError) in _ = try Wire.Cancel(decoding: [0xFF]) })", last: 1),
            before: bytes(call(1)))
        XCTAssertTrue(try decodingError { () throws(PhotoLibError) in _ = try Wire.Ping(decoding: [0xFF]) }.hasPrefix("malformed"), "docs/PROTOCOL.md 8.4")
        // A CANCEL whose reason is not UTF-8 decodes with a reason of its own, which it keeps.
        try assertViolation(
            bytes(Frame(.cancel, stream: 1, payload: [0x0A, 0x01, 0xFF])),
            Frame(.goAway, payload: Wire.GoAway(lastStreamID: 1, status: Wire.Status(code: .invalidArgument, message: try decodingError { () throws(PhotoLibError) in
                _ = try Wire.Cancel(decoding: [0x0A, 0x01, 0xFF])
            }, reason: .init(ErrorReason.invalidText))).encoded()),
            before: bytes(call(1)))
    }

    /// The message of the error `decode` throws (it must throw).
    private func decodingError(_ decode: () throws(PhotoLibError) -> Void) throws -> String {
        do {
            try decode()
        } catch {
            return error.message
        }
        throw PhotoLibError(.internalError, "[0xFF] decoded: this test needs a payload that does not decode")
    }

    func testConnectionWindowOverrunIsAViolation() throws {
        var machine = try openServer(hello: Wire.Hello(protocolVersion: 1)) {
            $0.maxFrameSize = 128 << 10
            $0.initialStreamWindow = 128 << 10
            $0.initialConnectionWindow = 128 << 10
        }
        let chunk = [UInt8](repeating: 0, count: 100_000)
        _ = feed(&machine, bytes(call(1), call(3), message(1, chunk)))
        _ = machine.takeOutbound()
        XCTAssertEqual(feed(&machine, bytes(message(3, chunk))).last, .closed(PhotoLibError(
            .resourceExhausted, "flow control: a 100000-byte message exceeds the 31072 bytes of credit left", reason: .protocolViolation)))
        XCTAssertEqual(machine.takeOutbound(), goAway(last: 3, .resourceExhausted, "flow control: a 100000-byte message exceeds the 31072 bytes of credit left", violation: true).encoded)
    }

    func testFramesSplitByteByByte() throws {
        var machine = try openServer()
        let input = bytes(call(1), message(1, [7, 8, 9], endStream: true), ping(42))
        var events: [Event] = []
        for (index, byte) in input.enumerated() {
            machine.receive([byte])
            while let event = machine.nextEvent(now: UInt64(index)) { events.append(event) }
        }
        XCTAssertEqual(events, [
            .callOpened(stream: 1, call: Wire.CallStart(method: "/photolib.v1.PhotoLibrary/Ping"), endStream: false),
            .message(stream: 1, payload: [7, 8, 9], endStream: true),
        ])
        XCTAssertEqual(machine.takeOutbound(), bytes(ping(42, ack: true)))
    }

    // MARK: PING

    func testPingsAreAnsweredDeferredAndDropped() throws {
        var machine = try openServer { $0.controlFrameInterval = 0.1 }
        XCTAssertEqual(feed(&machine, bytes(ping(1)), now: second), [])
        XCTAssertEqual(machine.takeOutbound(), bytes(ping(1, ack: true)))
        // Too soon: the next waits one interval; four may wait, more are dropped.
        _ = feed(&machine, bytes(ping(2), ping(3), ping(4), ping(5), ping(6)), now: second + 10 * millisecond)
        XCTAssertFalse(machine.hasOutbound)
        XCTAssertEqual(machine.nextDeadline, second + 100 * millisecond)
        XCTAssertEqual(machine.tick(now: second + 100 * millisecond), [])
        XCTAssertEqual(machine.takeOutbound(), bytes(ping(2, ack: true)))
        XCTAssertEqual(machine.tick(now: second + 400 * millisecond), [])
        XCTAssertEqual(machine.takeOutbound(), bytes(ping(3, ack: true), ping(4, ack: true), ping(5, ack: true)))
        // An ACK is never answered.
        XCTAssertEqual(feed(&machine, bytes(ping(9, ack: true)), now: 2 * second), [.pingAcknowledged(opaque: 9)])
        XCTAssertFalse(machine.hasOutbound)
    }

    func testPingFloodClosesTheConnection() throws {
        var machine = try openServer { $0.maxUnansweredControlFrames = 3 }
        var flood: [UInt8] = []
        for opaque in 0..<6 { ping(UInt64(opaque)).encode(into: &flood) }
        let events = feed(&machine, flood, now: second)
        let message = "more than 3 PINGs within 0.1 s: the server answers one PING per 0.1 s; send PINGs at most that often"
        XCTAssertEqual(events, [.closed(PhotoLibError(.resourceExhausted, message, reason: .protocolViolation))])
        XCTAssertEqual(machine.takeOutbound(), bytes(ping(0, ack: true), goAway(last: 0, .resourceExhausted, message, violation: true)))
    }

    // MARK: Idle and going away

    func testIdleTimeoutClosesWithGoAway() throws {
        var machine = try openServer { $0.idleTimeout = 1 }
        _ = feed(&machine, bytes(ping(1)), now: 500 * millisecond)
        _ = machine.takeOutbound()
        XCTAssertEqual(machine.nextDeadline, 1500 * millisecond)
        XCTAssertEqual(machine.tick(now: 1500 * millisecond), [])
        let error = PhotoLibError(.unavailable, "idle for more than 1.0 s")
        XCTAssertEqual(machine.tick(now: 1500 * millisecond + 1), [.closed(error)])
        XCTAssertEqual(machine.takeOutbound(), goAway(last: 0, .unavailable, "idle for more than 1.0 s").encoded)
    }

    func testACallInProgressKeepsTheConnectionButAnOpenUploadDoesNot() throws {
        var machine = try openServer { $0.idleTimeout = 1 }
        _ = feed(&machine, bytes(call(1, endStream: true), call(3)), now: 0)
        XCTAssertEqual(machine.tick(now: 2 * second), [])
        XCTAssertFalse(machine.hasOutbound)
        XCTAssertEqual(machine.nextDeadline, 3 * second)
        machine.finish(stream: 1, status: .ok)
        _ = machine.takeOutbound()
        // Only stream 3 is left, whose client has not ended its requests.
        XCTAssertEqual(machine.tick(now: 3 * second).count, 1)
        XCTAssertEqual(machine.takeOutbound(), goAway(last: 3, .unavailable, "idle for more than 1.0 s").encoded)
    }

    func testGracefulGoAwayDrainsRunningCalls() throws {
        var machine = try openServer()
        _ = feed(&machine, bytes(call(1, endStream: true)))
        machine.goAway(Wire.Status(code: .unavailable, message: "server shutting down"))
        XCTAssertEqual(machine.takeOutbound(), goAway(last: 1, .unavailable, "server shutting down").encoded)
        XCTAssertTrue(machine.isDraining)
        // A CALL that crossed the GOAWAY is refused alone.
        XCTAssertEqual(feed(&machine, bytes(call(3, endStream: true))), [])
        XCTAssertEqual(machine.takeOutbound(), bytes(status(3, Wire.Status(code: .unavailable, message: "the server is shutting down; reconnect later"))))
        XCTAssertEqual(machine.send([1], stream: 1), .sent)
        machine.finish(stream: 1, status: .ok)
        XCTAssertEqual(machine.takeOutbound(), bytes(message(1, [1]), status(1, .ok)))
        XCTAssertTrue(machine.isClosed)
    }

    func testClientGoAwayEndsRunningCallsAsCancelledAndCloses() throws {
        var machine = try openServer()
        _ = feed(&machine, bytes(call(1, endStream: true), call(3, endStream: true)))
        _ = machine.takeOutbound()
        let bye = Wire.GoAway(status: Wire.Status(code: .ok, message: "client closing"))
        XCTAssertEqual(feed(&machine, bytes(Frame(.goAway, payload: bye.encoded()))), [.goAway(bye, abandoned: [1, 3])])
        XCTAssertTrue(machine.isClosed, "section 11.3: the server closes; running calls end as if cancelled")
        // Nothing more goes out for the abandoned calls: no STATUS, as after CANCEL.
        machine.finish(stream: 1, status: .ok)
        XCTAssertEqual(machine.takeOutbound(), [])
    }

    func testClientGoAwayWithNoCallsClosesAtOnce() throws {
        var machine = try openServer()
        let bye = Wire.GoAway(status: Wire.Status(code: .ok, message: "client closing"))
        XCTAssertEqual(feed(&machine, bytes(Frame(.goAway, payload: bye.encoded()))), [.goAway(bye, abandoned: [])])
        XCTAssertTrue(machine.isClosed)
    }

    func testRefusalIsAGoAwayOnStreamZero() {
        XCTAssertEqual(
            Machine.refusal(PhotoLibError(.resourceExhausted, "too many")),
            goAway(last: 0, .resourceExhausted, "too many").encoded)
    }

    // MARK: Client role

    private func openClient() throws -> Machine {
        var machine = Machine(configuration: .init(role: .client, initialStreamWindow: 1 << 20, initialConnectionWindow: 2 << 20), now: 0)
        machine.start(token: "", clientName: "c")
        _ = machine.takeOutbound()
        _ = feed(&machine, bytes(Frame(.welcome, payload: Wire.Welcome(protocolVersion: 1, idleTimeoutMs: 4000).encoded())))
        return machine
    }

    func testClientCallWithResponsesStatusAndCredit() throws {
        var machine = try openClient()
        let id = try machine.openStream(Wire.CallStart(method: "/m"), endStream: false, now: 0)
        XCTAssertEqual(id, 1)
        XCTAssertEqual(machine.send([5], stream: id, endStream: true), .sent)
        XCTAssertEqual(machine.takeOutbound(), bytes(Frame(.call, stream: 1, payload: Wire.CallStart(method: "/m").encoded()), message(1, [5], endStream: true)))
        XCTAssertEqual(feed(&machine, bytes(message(1, [1, 2]), status(1, .ok))), [
            .message(stream: 1, payload: [1, 2], endStream: false), .status(stream: 1, .ok),
        ])
        // The call ended with two bytes unconsumed: they count as consumed for the connection,
        // whose credit is held back while its window still takes the largest message.
        XCTAssertFalse(machine.hasOutbound)
        XCTAssertEqual(try machine.openStream(Wire.CallStart(method: "/m"), endStream: true, now: 0), 3)
    }

    /// Responses received for borrowing: the events (and the credit written back) are those
    /// of copied bytes, with every MESSAGE whole in the bytes lent rather than copied; a
    /// response split across reads is copied, as it must outlive the first.
    func testClientLendsWholeResponsesFromBorrowedBytes() throws {
        var copying = try openClient()
        var lending = try openClient()
        for id in [1, 3] as [UInt32] {
            XCTAssertEqual(try copying.openStream(Wire.CallStart(method: "/m"), endStream: true, now: 0), id)
            XCTAssertEqual(try lending.openStream(Wire.CallStart(method: "/m"), endStream: true, now: 0), id)
        }
        XCTAssertEqual(copying.takeOutbound(), lending.takeOutbound())
        let large = [UInt8](repeating: 9, count: 600 << 10)
        let input = bytes(message(1, [1, 2]), message(3, Array(large.prefix(300 << 10))), message(1, []), status(1, .ok), message(3, large), status(3, .ok))
        // Cut inside the second 300 KiB message: its bytes must outlive the first read.
        let cut = input.count - (300 << 10)
        var expected = feed(&copying, Array(input[..<cut]))
        expected += feed(&copying, Array(input[cut...]))
        let first = feedBorrowing(&lending, Array(input[..<cut]))
        let second = feedBorrowing(&lending, Array(input[cut...]))
        XCTAssertEqual(first.events + second.events, expected)
        XCTAssertEqual(expected.count, 6)
        XCTAssertEqual(first.lent, 3, "the messages whole in the first read")
        XCTAssertEqual(second.lent, 0, "the one split across reads is copied")
        XCTAssertEqual(copying.takeOutbound(), lending.takeOutbound(), "the same credit goes back")
    }

    /// A server that stops at HELLO (until it is answered) keeps the frames behind it in
    /// borrowed bytes: they are copied before the driver lets go of the bytes, and decoded
    /// intact once the HELLO is answered.
    func testServerKeepsFramesBehindHelloFromBorrowedBytes() throws {
        var machine = server()
        let helloMessage = Wire.Hello(protocolVersion: 1, token: "t")
        var buffer = bytes(hello(helloMessage), call(1, endStream: false), message(1, [9, 8, 7], endStream: true))
        buffer.withUnsafeMutableBytes { raw in
            machine.receive(borrowing: UnsafeRawBufferPointer(raw))
            XCTAssertEqual(machine.nextEvent(now: 0), .hello(helloMessage))
            XCTAssertNil(machine.nextEvent(now: 0))
            raw.initializeMemory(as: UInt8.self, repeating: 0xEE)
        }
        try machine.accept(Wire.Welcome(serverName: "s"))
        XCTAssertEqual(feed(&machine, []), [
            .callOpened(stream: 1, call: Wire.CallStart(method: "/photolib.v1.PhotoLibrary/Ping"), endStream: false),
            .message(stream: 1, payload: [9, 8, 7], endStream: true),
        ])
    }

    func testClientReturnsCreditInQuarterWindowBatchesAndOnCancel() throws {
        // Messages of at most 512 KiB: a quarter of each window is below that, so it is the batch.
        var machine = Machine(configuration: .init(role: .client, maxFrameSize: 512 << 10, initialStreamWindow: 1 << 20, initialConnectionWindow: 2 << 20), now: 0)
        machine.start(token: "", clientName: "c")
        _ = feed(&machine, bytes(Frame(.welcome, payload: Wire.Welcome(protocolVersion: 1).encoded())))
        let id = try machine.openStream(Wire.CallStart(method: "/m"), endStream: true, now: 0)
        _ = machine.takeOutbound()
        let chunk = [UInt8](repeating: 1, count: 100_000)
        _ = feed(&machine, bytes(message(id, [1, 2, 3]), message(id, chunk), message(id, chunk), message(id, chunk), message(id, [4])))
        machine.consumed(3, stream: id)
        machine.consumed(100_000, stream: id)
        machine.consumed(100_000, stream: id)
        XCTAssertFalse(machine.hasOutbound)
        // A quarter of the stream window (256 KiB) gathered: it goes back; the connection's
        // quarter (512 KiB) has not.
        machine.consumed(100_000, stream: id)
        XCTAssertEqual(machine.takeOutbound(), bytes(windowUpdate(1, 300_003)))
        XCTAssertTrue(machine.cancel(stream: id, reason: "bye"))
        XCTAssertEqual(machine.takeOutbound(), bytes(Frame(.cancel, stream: 1, payload: Wire.Cancel(reason: "bye").encoded())))
        // Responses in flight after CANCEL are dropped (their credit counts as consumed); with
        // 300 KB more the connection's quarter is reached, at the end of the read.
        XCTAssertEqual(feed(&machine, bytes(message(id, chunk), message(id, chunk), message(id, chunk), status(id, .ok))), [])
        XCTAssertEqual(machine.takeOutbound(), bytes(windowUpdate(0, 600_004)))
    }

    /// A call that ends (STATUS) with responses never consumed gives their connection credit
    /// back through the client's own accounting: afterwards the server may again fill the whole
    /// connection window. (The STATUS path used to send the WINDOW_UPDATE without telling the
    /// client's window, which then shrank by every call's unconsumed bytes until a
    /// `bench busy` connection stalled.)
    func testClientCallEndingWithUnconsumedResponsesGivesTheWholeConnectionWindowBack() throws {
        var machine = Machine(configuration: .init(role: .client, maxFrameSize: 128 << 10, initialStreamWindow: 256 << 10, initialConnectionWindow: 256 << 10), now: 0)
        machine.start(token: "", clientName: "c")
        _ = feed(&machine, bytes(Frame(.welcome, payload: Wire.Welcome(protocolVersion: 1).encoded())))
        let chunk = [UInt8](repeating: 7, count: 128 << 10)
        for round in 0..<4 {
            let first = try machine.openStream(Wire.CallStart(method: "/m"), endStream: true, now: 0)
            _ = machine.takeOutbound()
            // Half the connection window arrives and is never consumed; the call ends.
            XCTAssertEqual(feed(&machine, bytes(message(first, chunk), status(first, .ok))).count, 2, "round \(round)")
            XCTAssertEqual(machine.takeOutbound(), bytes(windowUpdate(0, UInt32(128 << 10))), "round \(round): its connection credit goes back")
            // The next call may then receive the whole connection window before consuming.
            let second = try machine.openStream(Wire.CallStart(method: "/m"), endStream: true, now: 0)
            _ = machine.takeOutbound()
            let events = feed(&machine, bytes(message(second, chunk), message(second, chunk)))
            XCTAssertEqual(events.count, 2, "round \(round): both messages fit the window")
            XCTAssertFalse(machine.isClosed, "round \(round)")
            machine.consumed(256 << 10, stream: second)
            _ = feed(&machine, bytes(status(second, .ok)))
            _ = machine.takeOutbound()
        }
    }

    func testClientAnswersPingsAndRejectsServerOnlyViolations() throws {
        var machine = try openClient()
        XCTAssertEqual(feed(&machine, bytes(ping(77))), [])
        XCTAssertEqual(machine.takeOutbound(), bytes(ping(77, ack: true)))
        XCTAssertEqual(feed(&machine, bytes(call(1))).count, 1)
        XCTAssertEqual(machine.takeOutbound(), goAway(last: 0, .invalidArgument, "the server sent CALL, which only clients send", violation: true).encoded)
    }

    func testClientGoAwayFromServerAbandonsLaterCalls() throws {
        var machine = try openClient()
        _ = try machine.openStream(Wire.CallStart(method: "/m"), endStream: true, now: 0)
        _ = try machine.openStream(Wire.CallStart(method: "/m"), endStream: true, now: 0)
        _ = machine.takeOutbound()
        let away = Wire.GoAway(lastStreamID: 1, status: Wire.Status(code: .unavailable, message: "server shutting down"))
        XCTAssertEqual(feed(&machine, bytes(Frame(.goAway, payload: away.encoded()))), [.goAway(away, abandoned: [3])])
        XCTAssertThrowsError(try machine.openStream(Wire.CallStart(method: "/m"), endStream: true, now: 0))
        XCTAssertEqual(feed(&machine, bytes(status(1, .ok))), [.status(stream: 1, .ok)])
        XCTAssertTrue(machine.isClosed)
    }

    /// Calls with and without a deadline side by side: the next deadline is the earliest
    /// call's while one has a deadline (the keepalive's otherwise), each passed deadline is
    /// reported once, and a call that ended, was cancelled or already reported counts no more.
    func testClientCallDeadlinesAmongCallsWithout() throws {
        var machine = try openClient()
        let keepalive = machine.nextDeadline
        let plain = try machine.openStream(Wire.CallStart(method: "/m"), endStream: true, now: 0)
        XCTAssertEqual(machine.nextDeadline, keepalive, "no call has a deadline")
        let late = try machine.openStream(Wire.CallStart(method: "/m", timeoutMs: 300), endStream: true, now: 0)
        let soon = try machine.openStream(encodedCall: Wire.CallStart(method: "/m", timeoutMs: 200).encoded(), timeoutMs: 200, endStream: true, now: 0)
        let ended = try machine.openStream(Wire.CallStart(method: "/m", timeoutMs: 100), endStream: true, now: 0)
        XCTAssertEqual(machine.nextDeadline, 100 * millisecond)
        XCTAssertEqual(feed(&machine, bytes(status(ended, .ok))), [.status(stream: ended, .ok)])
        XCTAssertEqual(machine.nextDeadline, 200 * millisecond, "the ended call's deadline is gone")
        XCTAssertEqual(machine.tick(now: 200 * millisecond), [.deadlineExceeded(stream: soon)])
        XCTAssertEqual(machine.nextDeadline, 300 * millisecond, "a reported deadline is not reported again")
        XCTAssertTrue(machine.cancel(stream: late, reason: "gave up"))
        XCTAssertEqual(machine.nextDeadline, keepalive, "the cancelled call's deadline is gone")
        XCTAssertEqual(machine.tick(now: 300 * millisecond), [])
        XCTAssertTrue(machine.cancel(stream: soon, reason: "late"))
        XCTAssertTrue(machine.cancel(stream: plain, reason: "done"))
        let again = try machine.openStream(Wire.CallStart(method: "/m", timeoutMs: 50), endStream: true, now: 400 * millisecond)
        XCTAssertEqual(machine.nextDeadline, 450 * millisecond)
        XCTAssertEqual(machine.tick(now: 450 * millisecond), [.deadlineExceeded(stream: again)])
    }

    func testClientKeepaliveAfterTwoSilentLooks() throws {
        var machine = try openClient()
        XCTAssertEqual(machine.nextDeadline, 1000 * millisecond)
        // The HELLO was written since the last look: the first look is not silent.
        _ = machine.tick(now: 1000 * millisecond)
        _ = machine.tick(now: 2000 * millisecond)
        XCTAssertFalse(machine.hasOutbound)
        _ = machine.tick(now: 3000 * millisecond)
        XCTAssertEqual(machine.takeOutbound(), bytes(ping(3000 * millisecond)))
        XCTAssertEqual(machine.nextDeadline, 4000 * millisecond)
    }

    /// A server that accepts the connection but never answers HELLO (stopped, overloaded, or
    /// not photolibd): the client gives up at its handshake timeout instead of waiting for ever.
    func testClientGivesUpWhenNoWelcomeComes() {
        var machine = Machine(configuration: .init(role: .client, handshakeTimeout: 5), now: 0)
        machine.start(token: "x", clientName: "c")
        _ = machine.takeOutbound()
        XCTAssertEqual(machine.nextDeadline, 5 * second)
        XCTAssertEqual(machine.tick(now: 5 * second - 1), [])
        let events = machine.tick(now: 5 * second)
        guard case .closed(let error?) = events.last else { return XCTFail("not closed: \(events)") }
        XCTAssertEqual(error.code, .unavailable)
        XCTAssertTrue(error.message.contains("no WELCOME within 5 s"), error.message)
        XCTAssertTrue(machine.isClosed)
    }

    /// A call waits and nothing arrives for a look (a quarter of the server's idle timeout): a
    /// PING asks whether the server is there. Any frame within the keepalive timeout keeps the
    /// connection; none (a stopped server, a network gone quiet with the socket open) closes
    /// it with `UNAVAILABLE`, so a subscription or download cannot wait for ever.
    func testClientTakesAServerThatAnswersNoPingForLost() throws {
        var machine = try openClient()  // idle timeout 4 s: a look every second
        _ = try machine.openStream(Wire.CallStart(method: "/m"), endStream: true, now: 0)
        _ = machine.takeOutbound()
        XCTAssertEqual(machine.tick(now: 1 * second), [])
        XCTAssertEqual(machine.takeOutbound(), bytes(ping(1 * second)), "no PING while a call waited and nothing came")
        // Answered: the connection stays, and a look after a frame arrived sends nothing.
        XCTAssertEqual(feed(&machine, bytes(ping(1 * second, ack: true)), now: 1500 * millisecond), [.pingAcknowledged(opaque: 1 * second)])
        XCTAssertEqual(machine.tick(now: 2 * second), [])
        XCTAssertFalse(machine.hasOutbound)
        // Silent again: a PING at the next look, then nothing for the keepalive timeout (20 s).
        XCTAssertEqual(machine.tick(now: 3 * second), [])
        XCTAssertEqual(machine.takeOutbound(), bytes(ping(3 * second)))
        for look in 4...22 {
            XCTAssertEqual(machine.tick(now: UInt64(look) * second), [], "closed at \(look) s")
            XCTAssertFalse(machine.hasOutbound, "a second PING at \(look) s")
        }
        XCTAssertEqual(machine.nextDeadline, 23 * second)
        let events = machine.tick(now: 23 * second)
        guard case .closed(let error?) = events.last else { return XCTFail("not closed: \(events)") }
        XCTAssertEqual(error.code, .unavailable)
        XCTAssertTrue(error.message.contains("answered no keepalive PING within 20 s"), error.message)
        XCTAssertTrue(machine.isClosed)
    }

    func testClientGoAwayDuringHandshakeClosesWithItsError() {
        var machine = Machine(configuration: .init(role: .client), now: 0)
        machine.start(token: "x", clientName: "c")
        _ = machine.takeOutbound()
        XCTAssertEqual(feed(&machine, goAway(last: 0, .unauthenticated, "wrong token").encoded), [.closed(PhotoLibError(.unauthenticated, "wrong token"))])
        XCTAssertTrue(machine.isClosed)
        XCTAssertFalse(machine.hasOutbound)
    }
}
