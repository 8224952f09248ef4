import Crypto
import Foundation
import PhotoLibCore
import PhotoLibTestSupport
import Testing
@testable import PhotoLibStore

/// Videos enter from their file through a bounded buffer (``PhotoLibrary/addVideo(fileAt:metadata:pairingWith:bufferSize:)``)
/// and have their own size limit; photos keep the in-memory path and its limit.
@Suite("Video import from a file: streamed, hashed on the way, limited apart from photos")
struct VideoFileImportTests {
    static let movie = Fixtures.path("Tests/Fixtures/media/video-rotated-gps.mov")
    static let still = Fixtures.path("Tests/Fixtures/media/jpeg_live_still.jpg")

    /// What the caller (PhotoIntake) would have read from the movie; the store does not inspect it.
    static func movieMetadata(_ name: String = "IMG_0004.MOV") -> ImportMetadata {
        ImportMetadata(
            originalFilename: name, pixelWidth: 64, pixelHeight: 48, creationDate: Date(timeIntervalSince1970: 1_600_000_000),
            mediaType: .video, fileType: .quickTimeMovie, duration: 1)
    }

    static func stillMetadata() -> ImportMetadata {
        ImportMetadata(originalFilename: "IMG_0002.JPG", pixelWidth: 64, pixelHeight: 48, creationDate: Date(timeIntervalSince1970: 1_600_000_000))
    }

    @Test("a movie copied through a buffer far smaller than it is byte-identical in the library, with the SHA-256 of the in-memory path",
          arguments: [1, 7, 4096, PhotoLibrary.defaultCopyBufferSize])
    func smallBuffer(bufferSize: Int) throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let bytes = try Fixtures.bytes(at: Self.movie)
        #expect(bytes.count > 3 * 4096, "the fixture spans several buffers of 4 KiB")
        let streamed = try PhotoLibrary.open(at: temp.path + "/Streamed")
        guard case .added(let asset) = try streamed.addVideo(fileAt: Self.movie, metadata: Self.movieMetadata(), bufferSize: bufferSize) else {
            Issue.record("the movie was not added")
            return
        }
        #expect(asset.mediaType == .video)
        let resource = try streamed.originalResource(forAsset: asset.localIdentifier)
        #expect(try Fixtures.bytes(at: resource.path) == bytes, "the library's copy is the file, byte for byte")
        #expect(resource.byteSize == bytes.count)
        #expect(resource.sha256 == SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined())

        // The in-memory path names the same bytes the same way: in another library, and as a
        // duplicate in this one.
        let inMemory = try PhotoLibrary.open(at: temp.path + "/InMemory")
        guard case .added(let other) = try inMemory.addPhoto(bytes, metadata: Self.movieMetadata()) else {
            Issue.record("the in-memory import did not add the movie")
            return
        }
        #expect(try inMemory.originalResource(forAsset: other.localIdentifier).sha256 == resource.sha256)
        guard case .alreadyPresent(let same) = try streamed.addPhoto(bytes, metadata: Self.movieMetadata("copy.mov")) else {
            Issue.record("the same bytes from memory were added again")
            return
        }
        #expect(same.localIdentifier == asset.localIdentifier)
        #expect(regularFiles(under: temp.path + "/Streamed/tmp").isEmpty, "no copy left in tmp/")
    }

    @Test("the same movie imported again from its file is already present and leaves no copy behind")
    func duplicate() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let library = try PhotoLibrary.open(at: temp.library)
        let first = try library.addVideo(fileAt: Self.movie, metadata: Self.movieMetadata(), bufferSize: 1000)
        let second = try library.addVideo(fileAt: Self.movie, metadata: Self.movieMetadata("again.mov"), bufferSize: 1000)
        guard case .added(let asset) = first, case .alreadyPresent(let again) = second else {
            Issue.record("expected added then already present, got \(first) and \(second)")
            return
        }
        #expect(again.localIdentifier == asset.localIdentifier)
        #expect(regularFiles(under: temp.library + "/originals").count == 1)
        #expect(regularFiles(under: temp.library + "/tmp").isEmpty)
    }

    @Test("a movie joins its still as a Live Photo from its file, either order")
    func livePhotoPairing() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let stillBytes = try Fixtures.bytes(at: Self.still)
        // Still first: the movie names it as its partner.
        let first = try PhotoLibrary.open(at: temp.path + "/StillFirst")
        let still = try first.addPhoto(stillBytes, metadata: Self.stillMetadata()).asset
        let paired = try first.addVideo(fileAt: Self.movie, metadata: Self.movieMetadata(), pairingWith: still.localIdentifier, bufferSize: 512)
        #expect(paired.asset.localIdentifier == still.localIdentifier && paired.asset.mediaSubtypes.contains(.photoLive))
        // Movie first: the still takes the video asset over (same content identifier).
        let second = try PhotoLibrary.open(at: temp.path + "/MovieFirst")
        var movieMetadata = Self.movieMetadata()
        movieMetadata.contentIdentifier = "5B1C1D0E-PAIR"
        var stillMetadata = Self.stillMetadata()
        stillMetadata.contentIdentifier = "5B1C1D0E-PAIR"
        let movie = try second.addVideo(fileAt: Self.movie, metadata: movieMetadata, bufferSize: 512).asset
        let joined = try second.addPhoto(stillBytes, metadata: stillMetadata).asset
        #expect(joined.localIdentifier == movie.localIdentifier && joined.mediaType == .image && joined.mediaSubtypes.contains(.photoLive))
    }

    @Test("a video larger than the photo limit is imported and uploaded; a photo of that size is refused by both")
    func separateLimits() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let movieBytes = try Fixtures.bytes(at: Self.movie)
        let stillBytes = try Fixtures.bytes(at: Self.still)
        let photoLimit = 5000
        #expect(stillBytes.count > photoLimit && movieBytes.count > photoLimit)
        let library = try PhotoLibrary.open(at: temp.library, importLimits: ImportLimits(photoBytes: photoLimit))

        guard case .added = try library.addVideo(fileAt: Self.movie, metadata: Self.movieMetadata()) else {
            Issue.record("the video over the photo limit was not imported")
            return
        }
        let photo = expectError { () throws(PhotoLibError) in _ = try library.addPhoto(stillBytes, metadata: Self.stillMetadata()) }
        #expect(photo.code == .invalidArgument && photo.message.contains("\(photoLimit)"), "\(photo.message)")

        // Uploads: the size is announced first; the first bytes then say photo or video.
        let spool = try library.beginUpload(size: movieBytes.count)
        for start in stride(from: 0, to: movieBytes.count, by: 1000) {
            try spool.append(Array(movieBytes[start..<min(start + 1000, movieBytes.count)]))
        }
        let upload = try library.stageUpload(spool, metadata: Self.movieMetadata())
        #expect(upload.size == movieBytes.count && upload.existingAssetIdentifier != nil)
        let photoSpool = try library.beginUpload(size: stillBytes.count)
        let uploaded = expectError { () throws(PhotoLibError) in try photoSpool.append(Array(stillBytes.prefix(1000))) }
        #expect(uploaded.code == .resourceExhausted && uploaded.message.contains("a photo may have"), "\(uploaded.message)")
        photoSpool.discard()

        // The video limit holds too, for imports and uploads.
        let small = try PhotoLibrary.open(at: temp.path + "/Small", importLimits: ImportLimits(photoBytes: 1000, videoBytes: 10_000))
        let video = expectError { () throws(PhotoLibError) in _ = try small.addVideo(fileAt: Self.movie, metadata: Self.movieMetadata()) }
        #expect(video.code == .invalidArgument && video.message.contains("10000"), "\(video.message)")
        let announced = expectError { () throws(PhotoLibError) in _ = try small.beginUpload(size: movieBytes.count) }
        #expect(announced.code == .resourceExhausted, "\(announced.message)")
        #expect(regularFiles(under: temp.path + "/Small/originals").isEmpty && regularFiles(under: temp.path + "/Small/tmp").isEmpty)
    }

    @Test("a video limit under the photo limit is refused when the library opens")
    func videoLimitUnderPhotoLimit() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let refused = expectError { () throws(PhotoLibError) in
            _ = try PhotoLibrary.open(at: temp.library, importLimits: ImportLimits(photoBytes: 10_000, videoBytes: 9_999))
        }
        #expect(refused.code == .invalidArgument && refused.message.contains("under the photo limit"), "\(refused.message)")
        _ = try PhotoLibrary.open(at: temp.library, importLimits: ImportLimits(photoBytes: 10_000, videoBytes: 10_000))
    }

    @Test("a file whose first bytes are not the movie its metadata names is refused before it is copied, and a photo is not taken from a file")
    func wrongType() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let library = try PhotoLibrary.open(at: temp.library)
        let notMovie = expectError { () throws(PhotoLibError) in
            _ = try library.addVideo(fileAt: Self.still, metadata: Self.movieMetadata(), bufferSize: 4)
        }
        #expect(notMovie.code == .invalidArgument && notMovie.message.contains("first bytes"), "\(notMovie.message)")
        let photo = expectError { () throws(PhotoLibError) in _ = try library.addVideo(fileAt: Self.still, metadata: Self.stillMetadata()) }
        #expect(photo.code == .invalidArgument, "\(photo.message)")
        let missing = expectError { () throws(PhotoLibError) in
            _ = try library.addVideo(fileAt: temp.path + "/nothing.mov", metadata: Self.movieMetadata())
        }
        #expect(missing.code == .notFound, "\(missing.message)")
        #expect(regularFiles(under: temp.library + "/originals").isEmpty && regularFiles(under: temp.library + "/tmp").isEmpty)
    }
}
