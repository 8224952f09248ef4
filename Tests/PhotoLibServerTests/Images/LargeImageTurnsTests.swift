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
        // Two large images (2000 px and 1900 px, each several stream windows long), then a thumbnail.
        try checkTurns(
            server: server, connection: connection,
            openLarge: { stream in
                try Self.openImage(connection, stream: stream, asset: server.assets[0], side: stream == 1 ? 2000 : 1900)
            },
            openSmall: { stream in try Self.openImage(connection, stream: stream, asset: server.assets[0], side: 200) })
    }

    /// The editing input of a PNG holds its editing base (a full-size JPEG) in memory until it
    /// is sent: it takes a large-image turn like a large RequestImage. Before, every open input
    /// rendered its base and held it while it waited for credit.
    func testEditingInputsHoldingABaseTakeTheConnectionsTurns() async throws {
        var configuration = ServerConfiguration()
        configuration.maxLargeImagesPerConnection = 1
        // 1170×2532: its editing base (quality 95, 4:4:4) is several stream windows long.
        let server = try InProcessServer(photos: [Fixtures.path("Tests/Fixtures/media/png_screenshot_1170x2532.png")], configuration: configuration)
        addTeardownBlock { await server.tearDown() }
        let connection = try server.rawConnection()
        try checkTurns(
            server: server, connection: connection,
            openLarge: { stream in
                connection.send(Frame(.call, stream: stream, payload: Wire.CallStart(method: PhotoLibraryMethods.requestContentEditingInput.path).encoded()))
                connection.send(Frame(.message, stream: stream, flags: .endStream, payload: Wire.ContentEditingInputRequest(assetIdentifier: server.assets[0]).encoded()))
            },
            openSmall: { stream in try Self.openImage(connection, stream: stream, asset: server.assets[0], side: 200) })
    }

    private static func openImage(_ connection: RawConnection, stream: UInt32, asset: String, side: Int) throws {
        let request = try Wire.ImageRequest(
            assetIdentifier: asset, targetSize: PixelSize(width: side, height: side),
            options: ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .exact))
        connection.send(Frame(.call, stream: stream, payload: Wire.CallStart(method: PhotoLibraryMethods.requestImage.path).encoded()))
        connection.send(Frame(.message, stream: stream, flags: .endStream, payload: request.encoded()))
    }

    /// Opens two large calls (streams 1 and 3) and a small one (5) on a connection with one
    /// large-image turn, and checks that the small one passes, that only one large call sends
    /// until it is given credit, and that the other then takes the turn.
    private func checkTurns(
        server: InProcessServer, connection: RawConnection, openLarge: (UInt32) throws -> Void, openSmall: (UInt32) throws -> Void
    ) throws {
        // Stream windows of 128 KiB (the smallest the frame size allows), a connection window
        // that never runs out; each large response is several stream windows long.
        _ = try connection.handshake(token: server.token, maxFrameSize: 131_072, streamWindow: 131_072, connectionWindow: UInt32(Int32.max))
        try openLarge(1)
        try openLarge(3)
        try openSmall(5)
        var bytes: [UInt32: Int] = [:]
        var ended: Set<UInt32> = []
        func read(for seconds: Double) {
            let until = Date().addingTimeInterval(seconds)
            while Date() < until, case .frame(let frame) = connection.readFrame(timeout: max(0.05, until.timeIntervalSinceNow)) {
                if frame.type == .message { bytes[frame.streamID, default: 0] += frame.payload.count }
                if frame.type == .status { ended.insert(frame.streamID) }
            }
        }
        // Until the small call has ended and one large call has filled its stream window.
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline && !(ended.contains(5) && (bytes[1] ?? 0) + (bytes[3] ?? 0) >= 60_000) { read(for: 0.2) }
        XCTAssertTrue(ended.contains(5), "the small call did not pass while a large one waited for credit: \(bytes)")
        // Then nothing from the other large call, however long: it waits for the turn.
        read(for: 2)
        let started = [UInt32(1), 3].filter { (bytes[$0] ?? 0) > 0 }
        XCTAssertEqual(started.count, 1, "both large calls were rendered and sent at once: \(bytes)")
        let first = try XCTUnwrap(started.first), second: UInt32 = first == 1 ? 3 : 1
        XCTAssertFalse(ended.contains(first), "the first large call fit one stream window, so it proves nothing: \(bytes)")
        // Credit for the first: it ends, and the second takes the turn.
        connection.send(Frame(.windowUpdate, stream: first, payload: Wire.WindowUpdate(increment: 64 << 20).encoded()))
        let secondDeadline = Date().addingTimeInterval(60)
        while Date() < secondDeadline && !(ended.contains(first) && (bytes[second] ?? 0) > 0) { read(for: 0.2) }
        XCTAssertTrue(ended.contains(first), "the first large call did not end after credit: \(bytes)")
        XCTAssertGreaterThan(bytes[second] ?? 0, 0, "the second large call did not start once the turn was free")
        connection.send(Frame(.windowUpdate, stream: second, payload: Wire.WindowUpdate(increment: 64 << 20).encoded()))
        let lastDeadline = Date().addingTimeInterval(60)
        while Date() < lastDeadline && !ended.contains(second) { read(for: 0.2) }
        XCTAssertTrue(ended.contains(second))
    }
}
