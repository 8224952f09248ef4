import Foundation
import PhotoLibCore
import PhotoLibServer
import PhotoLibServerTestSupport
import PhotoLibTestSupport
import PhotoLibWire
import XCTest

/// A connection's large image requests take turns (`maxLargeImagesPerConnection`): a client
/// that opens many and reads none makes the server render and hold only that many, while its
/// thumbnails still pass. Before, every open call rendered its image and held it while it
/// waited for credit (`Scripts/bench-flood`'s window-render case: +283 MB from one client).
final class LargeImageTurnsTests: XCTestCase {
    func testALargeImageWaitsForTheConnectionsTurnWhileThumbnailsPass() async throws {
        var configuration = ServerConfiguration()
        configuration.maxLargeImagesPerConnection = 1
        let server = try InProcessServer(photos: [Fixtures.landscape], configuration: configuration)
        addTeardownBlock { await server.tearDown() }
        let connection = try server.rawConnection()
        // Stream windows of 128 KiB (the smallest the frame size allows), a connection window
        // that never runs out; each large image is several stream windows long.
        _ = try connection.handshake(token: server.token, maxFrameSize: 131_072, streamWindow: 131_072, connectionWindow: UInt32(Int32.max))
        func open(_ stream: UInt32, side: Int) {
            let request = Wire.ImageRequest(
                assetIdentifier: server.assets[0], targetSize: PixelSize(width: side, height: side),
                options: ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .exact))
            connection.send(Frame(.call, stream: stream, payload: Wire.CallStart(method: PhotoLibraryMethods.requestImage.path).encoded()))
            connection.send(Frame(.message, stream: stream, flags: .endStream, payload: request.encoded()))
        }
        // Two large images (2000 px and 1900 px, each several stream windows long), then a thumbnail.
        open(1, side: 2000)
        open(3, side: 1900)
        open(5, side: 200)
        var bytes: [UInt32: Int] = [:]
        var ended: Set<UInt32> = []
        func read(for seconds: Double) {
            let until = Date().addingTimeInterval(seconds)
            while Date() < until, case .frame(let frame) = connection.readFrame(timeout: max(0.05, until.timeIntervalSinceNow)) {
                if frame.type == .message { bytes[frame.streamID, default: 0] += frame.payload.count }
                if frame.type == .status { ended.insert(frame.streamID) }
            }
        }
        // Until the thumbnail has ended and one large image has filled its stream window.
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline && !(ended.contains(5) && (bytes[1] ?? 0) + (bytes[3] ?? 0) >= 60_000) { read(for: 0.2) }
        XCTAssertTrue(ended.contains(5), "the thumbnail did not pass while a large image waited for credit")
        // Then nothing from the other large image, however long: it waits for the turn.
        read(for: 2)
        let started = [UInt32(1), 3].filter { (bytes[$0] ?? 0) > 0 }
        XCTAssertEqual(started.count, 1, "both large images were rendered and sent at once: \(bytes)")
        let first = try XCTUnwrap(started.first), second: UInt32 = first == 1 ? 3 : 1
        // Credit for the first: it ends, and the second takes the turn.
        connection.send(Frame(.windowUpdate, stream: first, payload: Wire.WindowUpdate(increment: 64 << 20).encoded()))
        let secondDeadline = Date().addingTimeInterval(60)
        while Date() < secondDeadline && !(ended.contains(first) && (bytes[second] ?? 0) > 0) { read(for: 0.2) }
        XCTAssertTrue(ended.contains(first), "the first large image did not end after credit: \(bytes)")
        XCTAssertGreaterThan(bytes[second] ?? 0, 0, "the second large image did not start once the turn was free")
        connection.send(Frame(.windowUpdate, stream: second, payload: Wire.WindowUpdate(increment: 64 << 20).encoded()))
        let lastDeadline = Date().addingTimeInterval(60)
        while Date() < lastDeadline && !ended.contains(second) { read(for: 0.2) }
        XCTAssertTrue(ended.contains(second))
    }
}
