import Foundation
import PhotoLibCore
import PhotoLibStore
import PhotoLibTestSupport
import Testing

@testable import PhotoLibServer

@Suite("PhotoIntake: imports and uploads enter the library the same way")
struct PhotoIntakeTests {
    @Test("a photo imported, imported again, then uploaded: one asset, read from its own bytes")
    func importThenUpload() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let intake = PhotoIntake(library: try PhotoLibrary.open(at: temp.library))
        let bytes = try Fixtures.bytes(at: Fixtures.portrait)
        guard case .added(let asset) = try intake.add(bytes, filename: "wine.jpg", fallbackDate: Date(timeIntervalSince1970: 0)) else {
            Issue.record("the first import did not add the photo")
            return
        }
        // Upright size from the JPEG itself, not from the caller.
        #expect(asset.pixelWidth == 2560 && asset.pixelHeight == 3837)
        guard case .alreadyPresent(let again) = try intake.add(bytes, filename: "copy.jpg", fallbackDate: Date()) else {
            Issue.record("the same bytes were added twice")
            return
        }
        #expect(again.localIdentifier == asset.localIdentifier)
        let upload = try intake.stage(bytes, filename: "wine.jpg")
        #expect(upload.existingAssetIdentifier == asset.localIdentifier)
        #expect(upload.size == bytes.count)
    }

    @Test("a file that is neither a photo nor a movie is refused naming both kinds intake takes")
    func neitherPhotoNorMovie() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let intake = PhotoIntake(library: try PhotoLibrary.open(at: temp.library))
        let error = #expect(throws: PhotoLibError.self) {
            _ = try intake.add(Array("hello, not a photo".utf8), filename: "fake.jpg", fallbackDate: Date())
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.reason == .invalidImage)
        #expect(error?.message.contains("JPEG, HEIC, PNG and WebP photos and MOV, MP4 and M4V videos") == true, "\(String(describing: error))")
    }

    @Test("a damaged photo is refused by both paths with the same reason", arguments: [0.5, 0.95])
    func damaged(keep fraction: Double) throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let intake = PhotoIntake(library: try PhotoLibrary.open(at: temp.library))
        let bytes = try Fixtures.bytes(at: Fixtures.landscape)
        let truncated = Array(bytes.prefix(Int(Double(bytes.count) * fraction)))
        let imported = thrownError { () throws(PhotoLibError) in _ = try intake.add(truncated, filename: "cut.jpg", fallbackDate: Date()) }
        let uploaded = thrownError { () throws(PhotoLibError) in _ = try intake.stage(truncated, filename: "cut.jpg") }
        #expect(imported?.code == .invalidArgument && imported?.reason == .invalidImage, "\(String(describing: imported))")
        #expect(imported?.message == uploaded?.message && imported?.code == uploaded?.code)
        #expect(regularFiles(in: temp.library + "/originals").isEmpty, "nothing written for a refused photo")
    }

    @Test("a video file over the photo limit is inspected where it lies and imported; a photo file over it is refused; the two pair")
    func videoFileOverThePhotoLimit() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let photoLimit = 5000
        let library = try PhotoLibrary.open(at: temp.library, importLimits: ImportLimits(photoBytes: photoLimit))
        let intake = PhotoIntake(library: library)
        let movie = Fixtures.path("Tests/Fixtures/media/live-IMG_0002.mov"), still = Fixtures.path("Tests/Fixtures/media/jpeg_live_still.jpg")
        let big = Fixtures.path("Tests/Fixtures/media/video-rotated-gps.mov")
        #expect(try Fixtures.bytes(at: big).count > photoLimit && Fixtures.bytes(at: still).count > photoLimit)

        guard case .added(let video) = try intake.add(fileAt: big, filename: "IMG_0004.MOV", fallbackDate: Date(), copyBufferSize: 1000) else {
            Issue.record("the video was not added")
            return
        }
        #expect(video.mediaType == .video && video.pixelWidth == 240 && video.pixelHeight == 320 && abs(video.duration - 2) < 0.1)
        #expect(video.location != nil, "the movie's place, read from its file")
        let refused = thrownError { () throws(PhotoLibError) in _ = try intake.add(fileAt: still, filename: "IMG_0002.JPG", fallbackDate: Date()) }
        #expect(refused?.code == .invalidArgument && refused?.message.contains("limit for a photo") == true, "\(String(describing: refused))")

        // With room for the still, its movie (by content identifier, movie first) pairs from its file.
        let roomy = PhotoIntake(library: try PhotoLibrary.open(at: temp.path + "/Roomy", importLimits: ImportLimits(photoBytes: 10_000, videoBytes: 10_000)))
        let first = try roomy.add(fileAt: movie, filename: "IMG_0002.MOV", fallbackDate: Date(), copyBufferSize: 1000).asset
        let paired = try roomy.add(fileAt: still, filename: "IMG_0002.JPG", fallbackDate: Date()).asset
        #expect(paired.localIdentifier == first.localIdentifier && paired.mediaSubtypes.contains(.photoLive))
        let again = try roomy.add(fileAt: movie, filename: "copy.mov", fallbackDate: Date())
        guard case .alreadyPresent(let same) = again else {
            Issue.record("the movie was added twice")
            return
        }
        #expect(same.localIdentifier == first.localIdentifier)
    }

    private func regularFiles(in directory: String) -> [String] {
        (FileManager.default.enumerator(atPath: directory)?.allObjects as? [String] ?? []).filter { !$0.hasPrefix(".") && $0.contains(".") }
    }
}
