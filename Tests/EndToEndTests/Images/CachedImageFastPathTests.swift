import Foundation
import PhotoLibTestSupport
import PhotoLibClient
import PhotoLibWire
import XCTest

/// Cached images are answered on the connection's queue without a handler task (the fast
/// path); these tests hold it to the same rules as every other answer: flow control, request
/// ids, errors.
final class CachedImageFastPathTests: XCTestCase {
    nonisolated(unsafe) private static var fixture: LibraryFixture?
    private var server: ServerProcess { Self.fixture!.server }
    private static let requestImage = "/photolib.v1.PhotoLibrary/RequestImage"

    override func setUpWithError() throws {
        if Self.fixture == nil { Self.fixture = try LibraryFixture("fast-path", photos: [Paths.landscape, Paths.sampleBaseline]) }
        XCTAssertTrue(server.isRunning, "photolibd is not running\n\(server.log)")
    }

    override class func tearDown() {
        fixture?.shutDown()
        fixture = nil
    }

    private func identifier(_ path: String) throws -> String { try Self.fixture!.identifier(path) }

    /// The JPEG of a finished call's ImageStart/ImageChunk/ImageEnd messages.
    private func jpeg(of messages: [[UInt8]]) throws -> [UInt8] {
        var bytes: [UInt8] = []
        for payload in messages {
            if case .chunk(let chunk) = try Wire.ImageResponse(decoding: payload).part { bytes += chunk.data }
        }
        return bytes
    }

    func testCachedReplyLargerThanTheWindowWaitsForCredit() throws {
        let asset = try identifier(Paths.landscape)
        let window: UInt32 = 128 << 10
        let connection = try RawConnection(port: server.port)
        defer { connection.close() }
        _ = try connection.handshake(token: server.token, maxFrameSize: window, streamWindow: window, connectionWindow: window)
        let request = try Wire.ImageRequest(assetIdentifier: asset, targetSize: PixelSize(width: 2048, height: 2048), options: ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .exact)).encoded()
        // The first call renders (and caches) an image bigger than the whole window.
        let first = try connection.call(stream: 1, method: Self.requestImage, request: request, timeout: 60)
        XCTAssertEqual(first.status.code, .ok, first.status.message)
        let rendered = try jpeg(of: first.messages)
        XCTAssertGreaterThan(rendered.count, Int(window), "the test needs an image larger than the window")

        // The second is a cache hit: it may send only what the window allows, then must wait.
        connection.send(Frame(.call, stream: 3, payload: Wire.CallStart(method: Self.requestImage).encoded()))
        connection.send(Frame(.message, stream: 3, flags: .endStream, payload: request))
        var received: [[UInt8]] = []
        var stalled = false
        while !stalled {
            switch connection.readFrame(timeout: 1) {
            case .frame(let frame) where frame.type == .message && frame.streamID == 3:
                received.append(frame.payload)
            case .frame(let frame) where frame.type == .status:
                XCTFail("STATUS before the client granted any credit: \(try Wire.Status(decoding: frame.payload))")
                return
            case .frame:
                continue
            case .timeout:
                stalled = true
            case let other:
                XCTFail("connection failed: \(other)")
                return
            }
        }
        let sent = received.reduce(0) { $0 + $1.count }
        XCTAssertGreaterThan(sent, 0, "the reply starts within the window")
        XCTAssertLessThanOrEqual(sent, Int(window), "no more than the window is sent before credit comes back")
        // Credit for everything received: the rest follows, then OK.
        var owed = sent
        var status: Wire.Status?
        while status == nil {
            if owed > 0 {
                let credit = Wire.WindowUpdate(increment: UInt32(owed)).encoded()
                connection.send(Frame(.windowUpdate, stream: 3, payload: credit))
                connection.send(Frame(.windowUpdate, stream: 0, payload: credit))
                owed = 0
            }
            guard case .frame(let frame) = connection.readFrame(timeout: 20) else {
                XCTFail("the rest of the cached reply never came")
                return
            }
            if frame.type == .message && frame.streamID == 3 {
                received.append(frame.payload)
                owed += frame.payload.count
            } else if frame.type == .status && frame.streamID == 3 {
                status = try Wire.Status(decoding: frame.payload)
            }
        }
        XCTAssertEqual(status?.code, .ok, status?.message ?? "")
        let cached = try jpeg(of: received)
        XCTAssertTrue(cached == rendered, "the cached reply is the rendered image, byte for byte (\(cached.count) vs \(rendered.count) bytes in \(received.count))")
    }

    func testCachedRequestWithAnIdInUseIsRefused() throws {
        let thumbnail = try Wire.ImageRequest(assetIdentifier: try identifier(Paths.landscape), targetSize: PixelSize(width: 64, height: 64), requestID: 7).encoded()
        let connection = try RawConnection(port: server.port)
        defer { connection.close() }
        _ = try connection.handshake(token: server.token)
        let cached = try connection.call(stream: 1, method: Self.requestImage, request: thumbnail, timeout: 60)
        XCTAssertEqual(cached.status.code, .ok, cached.status.message)
        // A slow render holds id 7 (full size, never cached); the cached thumbnail with the
        // same id must be refused while it runs.
        let slow = try Wire.ImageRequest(
            assetIdentifier: try identifier(Paths.sampleBaseline), targetSize: .maximum,
            options: ImageRequestOptions(resizeMode: .exact), requestID: 7, bypassCache: true
        ).encoded()
        connection.send(Frame(.call, stream: 3, payload: Wire.CallStart(method: Self.requestImage).encoded()))
        connection.send(Frame(.message, stream: 3, flags: .endStream, payload: slow))
        Thread.sleep(forTimeInterval: 0.2)
        let refused = try connection.call(stream: 5, method: Self.requestImage, request: thumbnail, timeout: 60)
        XCTAssertEqual(refused.status.code, .alreadyExists, "\(refused.status.code): \(refused.status.message)")
        XCTAssertTrue(refused.messages.isEmpty)
    }

    func testUnknownAssetFailsOnlyThatCall() throws {
        let connection = try RawConnection(port: server.port)
        defer { connection.close() }
        _ = try connection.handshake(token: server.token)
        let missing = try Wire.ImageRequest(assetIdentifier: "00000000-0000-4000-8000-000000000000/L0/001", targetSize: PixelSize(width: 64, height: 64)).encoded()
        let result = try connection.call(stream: 1, method: Self.requestImage, request: missing)
        XCTAssertEqual(result.status.code, .notFound, result.status.message)
        let good = try Wire.ImageRequest(assetIdentifier: try identifier(Paths.landscape), targetSize: PixelSize(width: 64, height: 64)).encoded()
        XCTAssertEqual(try connection.call(stream: 3, method: Self.requestImage, request: good, timeout: 60).status.code, .ok)
        XCTAssertEqual(try connection.call(stream: 5, method: Self.requestImage, request: good).status.code, .ok, "and again from the cache")
    }
}
