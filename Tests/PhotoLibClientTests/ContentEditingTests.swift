import Foundation
import PhotoLibClient
import PhotoLibServerTestSupport
import PhotoLibTestSupport
import XCTest

/// PhotoKit's editing round trip through the client library, against the real server code
/// over the in-process transport: edit, watch, re-edit, conflict, revert, and the same
/// bytes from a client render and a server render of every filter.
final class ContentEditingTests: XCTestCase {
    private var server: InProcessServer!
    private var library: PhotoLibrary!
    /// A 640-pixel copy of the landscape, added through the client (full-size renders of a
    /// 10-megapixel photo would make the suite slow), and its bytes.
    private var asset = ""
    private var original: [UInt8] = []
    private static let ours = [AdjustmentFormat(formatIdentifier: FilterRecipe.formatIdentifier, formatVersion: FilterRecipe.formatVersion)]

    override func setUp() async throws {
        server = try InProcessServer(photos: [Fixtures.landscape])
        library = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: server.token)
        original = try await library.imageManager.image(
            forAssetIdentifier: server.assets[0], targetSize: PixelSize(width: 640, height: 640),
            options: ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .exact)).data
        let upload = try await library.upload(original, filename: "small.jpg")
        var placeholder: ObjectPlaceholder?
        let result = try await library.performChanges { batch in placeholder = batch.createAsset(from: upload) }
        asset = try XCTUnwrap(placeholder.flatMap(result.localIdentifier(for:)))
    }

    override func tearDown() async throws {
        library?.close()
        await server?.tearDown()
    }

    private func resource(_ type: AssetResourceType) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        for try await chunk in try await AssetResourceManager(library: library).requestData(for: asset, type: type) { bytes += chunk.data }
        return bytes
    }

    private func resourceTypes() async throws -> [AssetResourceType] {
        try await AssetResourceManager(library: library).assetResources(for: asset).map(\.type).sorted { $0.rawValue < $1.rawValue }
    }

    func testEditWithNoirWatchReEditAndRevert() async throws {
        // A second client watches the asset.
        let watcher = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: server.token)
        defer { watcher.close() }
        let subscription = try await watcher.subscribe()
        try await subscription.register(objects: [asset])
        let watchedFetch = try await subscription.registerFetch()
        var changes = subscription.changes.makeAsyncIterator()

        // Edit: the input is the original; render Noir locally; commit render and recipe.
        let input = try await library.requestContentEditingInput(for: asset, canHandle: Self.ours)
        XCTAssertEqual(input.input.base, .original)
        XCTAssertEqual(input.fullSizeImage, original)
        let recipe = FilterRecipe([.filter(.noir, intensity: 1)])
        var output = ContentEditingOutput(input: input.input)
        output.adjustmentData = recipe.adjustmentData
        output.renderedJPEGData = try recipe.renderedJPEG(from: input.fullSizeImage)
        try await library.commitContentEdit(output)

        let served = try await resource(.fullSizePhoto)
        XCTAssertEqual(served, output.renderedJPEGData, "the render committed is the render served")
        let servedOriginal = try await resource(.photo)
        XCTAssertEqual(servedOriginal, original, "the original is byte-identical")
        let types = try await resourceTypes()
        XCTAssertEqual(types, [.photo, .fullSizePhoto, .adjustmentData])
        let edited = try await library.fetchAssets(withLocalIdentifiers: [asset]).allObjects().first
        XCTAssertEqual(edited?.hasAdjustments, true)
        let change = try await changes.next()
        XCTAssertEqual(change?.changeDetails(forObject: asset)?.assetContentChanged, true, "the watcher sees the content change")
        let fetchChange = change?.changeDetails(for: watchedFetch)
        XCTAssertEqual(fetchChange?.changedObjects.map(\.localIdentifier), [asset])
        XCTAssertEqual(fetchChange?.contentChangedIdentifiers, [asset], "and in its fetch result, per changed object")

        // Re-edit: handling our format gives the original plus the Noir recipe; not handling it gives the render.
        let again = try await library.requestContentEditingInput(for: asset, canHandle: Self.ours)
        XCTAssertEqual(again.input.base, .original)
        XCTAssertEqual(try again.input.adjustmentData.map(FilterRecipe.init(adjustmentData:)), recipe)
        let foreign = try await library.requestContentEditingInput(for: asset, canHandle: [])
        XCTAssertEqual(foreign.input.base, .current)
        XCTAssertNil(foreign.input.adjustmentData)
        XCTAssertEqual(foreign.fullSizeImage, output.renderedJPEGData)

        // A stale session (the first input) fails with the conflict error and changes nothing.
        var stale = ContentEditingOutput(input: input.input)
        stale.adjustmentData = FilterRecipe([.filter(.sepia, intensity: 1)]).adjustmentData
        do {
            try await library.commitContentEdit(stale)
            XCTFail("a stale session must not commit")
        } catch let error as PhotoLibError {
            XCTAssertEqual(error.code, .aborted)
            XCTAssertTrue(error.message.contains("was edited since this input was requested"), error.message)
        }
        let unchanged = try await resource(.fullSizePhoto)
        XCTAssertEqual(unchanged, output.renderedJPEGData)

        // Revert: the original everywhere again, the recipe gone.
        try await library.revertAssetContentToOriginal([asset])
        let afterRevert = try await resourceTypes()
        XCTAssertEqual(afterRevert, [.photo])
        let reverted = try await library.fetchAssets(withLocalIdentifiers: [asset]).allObjects().first
        XCTAssertEqual(reverted?.hasAdjustments, false)
        let current = try await library.imageManager.image(
            forAssetIdentifier: asset, targetSize: .maximum, options: ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .none, version: .original))
        XCTAssertEqual(current.data, original)
        let revertChange = try await changes.next()
        XCTAssertEqual(revertChange?.changeDetails(forObject: asset)?.assetContentChanged, true)
        subscription.cancel()
    }

    func testServerAndClientRendersOfEveryFilterAreByteIdentical() async throws {
        for name in FilterName.allCases {
            let input = try await library.requestContentEditingInput(for: asset, canHandle: Self.ours)
            let recipe = FilterRecipe([.filter(name, intensity: 0.8), .crop(NormalizedRect(x: 0.1, y: 0, width: 0.8, height: 1)), .rotate(quarterTurns: 1)])
            // The recipe alone: the server renders it on the original.
            var output = ContentEditingOutput(input: input.input)
            output.adjustmentData = recipe.adjustmentData
            try await library.commitContentEdit(output)
            let serverRender = try await resource(.fullSizePhoto)
            let clientRender = try recipe.renderedJPEG(from: original)
            XCTAssertEqual(serverRender, clientRender, "\(name): the server's render and the client's are the same bytes")
        }
    }

    func testADisplaySizeImageComesWithTheInputWhenAskedFor() async throws {
        let input = try await library.requestContentEditingInput(for: asset, displaySize: 128)
        let display = try XCTUnwrap(input.displaySizeImage)
        XCTAssertEqual(Array(display.prefix(3)), [0xFF, 0xD8, 0xFF], "a JPEG")
        XCTAssertLessThan(display.count, input.fullSizeImage.count)
        XCTAssertEqual(input.fullSizeImage, original, "and the full-size image still follows")
        let plain = try await library.requestContentEditingInput(for: asset)
        XCTAssertNil(plain.displaySizeImage)
        do {
            _ = try await library.requestContentEditingInput(for: asset, displaySize: 10)
            XCTFail("a display size under 64 must be refused")
        } catch let error as PhotoLibError {
            XCTAssertEqual(error.code, .invalidArgument, error.message)
        }
    }

    func testBadEditsAreRefusedClearly() async throws {
        let input = try await library.requestContentEditingInput(for: asset)
        // A foreign format without a render.
        var foreign = ContentEditingOutput(input: input.input)
        foreign.adjustmentData = AdjustmentData(formatIdentifier: "com.example.editor", formatVersion: "1", data: [1])
        do {
            try await library.commitContentEdit(foreign)
            XCTFail("a foreign edit without a render must fail")
        } catch let error as PhotoLibError {
            XCTAssertEqual(error.code, .invalidArgument, error.message)
        }
        // A render of the wrong size.
        foreign.renderedJPEGData = try FilterRecipe([.crop(NormalizedRect(x: 0, y: 0, width: 0.5, height: 0.5))]).renderedJPEG(from: original)
        do {
            try await library.commitContentEdit(foreign)
            XCTFail("a render of another size must fail")
        } catch let error as PhotoLibError {
            XCTAssertEqual(error.code, .invalidArgument, error.message)
            XCTAssertEqual(error.reason, .invalidImage)
        }
        // A recipe out of range, in our format.
        var bad = ContentEditingOutput(input: input.input)
        bad.adjustmentData = AdjustmentData(formatIdentifier: FilterRecipe.formatIdentifier, formatVersion: "1", data: [0xFF, 0xFF])
        do {
            try await library.commitContentEdit(bad)
            XCTFail("an undecodable recipe must fail")
        } catch let error as PhotoLibError {
            XCTAssertEqual(error.code, .invalidArgument, error.message)
        }
        let types = try await resourceTypes()
        XCTAssertEqual(types, [.photo], "nothing was committed")
    }
}
