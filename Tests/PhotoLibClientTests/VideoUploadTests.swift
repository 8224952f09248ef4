import Foundation
import PhotoLibClient
import PhotoLibServerTestSupport
import PhotoLibTestSupport
import XCTest

/// Videos and Live Photos through the wire: uploaded, paired (in one batch by name, or in two
/// uploads by content identifier, either order), their images are poster frames, and their
/// `video` / `pairedVideo` resources stream byte for byte from any offset.
final class VideoUploadTests: XCTestCase {
    private static func media(_ name: String) throws -> [UInt8] {
        try Fixtures.bytes(at: Fixtures.path("Tests/Fixtures/media/" + name))
    }

    private func create(_ uploads: [Upload], in library: PhotoLibrary) async throws -> [String] {
        var placeholders: [ObjectPlaceholder] = []
        let result = try await library.performChanges { batch in placeholders = uploads.map { batch.createAsset(from: $0) } }
        return try placeholders.map { try XCTUnwrap(result.localIdentifier(for: $0)) }
    }

    private func resource(_ type: AssetResourceType, of id: String, in library: PhotoLibrary) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        for try await chunk in try await AssetResourceManager(library: library).requestData(for: id, type: type) { bytes += chunk.data }
        return bytes
    }

    func testAVideoUploadIsAVideoAssetWithAnUprightPosterAndAStreamableOriginal() async throws {
        let server = try InProcessServer()
        addTeardownBlock { await server.tearDown() }
        let library = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: server.token)
        defer { library.close() }
        let movie = try Self.media("video-rotated-gps.mov")
        let id = try await create([try await library.upload(movie, filename: "IMG_0004.MOV")], in: library)[0]
        let fetched = try await library.fetchAssets(withLocalIdentifiers: [id]).firstObject
        let asset = try XCTUnwrap(fetched)
        XCTAssertEqual(asset.mediaType, .video)
        XCTAssertEqual([asset.pixelWidth, asset.pixelHeight], [240, 320], "upright after the 90° rotation")
        XCTAssertEqual(asset.duration, 2, accuracy: 0.1)
        XCTAssertNotNil(asset.location)
        let resources = try await AssetResourceManager(library: library).assetResources(for: id)
        XCTAssertEqual(resources.map(\.type), [.video])
        XCTAssertEqual(resources.first?.uniformTypeIdentifier, "com.apple.quicktime-movie")

        // requestImage on a video: its poster frame, upright, at any size.
        for (target, expected) in [(PixelSize(width: 64, height: 64), [48, 64]), (PixelSize(width: 0, height: 0), [240, 320])] {
            let image = try await library.imageManager.image(
                forAssetIdentifier: id, targetSize: target, options: ImageRequestOptions(deliveryMode: .opportunistic, resizeMode: .exact))
            XCTAssertEqual(Array(image.data.prefix(3)), [0xFF, 0xD8, 0xFF])
            XCTAssertEqual([image.width, image.height], expected)
        }
        do {
            _ = try await AssetResourceManager(library: library).requestVideoData(
                for: try await create([try await library.upload(try Self.media("webp_photo.webp"), filename: "p.webp")], in: library)[0])
            XCTFail("a photo has no movie")
        } catch let error as PhotoLibError {
            XCTAssertEqual(error.code, .invalidArgument)
        }
        // A video has no edit to revert: a no-op, as for an unedited photo (it failed, naming
        // the asset's row id).
        try await library.revertAssetContentToOriginal([id])
        let reverted = try await library.fetchAssets(withLocalIdentifiers: [id]).firstObject
        XCTAssertEqual(reverted?.hasAdjustments, false)
        // The original streams as it came, and from an offset (a player seeking).
        let whole = try await resource(.video, of: id, in: library)
        XCTAssertTrue(whole == movie, "the video, byte for byte")
        var tail: [UInt8] = []
        for try await chunk in try await AssetResourceManager(library: library).requestData(for: id, type: .video, offset: 10_000) { tail += chunk.data }
        XCTAssertTrue(tail == Array(movie[10_000...]), "a range read from byte 10,000")
        let videos = try await library.fetchAssets(in: LocalIdentifier.smartAlbum(.smartAlbumVideos)).count
        XCTAssertEqual(videos, 1)
    }

    func testAVideoFileLargerThanThePhotoLimitUploadsFromItsFileAndAPhotoThatLargeIsRefused() async throws {
        let photoLimit = 5000
        let server = try InProcessServer(maximumPhotoBytes: photoLimit)
        addTeardownBlock { await server.tearDown() }
        let library = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: server.token)
        defer { library.close() }
        let moviePath = Fixtures.path("Tests/Fixtures/media/video-rotated-gps.mov")
        let movie = try Self.media("video-rotated-gps.mov")
        XCTAssertGreaterThan(movie.count, photoLimit)
        let progress = ProgressLog()
        let upload = try await library.upload(fileAt: moviePath) { sent, total in progress.record(sent, total) }
        XCTAssertEqual(upload.size, movie.count)
        XCTAssertEqual(progress.last, [movie.count, movie.count])
        let id = try await create([upload], in: library)[0]
        let fetched = try await library.fetchAssets(withLocalIdentifiers: [id]).firstObject
        let asset = try XCTUnwrap(fetched)
        XCTAssertEqual(asset.mediaType, .video)
        XCTAssertEqual([asset.pixelWidth, asset.pixelHeight], [240, 320], "inspected where it lies, upright")
        let resources = try await AssetResourceManager(library: library).assetResources(for: id)
        XCTAssertEqual(resources.first?.originalFilename, "video-rotated-gps.mov")
        let stored = try await resource(.video, of: id, in: library)
        XCTAssertTrue(stored == movie, "the video, byte for byte")

        let still = Fixtures.path("Tests/Fixtures/media/jpeg_live_still.jpg")
        XCTAssertGreaterThan(try Fixtures.bytes(at: still).count, photoLimit)
        do {
            _ = try await library.upload(fileAt: still)
            XCTFail("a photo over the photo limit was staged")
        } catch let error as PhotoLibError {
            XCTAssertEqual(error.code, .resourceExhausted, error.message)
            XCTAssertTrue(error.message.contains("a photo may have"), error.message)
        }
    }

    func testALivePhotoPairsInOneBatchByNameAndInTwoUploadsByContentIdentifier() async throws {
        let server = try InProcessServer()
        addTeardownBlock { await server.tearDown() }
        let library = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: server.token)
        defer { library.close() }

        // One batch: a still and a movie with the same base name and no content identifiers.
        let still = try Self.media("heic_thumbnail.heic"), movie = try Self.media("live-IMG_0003.mov")
        let ids = try await create(
            [try await library.upload(still, filename: "IMG_0003.HEIC"), try await library.upload(movie, filename: "IMG_0003.MOV")], in: library)
        XCTAssertEqual(ids[0], ids[1], "both placeholders name the one Live Photo")
        var fetched = try await library.fetchAssets(withLocalIdentifiers: [ids[0]]).firstObject
        var asset = try XCTUnwrap(fetched)
        XCTAssertEqual(asset.mediaType, .image)
        XCTAssertTrue(asset.mediaSubtypes.contains(.photoLive))
        let pairedVideo = try await resource(.pairedVideo, of: ids[0], in: library)
        XCTAssertTrue(pairedVideo == movie, "the paired video, byte for byte")
        // requestAVAsset's equivalent finds a Live Photo's movie, and seeks.
        let (found, chunks) = try await AssetResourceManager(library: library).requestVideoData(for: ids[0], offset: 100)
        var seeked: [UInt8] = []
        for try await chunk in chunks { seeked += chunk.data }
        XCTAssertEqual(found.type, .pairedVideo)
        XCTAssertTrue(seeked == Array(movie[100...]), "the movie from byte 100")

        // Two uploads in two batches, the movie first: the still takes the video asset over.
        let liveMovie = try Self.media("live-IMG_0002.mov")
        let videoID = try await create([try await library.upload(liveMovie, filename: "IMG_0002.MOV")], in: library)[0]
        let before = try await library.fetchAssets(withLocalIdentifiers: [videoID]).firstObject?.mediaType
        XCTAssertEqual(before, .video)
        let stillID = try await create([try await library.upload(try Self.media("jpeg_live_still.jpg"), filename: "P1000.JPG")], in: library)[0]
        XCTAssertEqual(stillID, videoID, "one asset, found by the shared content identifier")
        fetched = try await library.fetchAssets(withLocalIdentifiers: [videoID]).firstObject
        asset = try XCTUnwrap(fetched)
        XCTAssertEqual(asset.mediaType, .image)
        XCTAssertTrue(asset.mediaSubtypes.contains(.photoLive))
        XCTAssertEqual([asset.pixelWidth, asset.pixelHeight], [120, 180])
        let types = try await AssetResourceManager(library: library).assetResources(for: videoID).map(\.type)
        XCTAssertEqual(Set(types), [.photo, .pairedVideo])
        let image = try await library.imageManager.image(
            forAssetIdentifier: videoID, targetSize: PixelSize(width: 60, height: 60), options: ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .exact))
        XCTAssertEqual([image.width, image.height], [40, 60], "a Live Photo's image is its still")

        let livePhotos = try await library.fetchAssets(in: LocalIdentifier.smartAlbum(.smartAlbumLivePhotos)).count
        let videos = try await library.fetchAssets(in: LocalIdentifier.smartAlbum(.smartAlbumVideos)).count
        XCTAssertEqual([livePhotos, videos], [2, 0])

        // The same movie uploaded again is already there: the Live Photo it belongs to.
        let again = try await library.upload(liveMovie, filename: "copy.mov")
        XCTAssertEqual(again.existingAssetIdentifier, videoID)
    }

    func testDamagedVideosAreRefusedClearly() async throws {
        let server = try InProcessServer()
        addTeardownBlock { await server.tearDown() }
        let library = try await PhotoLibrary.connect(connectedSocket: try server.connectedSocket(), token: server.token)
        defer { library.close() }
        for (name, words) in [("video-rotated-gps-truncated.mov", "truncated"), ("video-damaged-no-keyframe.mov", "keyframe")] {
            do {
                _ = try await library.upload(try Self.media(name), filename: name)
                XCTFail("\(name) was accepted")
            } catch let error as PhotoLibError {
                XCTAssertEqual(error.code, .invalidArgument, name)
                XCTAssertTrue(error.message.lowercased().contains(words), "\(name): \(error.message)")
            }
        }
    }
}

/// The progress reports of an upload, from whichever thread reports them.
private final class ProgressLog: @unchecked Sendable {
    /// Guards ``reports``: the progress closure may run on another thread than the test.
    private let lock = NSLock()
    private var reports: [[Int]] = []

    func record(_ sent: Int, _ total: Int) {
        lock.lock()
        reports.append([sent, total])
        lock.unlock()
    }

    var last: [Int]? {
        lock.lock()
        defer { lock.unlock() }
        return reports.last
    }
}
