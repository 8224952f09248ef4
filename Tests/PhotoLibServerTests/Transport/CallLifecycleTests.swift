import Foundation
import PhotoLibCore
import PhotoLibServerTestSupport
import PhotoLibTestSupport
import PhotoLibWire
import XCTest

/// Flow control, cancellation, deadlines and GOAWAY, driven frame by frame against the real
/// server code over the in-process transport. Every wait has an event to wait for; the few
/// bounded waits for *nothing* to arrive are the only way to see that a sender holds back.
final class CallLifecycleTests: XCTestCase {
    private static let window: UInt32 = 131_072
    private var server: InProcessServer!

    override func setUp() async throws {
        server = try InProcessServer(photos: [Fixtures.landscape])
    }

    override func tearDown() async throws {
        await server.tearDown()
    }

    /// A raw connection past the handshake whose response stream windows are `window` bytes.
    private func connection(window: UInt32 = window) throws -> RawConnection {
        let connection = try server.rawConnection()
        _ = try connection.handshake(token: server.token, maxFrameSize: window, streamWindow: window, connectionWindow: 1 << 20)
        return connection
    }

    /// Opens RequestImage for the landscape's original file, byte for byte (a few MB), on `stream`.
    private func requestOriginal(_ connection: RawConnection, stream: UInt32, timeoutMilliseconds: UInt64 = 0) throws {
        let request = try Wire.ImageRequest(
            assetIdentifier: server.assets[0], targetSize: .maximum,
            options: ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .none, version: .original))
        connection.send(Frame(.call, stream: stream, payload: Wire.CallStart(method: PhotoLibraryMethods.requestImage.path, timeoutMs: timeoutMilliseconds).encoded()))
        connection.send(Frame(.message, stream: stream, flags: .endStream, payload: request.encoded()))
    }

    /// MESSAGE bytes that arrive on `stream` until nothing comes for `quiet` seconds.
    private func bytesUntilQuiet(_ connection: RawConnection, stream: UInt32, quiet: TimeInterval = 0.3) -> (bytes: Int, frames: [Frame]) {
        var bytes = 0
        var frames: [Frame] = []
        while case .frame(let frame) = connection.readFrame(timeout: quiet) {
            frames.append(frame)
            if frame.type == .message && frame.streamID == stream { bytes += frame.payload.count }
        }
        return (bytes, frames)
    }

    private func grant(_ connection: RawConnection, stream: UInt32, _ increment: Int) {
        let payload = Wire.WindowUpdate(increment: UInt32(increment)).encoded()
        connection.send(Frame(.windowUpdate, stream: stream, payload: payload))
        connection.send(Frame(.windowUpdate, stream: 0, payload: payload))
    }

    func testTheServerSendsNoMoreThanTheWindowAndResumesOnCredit() throws {
        let connection = try connection()
        let original = try Fixtures.bytes(at: Fixtures.landscape)
        try requestOriginal(connection, stream: 1)
        let first = bytesUntilQuiet(connection, stream: 1)
        XCTAssertGreaterThan(first.bytes, 0, "the first window's worth arrives")
        XCTAssertLessThanOrEqual(first.bytes, Int(Self.window), "never more than the stream window before credit")
        XCTAssertFalse(first.frames.contains { $0.type == .status }, "the call waits for credit, it does not end")
        // Return credit as the bytes are consumed: the whole file arrives, then STATUS OK.
        var received = first.bytes
        var chunks: [UInt8] = []
        func absorb(_ frame: Frame) throws {
            guard case .chunk(let chunk)? = try Wire.ImageResponse(decoding: frame.payload).part else { return }
            chunks += chunk.data
        }
        for frame in first.frames where frame.type == .message { try absorb(frame) }
        grant(connection, stream: 1, received)
        var status: Wire.Status?
        while status == nil {
            guard case .frame(let frame) = connection.readFrame(timeout: 10) else { return XCTFail("the image stalled after \(received) bytes") }
            if frame.type == .message, frame.streamID == 1 {
                received += frame.payload.count
                try absorb(frame)
                grant(connection, stream: 1, frame.payload.count)
            } else if frame.type == .status, frame.streamID == 1 {
                status = try Wire.Status(decoding: frame.payload)
            }
        }
        XCTAssertEqual(status?.code, .ok, status?.message ?? "")
        XCTAssertEqual(chunks, original, "the original arrives byte for byte through a 128 KiB window")
    }

    func testCancelStopsTheCallAndSendsNothingMoreOnItsStream() throws {
        let connection = try connection()
        try requestOriginal(connection, stream: 1)
        XCTAssertGreaterThan(bytesUntilQuiet(connection, stream: 1).bytes, 0)
        connection.send(Frame(.cancel, stream: 1, payload: Wire.Cancel(reason: "test scrolled away").encoded()))
        // Plenty of credit: a call still running would use it at once.
        grant(connection, stream: 1, 8 << 20)
        let after = bytesUntilQuiet(connection, stream: 1, quiet: 0.5)
        XCTAssertFalse(after.frames.contains { $0.streamID == 1 && ($0.type == .status || $0.type == .message) },
                       "nothing more on a cancelled stream: \(after.frames.map(\.type))")
        let info = try connection.call(stream: 3, method: PhotoLibraryMethods.getLibraryInfo.path)
        XCTAssertEqual(info.status.code, .ok, "the connection goes on")
    }

    func testADeadlineEndsAStalledCallWithDeadlineExceeded() throws {
        let connection = try connection()
        try requestOriginal(connection, stream: 1, timeoutMilliseconds: 200)
        // No credit is ever returned, so only the deadline can end the call.
        let (read, _) = connection.readUntil(timeout: 10) { $0.type == .status && $0.streamID == 1 }
        guard case .frame(let frame) = read else { return XCTFail("no STATUS: \(read)") }
        let status = try Wire.Status(decoding: frame.payload)
        XCTAssertEqual(status.code, .deadlineExceeded, status.message)
        let info = try connection.call(stream: 3, method: PhotoLibraryMethods.getLibraryInfo.path)
        XCTAssertEqual(info.status.code, .ok, "the connection goes on")
    }

    func testGracefulShutdownSendsGoAwayRefusesNewCallsAndLetsRunningOnesFinish() throws {
        let connection = try connection()
        try requestOriginal(connection, stream: 1)
        var received = bytesUntilQuiet(connection, stream: 1).bytes
        server.server.beginGracefulShutdown()
        let (read, skipped) = connection.readUntil(timeout: 10) { $0.type == .goAway }
        received += skipped.filter { $0.type == .message && $0.streamID == 1 }.reduce(0) { $0 + $1.payload.count }
        guard case .frame(let frame) = read else { return XCTFail("no GOAWAY: \(read)") }
        let goAway = try Wire.GoAway(decoding: frame.payload)
        XCTAssertEqual(goAway.lastStreamID, 1, "the highest stream the server accepted")
        XCTAssertEqual(goAway.status?.code, .unavailable)
        // A CALL crossing the GOAWAY is refused with UNAVAILABLE and does no work.
        connection.send(Frame(.call, stream: 3, payload: Wire.CallStart(method: PhotoLibraryMethods.getLibraryInfo.path).encoded()))
        connection.send(Frame(.message, stream: 3, flags: .endStream))
        // The running call finishes when given credit.
        grant(connection, stream: 1, received)
        var refused: Wire.Status?
        var finished: Wire.Status?
        while finished == nil || refused == nil {
            guard case .frame(let frame) = connection.readFrame(timeout: 10) else { return XCTFail("stalled: refused \(String(describing: refused)), finished \(String(describing: finished))") }
            if frame.type == .message, frame.streamID == 1 { grant(connection, stream: 1, frame.payload.count) }
            if frame.type == .status, frame.streamID == 3 { refused = try Wire.Status(decoding: frame.payload) }
            if frame.type == .status, frame.streamID == 1 { finished = try Wire.Status(decoding: frame.payload) }
        }
        XCTAssertEqual(refused?.code, .unavailable)
        XCTAssertEqual(finished?.code, .ok, "the call running at GOAWAY finishes: \(finished?.message ?? "")")
        XCTAssertTrue(connection.waitForClose(timeout: 10), "then the server closes the connection")
    }

    func testGracefulShutdownSendsGoAwayBeforeEndingSubscriptionsWithUnavailable() throws {
        let connection = try connection()
        connection.send(Frame(.call, stream: 1, payload: Wire.CallStart(method: PhotoLibraryMethods.subscribe.path).encoded()))
        connection.send(Frame(.message, stream: 1, payload: Wire.SubscriptionRequest(request: .registerFetch(Wire.FetchAssetsRequest())).encoded()))
        let (registered, _) = connection.readUntil(timeout: 10) { $0.streamID == 1 && ($0.type == .message || $0.type == .status) }
        guard case .frame(let first) = registered, first.type == .message else { return XCTFail("not subscribed: \(registered)") }
        server.server.beginGracefulShutdown()
        // A subscription never ends by itself: it ends at once, after the GOAWAY, with
        // UNAVAILABLE (not OK: the client must not take it for a normal end of its feed).
        let (read, skipped) = connection.readUntil(timeout: 10) { $0.type == .goAway || ($0.type == .status && $0.streamID == 1) }
        guard case .frame(let frame) = read else { return XCTFail("neither GOAWAY nor STATUS: \(read)") }
        XCTAssertEqual(frame.type, .goAway, "GOAWAY comes before the subscription's STATUS (skipped: \(skipped.map(\.type)))")
        let (ended, _) = connection.readUntil(timeout: 10) { $0.type == .status && $0.streamID == 1 }
        guard case .frame(let statusFrame) = ended else { return XCTFail("the subscription did not end: \(ended)") }
        let status = try Wire.Status(decoding: statusFrame.payload)
        XCTAssertEqual(status.code, .unavailable, status.message)
        XCTAssertTrue(connection.waitForClose(timeout: 10), "then the server closes the connection")
    }

    func testClientGoAwayEndsARunningCallAndTheServerCloses() throws {
        let connection = try connection()
        try requestOriginal(connection, stream: 1)
        // The call is stalled on flow control (no credit comes back): only the GOAWAY ends it.
        _ = bytesUntilQuiet(connection, stream: 1)
        connection.send(Frame(.goAway, payload: Wire.GoAway(status: Wire.Status(code: .ok, message: "client closing")).encoded()))
        var statuses: [Frame] = []
        var closed = false
        while !closed {
            switch connection.readFrame(timeout: 10) {
            case .frame(let frame): if frame.type == .status { statuses.append(frame) }
            case .closed: closed = true
            default: return XCTFail("section 11.3: the server closes after a client's GOAWAY, its running calls ending with it")
            }
        }
        XCTAssertEqual(statuses.map(\.streamID), [], "the abandoned call ends as if cancelled: no STATUS")
    }
}
