import Foundation
import PhotoLibTestSupport
import PhotoLibClient
import PhotoLibWire
import XCTest

/// SIGTERM: connected clients see the connection end (GOAWAY UNAVAILABLE), running calls
/// finish within the grace period, new calls are refused, and the server exits 0.
final class ShutdownTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var server: ServerProcess?

    override func setUpWithError() throws {
        directory = try TemporaryDirectory("photolib-e2e-shutdown")
        server = try ServerProcess.start(importing: [Paths.sampleBaseline, Paths.portrait], library: directory.file("library"))
    }

    override func tearDown() {
        if let server, server.isRunning { server.kill9() }
        server = nil
        directory?.remove()
    }

    func testSIGTERMWithConnectedClientsEndsTheirConnectionsAndExitsZero() async throws {
        let server = try XCTUnwrap(server)
        let client = try await connectClient(server)
        defer { client.close() }
        let assets = try await fetchAllAssets(client)
        XCTAssertEqual(assets.count, 2)
        let raw = try RawConnection(port: server.port)
        _ = try raw.handshake(token: server.token)

        let started = Date()
        server.child.send(SIGTERM)

        // The raw client sees GOAWAY {UNAVAILABLE} and then the close.
        let (read, _) = raw.readUntil(timeout: 10) { $0.type == .goAway }
        guard case .frame(let frame) = read else { return XCTFail("expected GOAWAY after SIGTERM, got \(read)") }
        let goAway = try Wire.GoAway(decoding: frame.payload)
        XCTAssertEqual(goAway.status?.code, .unavailable, "\(goAway.status?.message ?? "")")
        XCTAssertTrue(raw.waitForClose(timeout: 10), "the server closes an idle connection after GOAWAY")

        // The server exits 0, promptly: no call was running.
        guard let result = server.child.waitForExit(timeout: 8) else {
            return XCTFail("photolibd did not exit within 8 s of SIGTERM with only idle connections\n\(server.log)")
        }
        XCTAssertTrue(result.succeeded, "graceful exit status 0: \(result)")
        XCTAssertLessThan(Date().timeIntervalSince(started), 8)

        // The PhotoLibClient connection has ended: its next call fails with UNAVAILABLE.
        do {
            _ = try await withTimeout(20, "fetch after shutdown") { try await client.fetchAssets().count }
            XCTFail("a call after the server shut down must fail")
        } catch let error as PhotoLibError {
            XCTAssertEqual(error.code, .unavailable, "\(error)")
        }
    }

    func testRunningCallFinishesAndNewCallsAreRefusedDuringTheGracePeriod() async throws {
        let server = try XCTUnwrap(server)
        let client = try await connectClient(server)
        let baseline = try await fetchAllAssets(client).first { $0.pixelWidth == 5312 }
        client.close()
        let assetID = try XCTUnwrap(baseline?.localIdentifier)

        // Small windows (128 KiB): the server can send only part of the image until we grant credit.
        let raw = try RawConnection(port: server.port)
        _ = try raw.handshake(token: server.token, maxFrameSize: 131_072, streamWindow: 131_072, connectionWindow: 131_072)
        let request = try Wire.ImageRequest(
            assetIdentifier: assetID, targetSize: PixelSize(width: 2000, height: 2000), contentMode: .aspectFit,
            options: ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .exact))
        raw.send(Frame(.call, stream: 1, payload: Wire.CallStart(method: PhotoLibraryMethods.requestImage.path).encoded()))
        raw.send(Frame(.message, stream: 1, flags: .endStream, payload: request.encoded()))

        // Wait until the image has started arriving, then SIGTERM.
        var start: Wire.ImageStart?
        var received: [UInt8] = []
        var pendingCredit = 0
        func consume(_ frame: Frame) throws {
            switch try Wire.ImageResponse(decoding: frame.payload).part {
            case .start(let s): start = s
            case .chunk(let chunk):
                XCTAssertEqual(chunk.offset, UInt64(received.count))
                received += chunk.data
            default: break
            }
            pendingCredit += frame.payload.count
        }
        let (first, _) = raw.readUntil(timeout: 30) { $0.type == .message && $0.streamID == 1 }
        guard case .frame(let firstFrame) = first else { return XCTFail("no image message: \(first)") }
        try consume(firstFrame)
        server.child.send(SIGTERM)

        // GOAWAY arrives (UNAVAILABLE) while the call is still held back by flow control.
        var goAway: Wire.GoAway?
        var status: Wire.Status?
        var refused: Wire.Status?
        var sentLateCall = false
        let deadline = Date().addingTimeInterval(30)
        loop: while Date() < deadline {
            let read = raw.readFrame(timeout: max(0, deadline.timeIntervalSinceNow))
            guard case .frame(let frame) = read else { break loop }
            switch (frame.type, frame.streamID) {
            case (.goAway, 0):
                goAway = try Wire.GoAway(decoding: frame.payload)
                // A CALL that crosses the GOAWAY is refused with UNAVAILABLE.
                raw.send(Frame(.call, stream: 3, payload: Wire.CallStart(method: PhotoLibraryMethods.getLibraryInfo.path).encoded()))
                raw.send(Frame(.message, stream: 3, flags: .endStream))
                sentLateCall = true
            case (.message, 1):
                try consume(frame)
            case (.status, 1):
                status = try Wire.Status(decoding: frame.payload)
            case (.status, 3):
                refused = try Wire.Status(decoding: frame.payload)
            default:
                break
            }
            if goAway != nil, pendingCredit > 0 {
                // Consume and grant credit only after GOAWAY, so the call is still running when it comes.
                let update = Wire.WindowUpdate(increment: UInt32(pendingCredit)).encoded()
                raw.send(Frame(.windowUpdate, stream: 1, payload: update))
                raw.send(Frame(.windowUpdate, stream: 0, payload: update))
                pendingCredit = 0
            }
            if status != nil, refused != nil || !sentLateCall { break loop }
        }

        let away = try XCTUnwrap(goAway, "GOAWAY after SIGTERM")
        XCTAssertEqual(away.status?.code, .unavailable)
        XCTAssertGreaterThanOrEqual(away.lastStreamID, 1, "the running call is below last_stream_id")
        XCTAssertEqual(status?.code, .ok, "the running call finishes during the grace period: \(String(describing: status))")
        XCTAssertEqual(refused?.code, .unavailable, "a CALL after GOAWAY is refused: \(String(describing: refused))")
        XCTAssertEqual(start.map { $0.width * 1000 + $0.height }, 2000 * 1000 + 1125)
        XCTAssertEqual(UInt64(received.count), start?.byteCount, "every byte of the image arrived")
        XCTAssertEqual(JPEGSize(jpeg: received), JPEGSize(width: 2000, height: 1125))

        XCTAssertTrue(raw.waitForClose(timeout: 12), "the server closes the connection once its calls are done")
        guard let result = server.child.waitForExit(timeout: 15) else {
            return XCTFail("photolibd did not exit after SIGTERM\n\(server.log)")
        }
        XCTAssertTrue(result.succeeded, "graceful exit status 0: \(result)")
    }
}
