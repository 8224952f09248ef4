import Foundation
import PhotoLibClient
import PhotoLibServerTestSupport
import PhotoLibTestSupport
import XCTest

/// HEIC, PNG and WebP through the wire: uploaded, created, rendered at any size, and exported
/// byte for byte; another type is refused at its first chunk.
final class StillUploadTests: XCTestCase {
    func testHEICAndPNGAndWebPUploadRenderAndExport() async throws {
        let server = try InProcessServer()
        addTeardownBlock { await server.tearDown() }
        let library = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: server.token)
        defer { library.close() }
        for (name, upright) in [("heic_rotated_gps.heic", (640, 360)), ("png_screenshot_1170x2532.png", (1170, 2532)), ("webp_photo.webp", (0, 0))] {
            let bytes = try Fixtures.bytes(at: Fixtures.path("Tests/Fixtures/media/" + name))
            let upload = try await library.upload(bytes, filename: name)
            var placeholder: ObjectPlaceholder?
            let result = try await library.performChanges { batch in placeholder = batch.createAsset(from: upload) }
            let id = try XCTUnwrap(placeholder.flatMap(result.localIdentifier(for:)))
            let asset = try await library.fetchAssets(withLocalIdentifiers: [id]).firstObject
            if upright.0 > 0 { XCTAssertEqual(asset.map { [$0.pixelWidth, $0.pixelHeight] }, [upright.0, upright.1], name) }
            if name.hasSuffix(".png") { XCTAssertEqual(asset?.mediaSubtypes.contains(.photoScreenshot), true, "a screenshot") }
            let image = try await library.imageManager.image(
                forAssetIdentifier: id, targetSize: PixelSize(width: 128, height: 128), options: ImageRequestOptions(deliveryMode: .highQualityFormat))
            XCTAssertEqual(Array(image.data.prefix(3)), [0xFF, 0xD8, 0xFF], "\(name): a JPEG render")
            let aspect = Double(asset?.pixelWidth ?? 1) / Double(asset?.pixelHeight ?? 1)
            XCTAssertEqual(Double(image.width) / Double(image.height), aspect, accuracy: 0.05, "\(name): upright")
            var exported: [UInt8] = []
            for try await chunk in try await AssetResourceManager(library: library).requestData(for: id, type: .photo) { exported += chunk.data }
            XCTAssertEqual(exported, bytes, "\(name): the original, byte for byte")
        }
        do {
            _ = try await library.upload(Array("GIF89a".utf8) + [UInt8](repeating: 7, count: 500), filename: "a.gif")
            XCTFail("a GIF was accepted")
        } catch let error as PhotoLibError {
            XCTAssertEqual(error.code, .invalidArgument)
            XCTAssertTrue(error.message.contains("not a JPEG, HEIC, PNG, WebP, MOV or MP4 file"), error.message)
        }
    }
}
