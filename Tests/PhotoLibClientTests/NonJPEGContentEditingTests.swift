import Foundation
import PhotoLibClient
import PhotoLibImaging
import PhotoLibServerTestSupport
import PhotoLibTestSupport
import XCTest

/// Editing HEIC, PNG and WebP originals through the client library, against the real server
/// code over the in-process transport: the server renders recipes on them, a client is given a
/// JPEG (the editing base) and renders on it, and a revert brings back the original's bytes
/// (docs/PROTOCOL.md 15a.1b, docs/FILTERS.md "Originals that are not JPEG").
final class NonJPEGContentEditingTests: XCTestCase {
    /// Media fixtures with a red marker in the upright top-left corner: a HEIC stored turned
    /// (`irot`, orientation 6: 360×640 stored, 640×360 upright), a PNG turned by EXIF
    /// (orientation 6: 80×120 stored, 120×80 upright) and a 480×270 WebP.
    private static let heic = Fixtures.path("Tests/Fixtures/media/heic_rotated_gps.heic")
    private static let png = Fixtures.path("Tests/Fixtures/media/png_exif_rotated.png")
    private static let webp = Fixtures.path("Tests/Fixtures/media/webp_photo.webp")
    private static let ours = [AdjustmentFormat(formatIdentifier: FilterRecipe.formatIdentifier, formatVersion: FilterRecipe.formatVersion)]

    private var server: InProcessServer!
    private var library: PhotoLibrary!

    override func setUp() async throws {
        server = try InProcessServer(photos: [Self.heic, Self.png, Self.webp])
        library = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: server.token)
    }

    override func tearDown() async throws {
        library?.close()
        await server?.tearDown()
    }

    private func resource(_ asset: String, _ type: AssetResourceType) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        for try await chunk in try await AssetResourceManager(library: library).requestData(for: asset, type: type) { bytes += chunk.data }
        return bytes
    }

    private func resourceTypes(_ asset: String) async throws -> [AssetResourceType] {
        try await AssetResourceManager(library: library).assetResources(for: asset).map(\.type).sorted { $0.rawValue < $1.rawValue }
    }

    private func fetch(_ asset: String) async throws -> Asset {
        let found = try await library.fetchAssets(withLocalIdentifiers: [asset]).allObjects().first
        return try XCTUnwrap(found)
    }

    /// The RGB at (x, y) of a JPEG, decoded at full size by PhotoLibImaging.
    private func rgb(_ jpeg: [UInt8], _ x: Int, _ y: Int) throws -> (r: Int, g: Int, b: Int) {
        let pixels = try XCTUnwrap(try LibJPEG.decode(jpeg, scale: 8, limits: .default, keepPixels: true).pixels)
        let bytes = pixels.bytes, components = pixels.components
        let index = (y * pixels.width + x) * components
        if components == 1 { return (Int(bytes[index]), Int(bytes[index]), Int(bytes[index])) }
        return (Int(bytes[index]), Int(bytes[index + 1]), Int(bytes[index + 2]))
    }

    /// Whether `colour` is the fixtures' red marker.
    private func isRed(_ colour: (r: Int, g: Int, b: Int)) -> Bool {
        colour.r >= 180 && colour.g <= 70 && colour.b <= 70
    }

    func testServerRendersEditsOfHEICPNGAndWebPUprightAndRevertRestoresTheOriginal() async throws {
        for (index, path) in [Self.heic, Self.png, Self.webp].enumerated() {
            let asset = server.assets[index]
            let name = (path as NSString).lastPathComponent
            let originalBytes = try Fixtures.bytes(at: path)
            let before = try await fetch(asset)
            XCTAssertGreaterThan(before.pixelWidth, before.pixelHeight, "\(name): every fixture is landscape upright")

            // Chrome, as `photolib edit ID --filter chrome --server-render` commits it: the recipe alone.
            let input = try await library.requestContentEditingInput(for: asset, canHandle: Self.ours)
            var output = ContentEditingOutput(input: input.input)
            output.adjustmentData = FilterRecipe([.filter(.chrome, intensity: 1)]).adjustmentData
            try await library.commitContentEdit(output)
            let render = try await resource(asset, .fullSizePhoto)
            let info = try JPEGInspector.validate(render)
            XCTAssertEqual(info.orientation, 1, "\(name): the render is upright, with no orientation left to apply")
            XCTAssertEqual(info.storedWidth, before.pixelWidth, name)
            XCTAssertEqual(info.storedHeight, before.pixelHeight, name)
            let corner = try rgb(render, 1, 1)
            XCTAssertTrue(isRed(corner), "\(name): the marker is top-left, turned once: \(corner)")
            XCTAssertFalse(isRed(try rgb(render, info.storedWidth - 2, info.storedHeight - 2)), name)
            let types = try await resourceTypes(asset)
            XCTAssertEqual(types, [.photo, .fullSizePhoto, .adjustmentData], name)
            let edited = try await fetch(asset)
            XCTAssertTrue(edited.hasAdjustments, name)

            // Mono and a quarter turn, replacing it: gray, the sides swapped, the marker top-right.
            let again = try await library.requestContentEditingInput(for: asset, canHandle: Self.ours)
            XCTAssertEqual(again.input.base, .original, name)
            var turned = ContentEditingOutput(input: again.input)
            turned.adjustmentData = FilterRecipe([.filter(.mono, intensity: 1), .rotate(quarterTurns: 1)]).adjustmentData
            try await library.commitContentEdit(turned)
            let gray = try await resource(asset, .fullSizePhoto)
            let grayInfo = try JPEGInspector.validate(gray)
            XCTAssertEqual(grayInfo.storedWidth, before.pixelHeight, name)
            XCTAssertEqual(grayInfo.storedHeight, before.pixelWidth, name)
            for (x, y) in [(1, 1), (grayInfo.storedWidth - 2, 1), (grayInfo.storedWidth / 2, grayInfo.storedHeight / 2)] {
                let colour = try rgb(gray, x, y)
                XCTAssertLessThanOrEqual(max(abs(colour.r - colour.g), abs(colour.g - colour.b)), 3, "\(name): mono is gray at \(x),\(y): \(colour)")
            }
            // Red's luma (76) where the marker went; the photo's brighter sky where it was.
            XCTAssertLessThan(abs(try rgb(gray, grayInfo.storedWidth - 2, 1).r - 76), 30, "\(name): the marker is top-right")

            // Revert: the original, byte for byte, and nothing of the edit.
            try await library.revertAssetContentToOriginal([asset])
            let reverted = try await resourceTypes(asset)
            XCTAssertEqual(reverted, [.photo], name)
            let photo = try await resource(asset, .photo)
            XCTAssertEqual(photo, originalBytes, "\(name): the original is untouched")
            let after = try await fetch(asset)
            XCTAssertFalse(after.hasAdjustments, name)
        }
    }

    /// A HEIC's editing base is rendered once, then read from the disk cache by editing inputs
    /// and server renders alike: with the original made undecodable after the first input, a
    /// second input gives the same bytes and a server-rendered edit still commits. (Before,
    /// each decoded the original again: a second or so for a 12 MP HEIC.)
    func testTheEditingBaseIsRenderedOnceThenComesFromTheDiskCache() async throws {
        let asset = server.assets[0]
        let cache = server.library.directory + "/cache"
        func cachedFiles() -> Int {
            // Entries are named by their key's SHA-256 (64 hex digits); others are being written.
            (FileManager.default.enumerator(atPath: cache)?.allObjects as? [String] ?? []).filter { ($0 as NSString).lastPathComponent.count == 64 }.count
        }
        XCTAssertEqual(cachedFiles(), 0, "nothing is cached before the first input")
        let first = try await library.requestContentEditingInput(for: asset, canHandle: Self.ours)
        // The disk cache writes in the background.
        let deadline = Date().addingTimeInterval(20)
        while cachedFiles() == 0 && Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
        XCTAssertEqual(cachedFiles(), 1, "the base is in the disk cache")

        let record = try XCTUnwrap(try server.library.resources(forAsset: asset).first { $0.type == .photo })
        let original = record.path.hasPrefix("/") ? record.path : server.library.directory + "/" + record.path
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: original)
        try Data(repeating: 0x5A, count: 4096).write(to: URL(fileURLWithPath: original))

        let second = try await library.requestContentEditingInput(for: asset, canHandle: Self.ours)
        XCTAssertEqual(second.fullSizeImage, first.fullSizeImage, "the same base, from the cache")
        var output = ContentEditingOutput(input: second.input)
        output.adjustmentData = FilterRecipe([.filter(.chrome, intensity: 1)]).adjustmentData
        try await library.commitContentEdit(output)
        let render = try JPEGInspector.validate(try await resource(asset, .fullSizePhoto))
        XCTAssertEqual([render.storedWidth, render.storedHeight], [640, 360], "the server rendered the recipe on the cached base")
    }

    func testAClientRendersAHEICEditOnTheJPEGItIsGivenAndTheServerAgrees() async throws {
        let asset = server.assets[0]
        let heic = try Fixtures.bytes(at: Self.heic)
        let input = try await library.requestContentEditingInput(for: asset, canHandle: Self.ours, displaySize: 128)
        // The input is the HEIC's editing base: a JPEG, upright, of the asset's size.
        XCTAssertEqual(input.input.base, .original)
        XCTAssertEqual(input.input.uniformTypeIdentifier, "public.jpeg")
        XCTAssertEqual(input.input.fullSizeImageOrientation, 1)
        XCTAssertEqual(input.input.byteCount, input.fullSizeImage.count)
        XCTAssertEqual(Array(input.fullSizeImage.prefix(3)), [0xFF, 0xD8, 0xFF], "a JPEG, not the HEIC")
        let base = try JPEGInspector.validate(input.fullSizeImage)
        XCTAssertEqual(base.orientation, 1)
        XCTAssertEqual([base.storedWidth, base.storedHeight], [640, 360], "the HEIC's upright size")
        XCTAssertTrue(isRed(try rgb(input.fullSizeImage, 1, 1)), "upright: the marker is top-left")
        let display = try JPEGInspector.validate(try XCTUnwrap(input.displaySizeImage))
        XCTAssertEqual(max(display.pixelWidth, display.pixelHeight), 128)

        // The client renders the recipe on it, as `photolib edit ID --filter …` does, and commits.
        let recipe = FilterRecipe([
            .filter(.sepia, intensity: 0.75), .crop(NormalizedRect(x: 0.1, y: 0, width: 0.7, height: 0.9)), .rotate(quarterTurns: 1),
        ])
        var output = ContentEditingOutput(input: input.input)
        output.adjustmentData = recipe.adjustmentData
        output.renderedJPEGData = try recipe.renderedJPEG(from: input.fullSizeImage)
        try await library.commitContentEdit(output)
        let served = try await resource(asset, .fullSizePhoto)
        XCTAssertEqual(served, output.renderedJPEGData, "the client's render is the one committed")
        let size = try JPEGInspector.validate(served)
        // 0.7 × 640 wide, 0.9 × 360 high (each edge rounded to a pixel), then turned.
        XCTAssertEqual(size.storedWidth, 324, "the crop of 640x360, turned")
        XCTAssertEqual(Double(size.storedHeight), 448, accuracy: 1, "the crop of 640x360, turned")

        // Re-editing handling the format: the same base again, with the recipe to apply first.
        let again = try await library.requestContentEditingInput(for: asset, canHandle: Self.ours)
        XCTAssertEqual(again.input.base, .original)
        XCTAssertEqual(try again.input.adjustmentData.map(FilterRecipe.init(adjustmentData:)), recipe)
        XCTAssertEqual(again.fullSizeImage, input.fullSizeImage, "the editing base is the same bytes every time")
        // The server's render of the same recipe is the client's, byte for byte.
        var serverSide = ContentEditingOutput(input: again.input)
        serverSide.adjustmentData = recipe.adjustmentData
        try await library.commitContentEdit(serverSide)
        let serverRender = try await resource(asset, .fullSizePhoto)
        XCTAssertEqual(serverRender, output.renderedJPEGData, "a HEIC's recipe renders to the same bytes on either side")

        // A client given the HEIC itself (as an older server did) is told why it cannot render.
        do {
            _ = try recipe.renderedJPEG(from: heic)
            XCTFail("the client does not decode HEIC")
        } catch {
            XCTAssertEqual(error.code, .failedPrecondition)
            XCTAssertTrue(error.message.contains("HEIC"), error.message)
        }

        try await library.revertAssetContentToOriginal([asset])
        let photo = try await resource(asset, .photo)
        XCTAssertEqual(photo, heic, "the HEIC is untouched")
    }
}
