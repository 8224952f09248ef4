import Foundation
import PhotoLibClient
import PhotoLibCore
import PhotoLibTestSupport
import PhotoLibWire
import XCTest

/// The client asks for small images as one `ImageWhole` (docs/PROTOCOL.md 14.2), takes them
/// beside images in parts within one call, and refuses a whole image that breaks the rules
/// of the parts it stands for.
final class WholeImageTests: XCTestCase {
    private static let jpeg: [UInt8] = [0xFF, 0xD8] + [UInt8](repeating: 0x42, count: 300) + [0xFF, 0xD9]

    private func whole(_ data: [UInt8], byteCount: Int? = nil, index: UInt32, degraded: Bool, isFinal: Bool) -> [UInt8] {
        Wire.ImageResponse(part: .whole(Wire.ImageWhole(
            start: Wire.ImageStart(
                width: 40, height: 30, byteCount: UInt64(byteCount ?? data.count), degraded: degraded,
                uniformTypeIdentifier: "public.jpeg", imageIndex: index),
            data: data, isFinal: isFinal))).encoded()
    }

    /// Reads the client's CALL and request, and checks that it takes whole images.
    private func acceptCall(_ peer: ScriptedServer) async throws -> UInt32 {
        let call = try await peer.next { $0.type == .call }
        XCTAssertEqual(try Wire.CallStart(decoding: call.payload).method, PhotoLibraryMethods.requestImage.path)
        let message = try await peer.next { $0.type == .message }
        XCTAssertEqual(message.streamID, call.streamID)
        XCTAssertTrue(try Wire.ImageRequest(decoding: message.payload).acceptsWholeImages, "the client says it takes whole images")
        return call.streamID
    }

    func testAWholeDegradedImageThenAFinalOneInPartsAreTheCallsTwoImages() async throws {
        let peer = try ScriptedServer()
        let library = try await peer.connect()
        defer { library.close() }
        let options = ImageRequestOptions(deliveryMode: .opportunistic)
        let images = Task {
            var delivered: [DeliveredImage] = []
            for try await image in try await library.imageManager.requestImage(forAssetIdentifier: "A/L0/001", targetSize: PixelSize(width: 64, height: 64), options: options) {
                delivered.append(image)
            }
            return delivered
        }
        let stream = try await acceptCall(peer)
        let small = Array(Self.jpeg.prefix(100))
        peer.raw.send(Frame(.message, stream: stream, payload: whole(small, index: 0, degraded: true, isFinal: false)))
        peer.raw.send(Frame(.message, stream: stream, payload: Wire.ImageResponse(part: .start(Wire.ImageStart(
            width: 64, height: 48, byteCount: UInt64(Self.jpeg.count), uniformTypeIdentifier: "public.jpeg", imageIndex: 1))).encoded()))
        peer.raw.send(Frame(.message, stream: stream, payload: Wire.ImageResponse(part: .chunk(Wire.ImageChunk(offset: 0, data: Self.jpeg))).encoded()))
        peer.raw.send(Frame(.message, stream: stream, payload: Wire.ImageResponse(part: .end(Wire.ImageEnd(imageIndex: 1, isFinal: true))).encoded()))
        peer.raw.send(Frame(.status, stream: stream, payload: Wire.Status(code: .ok).encoded()))
        let delivered = try await images.value
        XCTAssertEqual(delivered.map(\.data), [small, Self.jpeg])
        XCTAssertEqual(delivered.map { [$0.width, $0.height] }, [[40, 30], [64, 48]])
        XCTAssertEqual(delivered.map(\.isDegraded), [true, false])
        XCTAssertEqual(delivered.map(\.isFinal), [false, true])
        XCTAssertEqual(delivered.map(\.uniformTypeIdentifier), ["public.jpeg", "public.jpeg"])
    }

    func testAWholeImageThatBreaksThePartsRulesFailsTheRequest() async throws {
        let cases: [(String, [[UInt8]])] = [
            ("a byte count that is not the data's", [whole(Self.jpeg, byteCount: Self.jpeg.count + 1, index: 0, degraded: false, isFinal: true)]),
            ("a whole image inside another image", [
                Wire.ImageResponse(part: .start(Wire.ImageStart(width: 1, height: 1, byteCount: 10, imageIndex: 0))).encoded(),
                whole(Self.jpeg, index: 0, degraded: false, isFinal: true),
            ]),
            ("no start", [Wire.ImageResponse(part: .whole(Wire.ImageWhole(data: Self.jpeg, isFinal: true))).encoded()]),
        ]
        for (what, messages) in cases {
            let peer = try ScriptedServer()
            let library = try await peer.connect()
            defer { library.close() }
            let image = Task { try await library.imageManager.image(forAssetIdentifier: "A/L0/001", targetSize: PixelSize(width: 64, height: 64)) }
            let stream = try await acceptCall(peer)
            for payload in messages { peer.raw.send(Frame(.message, stream: stream, payload: payload)) }
            peer.raw.send(Frame(.status, stream: stream, payload: Wire.Status(code: .ok).encoded()))
            do {
                let delivered = try await image.value
                XCTFail("\(what): delivered \(delivered.data.count) bytes")
            } catch let error as PhotoLibError {
                XCTAssertEqual(error.reason, .protocolViolation, "\(what): \(error)")
            }
        }
    }
}
