import Foundation
import PhotoLibCore
import PhotoLibTestSupport
import Testing
@testable import PhotoLibStore

@Suite("Content editing: commit, re-edit, conflicts and revert, the original untouched")
struct ContentEditingTests {
    static let recipe = AdjustmentData(formatIdentifier: "com.example.editor", formatVersion: "2.1", data: Array("sepia 0.5".utf8))
    static let handles = [AdjustmentFormat(formatIdentifier: "com.example.editor", formatVersion: "2.*")]

    /// A library with one asset, and a staged "render" (other JPEG bytes) the size of its original.
    struct Fixture {
        let temp: TestDirectory
        let library: PhotoLibrary
        let asset: Asset
        let originalBytes: [UInt8]

        init() throws {
            temp = try TestDirectory()
            library = try PhotoLibrary.open(at: temp.library)
            originalBytes = try SamplePhotos.uniqueBytes(0)
            asset = try library.addPhoto(originalBytes, metadata: SamplePhotos.metadata()).asset
        }

        /// Stages a render of `index`'s bytes claiming `size` (the store trusts the intake's reading).
        func stageRender(_ index: Int, size: PixelSize? = nil) throws -> String {
            let size = size ?? PixelSize(width: asset.pixelWidth, height: asset.pixelHeight)
            var metadata = SamplePhotos.metadata("render.jpg")
            metadata.pixelWidth = size.width
            metadata.pixelHeight = size.height
            return try library.stageUpload(try SamplePhotos.uniqueBytes(100 + index), metadata: metadata).uploadID
        }

        func commit(session: String, render: String?, adjustment: AdjustmentData = ContentEditingTests.recipe) throws(PhotoLibError) -> ChangeResult {
            try library.performChanges([.commitContentEdit(ContentEdit(
                asset: asset.localIdentifier, editingSessionID: session, adjustmentData: adjustment, renderedUploadID: render))])
        }

        /// The original's upright size.
        var originalSize: PixelSize { PixelSize(width: asset.pixelWidth, height: asset.pixelHeight) }

        /// Edits the asset from a fresh input with a render of `size` that the recipe is
        /// declared to give (as for a recipe that crops).
        func commitResized(_ index: Int, to size: PixelSize) throws {
            let session = try library.contentEditingInput(forAsset: asset.localIdentifier, canHandle: ContentEditingTests.handles).input.editingSessionID
            _ = try library.performChanges([.commitContentEdit(ContentEdit(
                asset: asset.localIdentifier, editingSessionID: session, adjustmentData: ContentEditingTests.recipe,
                renderedUploadID: try stageRender(index, size: size), expectedSize: size))])
        }

        func types() throws -> [AssetResourceType] {
            try library.resources(forAsset: asset.localIdentifier).map(\.type).sorted { $0.rawValue < $1.rawValue }
        }

        func originalDigest() throws -> String {
            let path = try library.resources(forAsset: asset.localIdentifier).first { $0.type == .photo }!.path
            return PhotoLibrary.sha256Hex([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        }
    }

    @Test("an unedited asset: the input is the original, and a commit makes an edit without touching it")
    func firstEdit() throws {
        let f = try Fixture()
        defer { f.temp.cleanUp() }
        let digest = try f.originalDigest()
        let input = try f.library.contentEditingInput(forAsset: f.asset.localIdentifier, canHandle: Self.handles)
        #expect(input.input.base == .original && input.input.adjustmentData == nil)
        #expect(input.file.type == .photo && input.input.byteCount == f.originalBytes.count)
        let result = try f.commit(session: input.input.editingSessionID, render: try f.stageRender(0))
        #expect(result.changes == [ObjectChange(objectType: .asset, identifier: f.asset.localIdentifier, kind: .updated, assetContentChanged: true)])
        #expect(try f.types() == [.photo, .fullSizePhoto, .adjustmentData])
        #expect(try f.library.asset(withIdentifier: f.asset.localIdentifier)?.hasAdjustments == true)
        #expect(try f.originalDigest() == digest, "the original's bytes never change")
        let records = try f.library.imageSourceRecords(forAsset: f.asset.localIdentifier)
        #expect(records.resources.contains { $0.type == .fullSizePhoto } && records.generation == 1)
    }

    @Test("re-edit: a client that handles the format gets the original and the recipe; one that does not gets the render")
    func reEdit() throws {
        let f = try Fixture()
        defer { f.temp.cleanUp() }
        let first = try f.library.contentEditingInput(forAsset: f.asset.localIdentifier, canHandle: [])
        _ = try f.commit(session: first.input.editingSessionID, render: try f.stageRender(0))
        let handling = try f.library.contentEditingInput(forAsset: f.asset.localIdentifier, canHandle: Self.handles)
        #expect(handling.input.base == .original && handling.input.adjustmentData == Self.recipe && handling.file.type == .photo)
        let other = try f.library.contentEditingInput(forAsset: f.asset.localIdentifier, canHandle: [AdjustmentFormat(formatIdentifier: "org.other", formatVersion: "*")])
        #expect(other.input.base == .current && other.input.adjustmentData == nil && other.file.type == .fullSizePhoto)
        #expect(other.input.fullSizeImageOrientation == 1, "renders are upright")
        // An edit built on the render keeps it as the base photo.
        _ = try f.commit(session: other.input.editingSessionID, render: try f.stageRender(1))
        #expect(try f.types() == [.photo, .fullSizePhoto, .adjustmentData, .adjustmentBasePhoto])
    }

    @Test("a session from before another edit is refused with ABORTED and changes nothing")
    func staleSession() throws {
        let f = try Fixture()
        defer { f.temp.cleanUp() }
        let stale = try f.library.contentEditingInput(forAsset: f.asset.localIdentifier, canHandle: [])
        _ = try f.commit(session: stale.input.editingSessionID, render: try f.stageRender(0))
        let before = try f.library.resources(forAsset: f.asset.localIdentifier)
        let render = try f.stageRender(1)
        let error = thrownError { () throws(PhotoLibError) in _ = try f.commit(session: stale.input.editingSessionID, render: render) }
        #expect(error?.code == .aborted)
        #expect(error?.message.contains("was edited since this input was requested") == true, "\(String(describing: error))")
        #expect(try f.library.resources(forAsset: f.asset.localIdentifier) == before)
        let garbage = thrownError { () throws(PhotoLibError) in _ = try f.commit(session: "yesterday", render: render) }
        #expect(garbage?.code == .invalidArgument)
    }

    @Test("a render of the wrong size, or no render for a foreign format, is refused")
    func badRenders() throws {
        let f = try Fixture()
        defer { f.temp.cleanUp() }
        let session = try f.library.contentEditingInput(forAsset: f.asset.localIdentifier, canHandle: []).input.editingSessionID
        let small = try f.stageRender(0, size: PixelSize(width: 100, height: 50))
        let wrongSize = thrownError { () throws(PhotoLibError) in _ = try f.commit(session: session, render: small) }
        #expect(wrongSize?.code == .invalidArgument && wrongSize?.reason == .invalidImage, "\(String(describing: wrongSize))")
        let noRender = thrownError { () throws(PhotoLibError) in _ = try f.commit(session: session, render: nil) }
        #expect(noRender?.code == .invalidArgument)
        let tooBig = AdjustmentData(formatIdentifier: "com.example.editor", formatVersion: "1", data: Array(repeating: 1, count: 64 * 1024 + 1))
        let render = try f.stageRender(1)
        let big = thrownError { () throws(PhotoLibError) in _ = try f.commit(session: session, render: render, adjustment: tooBig) }
        #expect(big?.code == .invalidArgument)
        #expect(try f.types() == [.photo])
        #expect(try f.library.asset(withIdentifier: f.asset.localIdentifier)?.hasAdjustments == false)
    }

    @Test("revert removes the edit and its files; reverting an unedited asset is a no-op; purging removes edit files")
    func revertAndPurge() throws {
        let f = try Fixture()
        defer { f.temp.cleanUp() }
        let session = try f.library.contentEditingInput(forAsset: f.asset.localIdentifier, canHandle: []).input.editingSessionID
        _ = try f.commit(session: session, render: try f.stageRender(0))
        let editFiles = try f.library.resources(forAsset: f.asset.localIdentifier).filter { $0.type != .photo }.map(\.path)
        #expect(editFiles.allSatisfy { FileManager.default.fileExists(atPath: $0) })
        let reverted = try f.library.performChanges([.revertAssetContent(f.asset.localIdentifier)])
        #expect(reverted.changes.first?.assetContentChanged == true)
        #expect(try f.types() == [.photo])
        #expect(try f.library.asset(withIdentifier: f.asset.localIdentifier)?.hasAdjustments == false)
        #expect(editFiles.allSatisfy { !FileManager.default.fileExists(atPath: $0) }, "the edit's files are gone")
        let again = try f.library.performChanges([.revertAssetContent(f.asset.localIdentifier)])
        #expect(again.changes.isEmpty, "reverting an unedited asset changes nothing")
        // Edit again, then purge: every file of the asset goes.
        let next = try f.library.contentEditingInput(forAsset: f.asset.localIdentifier, canHandle: []).input.editingSessionID
        _ = try f.commit(session: next, render: try f.stageRender(1))
        let all = try f.library.resources(forAsset: f.asset.localIdentifier).map(\.path)
        _ = try f.library.performChanges([.deleteAssets([f.asset.localIdentifier])])
        _ = try f.library.performChanges([.purgeAssets([f.asset.localIdentifier])])
        #expect(all.allSatisfy { !FileManager.default.fileExists(atPath: $0) })
    }

    @Test("an edited asset's size is its render's (PHAsset.pixelWidth); a re-edit of the original expects the original's size; a revert brings it back")
    func currentVersionSize() throws {
        let f = try Fixture()
        defer { f.temp.cleanUp() }
        let original = f.originalSize
        let cropped = PixelSize(width: original.width / 2, height: original.height / 3)
        func size() throws -> PixelSize? {
            try f.library.asset(withIdentifier: f.asset.localIdentifier).map { PixelSize(width: $0.pixelWidth, height: $0.pixelHeight) }
        }
        // A cropping edit.
        try f.commitResized(0, to: cropped)
        #expect(try size() == cropped)
        #expect(try f.library.countAssets(try AssetQuery.from(options: FetchOptions(predicate: "pixelWidth == \(cropped.width)"))) == 1, "predicates see the current size")
        // A re-edit from the original without a size of its own must keep the original's size,
        // not the current one.
        let second = try f.library.contentEditingInput(forAsset: f.asset.localIdentifier, canHandle: Self.handles).input
        #expect(second.base == .original)
        _ = try f.commit(session: second.editingSessionID, render: try f.stageRender(1, size: original))
        #expect(try size() == original)
        try f.commitResized(2, to: cropped)
        #expect(try size() == cropped)
        _ = try f.library.performChanges([.revertAssetContent(f.asset.localIdentifier)])
        #expect(try size() == original, "a revert brings back the original's size")
    }

    @Test("an edit made before schema 9 keeps the original's size until its render's size is recorded, which the change log lists")
    func olderEditsAreSized() throws {
        let f = try Fixture()
        defer { f.temp.cleanUp() }
        let original = f.originalSize
        let cropped = PixelSize(width: original.width / 2, height: original.height / 2)
        try f.commitResized(0, to: cropped)
        #expect(try f.library.unsizedEdits(limit: 10).isEmpty, "a new edit records its size")
        // As an older build left it: the original's size on the asset, the row not sized.
        try f.library.write { (database) throws(PhotoLibError) in
            try database.execute("UPDATE asset SET pixel_width = \(original.width), pixel_height = \(original.height)")
            try database.execute("UPDATE asset_adjustment SET sized = 0")
        }
        let unsized = try f.library.unsizedEdits(limit: 10)
        #expect(unsized.map(\.assetIdentifier) == [f.asset.localIdentifier])
        #expect(unsized.first?.renderPath == (try f.library.resources(forAsset: f.asset.localIdentifier).first { $0.type == .fullSizePhoto }?.path))
        let result = try f.library.recordEditedSizes([(f.asset.localIdentifier, cropped)])
        #expect(result?.changes.map(\.identifier) == [f.asset.localIdentifier])
        #expect(try f.library.asset(withIdentifier: f.asset.localIdentifier)?.pixelWidth == cropped.width)
        #expect(try f.library.unsizedEdits(limit: 10).isEmpty)
        #expect(try f.library.recordEditedSizes([(f.asset.localIdentifier, original)]) == nil, "a sized edit is left as it is")
        _ = try f.library.performChanges([.revertAssetContent(f.asset.localIdentifier)])
        #expect(try f.library.asset(withIdentifier: f.asset.localIdentifier)?.pixelWidth == original.width, "the original's size, kept by the migration")
    }

    @Test("an editor that cannot read the recipe edits the current render: its render keeps that render's size, and its recipe is never offered on the original")
    func editOfTheCurrentRender() throws {
        let f = try Fixture()
        defer { f.temp.cleanUp() }
        let cropped = PixelSize(width: f.originalSize.width / 2, height: f.originalSize.height / 2)
        try f.commitResized(0, to: cropped)
        // A foreign editor gets the cropped render; a render of the original's size is refused
        // (it was the only size accepted), one of the render's size commits.
        let foreign = [AdjustmentFormat(formatIdentifier: "com.example.other", formatVersion: "1")]
        let input = try f.library.contentEditingInput(forAsset: f.asset.localIdentifier, canHandle: foreign).input
        #expect(input.base == .current && input.adjustmentData == nil)
        let other = AdjustmentData(formatIdentifier: "com.example.other", formatVersion: "1", data: Array("flip".utf8))
        let wrong = #expect(throws: PhotoLibError.self) {
            _ = try f.commit(session: input.editingSessionID, render: try f.stageRender(1, size: f.originalSize), adjustment: other)
        }
        #expect(wrong?.code == .invalidArgument && wrong?.message.contains("the render it was made from") == true, "\(String(describing: wrong))")
        _ = try f.commit(session: input.editingSessionID, render: try f.stageRender(2, size: cropped), adjustment: other)
        #expect(try f.types() == [.photo, .fullSizePhoto, .adjustmentData, .adjustmentBasePhoto])
        // Its recipe applies to that render, not to the original: an editor that reads it
        // still gets the current render, without the recipe.
        let again = try f.library.contentEditingInput(forAsset: f.asset.localIdentifier, canHandle: foreign).input
        #expect(again.base == .current && again.adjustmentData == nil)
    }

    @Test("a render that is not a JPEG is refused")
    func renderMustBeAJPEG() throws {
        let f = try Fixture()
        defer { f.temp.cleanUp() }
        let session = try f.library.contentEditingInput(forAsset: f.asset.localIdentifier, canHandle: []).input.editingSessionID
        var metadata = SamplePhotos.metadata("render.png")
        metadata.pixelWidth = f.asset.pixelWidth
        metadata.pixelHeight = f.asset.pixelHeight
        metadata.fileType = .png
        let png = try f.library.stageUpload(try Fixtures.bytes(at: Fixtures.path("Tests/Fixtures/media/png_alpha.png")), metadata: metadata).uploadID
        let error = #expect(throws: PhotoLibError.self) { _ = try f.commit(session: session, render: png) }
        #expect(error?.code == .invalidArgument && error?.reason == .invalidImage, "\(String(describing: error))")
        #expect(try f.types() == [.photo], "nothing was committed")
    }
}
