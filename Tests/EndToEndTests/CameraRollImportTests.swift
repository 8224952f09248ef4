import Foundation
import PhotoLibTestSupport
import XCTest

/// A folder shaped like an iPhone export (HEIC, JPEG, a PNG screenshot, MOVs, Live Photo pairs,
/// damaged files), imported with `photolibd import` and browsed with the `photolib` CLI the way
/// a user does: media types, subtypes, dates, places, pairings, smart albums, upright
/// thumbnails of every kind, byte-identical exports with resume, clear refusals.
final class CameraRollImportTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var server: ServerProcess?

    override func setUpWithError() throws {
        _ = try Paths.executable(Paths.photolibd)
        _ = try Paths.executable(Paths.photolib)
        directory = try TemporaryDirectory("photolib-e2e-camera-roll")
    }

    override func tearDown() {
        server?.stopGracefully()
        server = nil
        directory?.remove()
    }

    private func media(_ name: String) -> String { Paths.packageRoot + "/Tests/Fixtures/media/" + name }

    /// An asset as `photolib show --json` prints it.
    private struct ShowJSON: Decodable {
        struct Asset: Decodable {
            var localIdentifier: String
            var mediaType: String
            var mediaSubtypes: [String]
            var pixelWidth: Int
            var pixelHeight: Int
            var creationDate: String
            var duration: Double
            var location: AssetJSON.Location?
        }
        struct Resource: Decodable {
            var type: String
            var originalFilename: String
            var uniformTypeIdentifier: String
            var size: Int
        }
        var asset: Asset
        var resources: [Resource]
    }

    private func show(_ id: String) throws -> ShowJSON {
        try runCLIJSON(ShowJSON.self, ["show", id, "--json"], server: server)
    }

    func testAnIPhoneExportImportsWithTypesSubtypesPairsAndSmartAlbums() throws {
        // DCIM/100APPLE as an iPhone exports it; IMG_0002 pairs by content identifier (and
        // name), IMG_0003 by name only; IMG_0010.MOV's content identifier matches no still.
        let folder = try directory.folder("export/DCIM/100APPLE")
        let copies: [(String, String)] = [
            ("heic_rotated_gps.heic", "IMG_0001.HEIC"), ("jpeg_live_still.jpg", "IMG_0002.JPG"), ("live-IMG_0002.mov", "IMG_0002.MOV"),
            ("heic_thumbnail.heic", "IMG_0003.HEIC"), ("live-IMG_0003.mov", "IMG_0003.MOV"), ("video-rotated-gps.mov", "IMG_0004.MOV"),
            ("png_screenshot_1170x2532.png", "IMG_0005.PNG"), ("video-120fps.mov", "IMG_0006.MOV"), ("video-timelapse.mov", "IMG_0007.MOV"),
            ("video-plain-truncated.mp4", "IMG_0008.MP4"), ("video-damaged-no-keyframe.mov", "IMG_0009.MOV"), ("live-IMG_0001.mov", "IMG_0010.MOV"),
        ]
        for (source, name) in copies {
            try FileManager.default.copyItem(atPath: media(source), toPath: folder + "/" + name)
        }
        let path = { (name: String) in folder + "/" + name }

        let result = try ServerProcess.importPhotos(library: directory.file("library"), [directory.file("export")])
        XCTAssertFalse(result.succeeded, "two damaged files make the exit status non-zero: \(result)")
        XCTAssertFalse(result.signalled, "\(result)")
        let output = ImportOutput(result)
        XCTAssertEqual(result.stderrLines.count, 2, "one line per damaged file: \(result)")
        XCTAssertTrue(result.stderrLines.contains { $0.contains("IMG_0008.MP4") && $0.contains("truncated") }, "\(result)")
        XCTAssertTrue(result.stderrLines.contains { $0.contains("IMG_0009.MOV") }, "\(result)")
        XCTAssertEqual(Set(output.paired.keys), [path("IMG_0002.MOV"), path("IMG_0003.MOV")], "\(result)")
        XCTAssertEqual(output.paired[path("IMG_0002.MOV")], output.added[path("IMG_0002.JPG")], "the movie joined its still's asset")
        XCTAssertEqual(output.paired[path("IMG_0003.MOV")], output.added[path("IMG_0003.HEIC")], "paired by base name alone")
        XCTAssertTrue(result.stdout.contains("imported 10, already present 0, refused 2"), "\(result)")

        server = try ServerProcess.start(library: directory.file("library"))
        let all = try listAssets(server!)
        XCTAssertEqual(all.count, 8, "12 files, 2 refused, 2 halves of Live Photos: \(all.map(\.localIdentifier))")
        let ids = output.added

        // Live Photos: one image asset each, photo + pairedVideo.
        for name in ["IMG_0002", "IMG_0003"] {
            let shown = try show(try XCTUnwrap(ids[path(name + (name == "IMG_0002" ? ".JPG" : ".HEIC"))]))
            XCTAssertEqual(shown.asset.mediaType, "image", name)
            XCTAssertEqual(shown.asset.mediaSubtypes, ["live"], name)
            XCTAssertEqual(Set(shown.resources.map(\.type)), ["photo", "pairedVideo"], name)
            XCTAssertEqual(shown.resources.first { $0.type == "pairedVideo" }?.uniformTypeIdentifier, "com.apple.quicktime-movie")
        }
        // A video: upright size, QuickTime creation date (not the movie header's), ISO 6709 place, duration.
        let video = try show(try XCTUnwrap(ids[path("IMG_0004.MOV")]))
        XCTAssertEqual(video.asset.mediaType, "video")
        XCTAssertEqual([video.asset.pixelWidth, video.asset.pixelHeight], [240, 320], "rotation 90 applied")
        XCTAssertEqual(video.asset.creationDate, "2021-07-04T16:30:00Z")
        XCTAssertEqual(video.asset.location?.latitude ?? 0, 48.8584, accuracy: 1e-4)
        XCTAssertEqual(video.asset.location?.longitude ?? 0, 2.2945, accuracy: 1e-4)
        XCTAssertEqual(video.asset.duration, 2, accuracy: 0.1)
        XCTAssertEqual(video.resources.map(\.type), ["video"])
        XCTAssertEqual(try show(try XCTUnwrap(ids[path("IMG_0006.MOV")])).asset.mediaSubtypes, ["highFrameRate"])
        XCTAssertEqual(try show(try XCTUnwrap(ids[path("IMG_0007.MOV")])).asset.mediaSubtypes, ["timelapse"])
        // A HEIC keeps its EXIF place and date.
        let heic = try show(try XCTUnwrap(ids[path("IMG_0001.HEIC")]))
        XCTAssertEqual([heic.asset.pixelWidth, heic.asset.pixelHeight], [640, 360])
        XCTAssertEqual(heic.asset.creationDate, "2021-07-14T16:32:05Z")

        // Smart albums, by name, and the predicate.
        let videos = Set([ids[path("IMG_0004.MOV")], ids[path("IMG_0006.MOV")], ids[path("IMG_0007.MOV")], ids[path("IMG_0010.MOV")]].compactMap { $0 })
        XCTAssertEqual(Set(try listAssets(server!, ["--album", "videos"]).map(\.localIdentifier)), videos)
        XCTAssertEqual(Set(try listAssets(server!, ["--where", "mediaType == video"]).map(\.localIdentifier)), videos)
        XCTAssertEqual(
            Set(try listAssets(server!, ["--album", "live-photos"]).map(\.localIdentifier)),
            Set([ids[path("IMG_0002.JPG")], ids[path("IMG_0003.HEIC")]].compactMap { $0 }))
        XCTAssertEqual(try listAssets(server!, ["--album", "screenshots"]).map(\.localIdentifier), [ids[path("IMG_0005.PNG")]].compactMap { $0 })

        // Thumbnails of every kind render upright (the aspect of the upright size).
        for asset in all {
            let target = directory.file("thumb-\(asset.localIdentifier.prefix(8)).jpg")
            let got = try runCLIJSON(GetJSON.self, ["get", asset.localIdentifier, "--size", "128x128", "-o", target, "--json"], server: server)
            let aspect = Double(asset.pixelWidth) / Double(asset.pixelHeight)
            XCTAssertEqual(Double(got.width) / Double(got.height), aspect, accuracy: 0.06, "\(asset.mediaType) \(asset.localIdentifier)")
            XCTAssertEqual(max(got.width, got.height), min(128, max(asset.pixelWidth, asset.pixelHeight)), "\(asset.localIdentifier)")
        }

        // The original file as it is (version original, max, resize none) arrives byte for
        // byte with its own type and upright size; a rendered image is a JPEG.
        for (name, source, type, size) in [
            ("IMG_0001.HEIC", "heic_rotated_gps.heic", "public.heic", [640, 360]),
            ("IMG_0005.PNG", "png_screenshot_1170x2532.png", "public.png", [1170, 2532]),
        ] {
            let target = directory.file("original-" + name)
            let id = try XCTUnwrap(ids[path(name)])
            let got = try runCLIJSON(
                GetJSON.self, ["get", id, "--size", "max", "--resize", "none", "--version", "original", "-o", target, "--json"], server: server)
            XCTAssertEqual(got.uniformTypeIdentifier, type, name)
            XCTAssertEqual([got.width, got.height], size, name)
            XCTAssertEqual(try readBytes(target), try readBytes(media(source)), "\(name): the original, byte for byte")
            let rendered = try runCLIJSON(GetJSON.self, ["get", id, "--size", "64x64", "-o", target, "--json"], server: server)
            XCTAssertEqual(rendered.uniformTypeIdentifier, "public.jpeg", name)
        }

        // Videos and paired videos export byte for byte, and an interrupted export resumes.
        let liveID = try XCTUnwrap(ids[path("IMG_0002.JPG")])
        let paired = directory.file("paired.mov")
        var exported = try runCLI(["export", liveID, "--resource", "pairedVideo", "-o", paired], server: server)
        XCTAssertTrue(exported.succeeded, "\(exported)")
        XCTAssertEqual(try readBytes(paired), try readBytes(media("live-IMG_0002.mov")))
        let original = try readBytes(media("video-rotated-gps.mov"))
        let target = directory.file("video.mov")
        try Data(original.prefix(5000)).write(to: URL(fileURLWithPath: target + ".partial"))
        exported = try runCLI(["export", try XCTUnwrap(ids[path("IMG_0004.MOV")]), "-o", target], server: server)
        XCTAssertTrue(exported.succeeded && exported.stdout.contains("resumed at byte 5000"), "\(exported)")
        XCTAssertEqual(try readBytes(target), original, "the video, byte for byte, after a resume")

        // Importing the pair again, in the other order and apart, adds nothing.
        let again = try ServerProcess.importPhotos(library: directory.file("library"), [path("IMG_0002.MOV"), path("IMG_0002.JPG")])
        XCTAssertTrue(again.succeeded, "\(again)")
        XCTAssertEqual(Set(ImportOutput(again).alreadyPresent.values), [liveID], "\(again)")
    }

    /// A folder's Live Photos are imported pair by pair, each still right before its movie:
    /// an import stopped half-way leaves at most one pair with one half (before, every still
    /// of the folder came first and every movie after, so a stop left all the pairs halved).
    /// A Finder copy (`IMG_0101 (1).HEIC`) comes after the file it copies, which keeps its
    /// own name.
    func testAFoldersPairsAreImportedOneAfterTheOtherAndCopiesAfterTheirOriginal() throws {
        let folder = try directory.folder("roll")
        let copies: [(String, String)] = [
            ("jpeg_live_still.jpg", "IMG_0002.JPG"), ("live-IMG_0002.mov", "IMG_0002.MOV"),
            ("heic_thumbnail.heic", "IMG_0003.HEIC"), ("live-IMG_0003.mov", "IMG_0003.MOV"),
            ("heic_rotated_gps.heic", "IMG_0101 (1).HEIC"), ("heic_rotated_gps.heic", "IMG_0101.HEIC"),
        ]
        for (source, name) in copies {
            try FileManager.default.copyItem(atPath: media(source), toPath: folder + "/" + name)
        }
        let result = try ServerProcess.importPhotos(library: directory.file("library"), [folder])
        XCTAssertTrue(result.succeeded, "\(result)")
        let names = result.stdoutLines.dropLast().map { ($0 as NSString).lastPathComponent }
        XCTAssertEqual(result.stdoutLines.last, "imported 5, already present 1, refused 0")
        XCTAssertEqual(names, ["IMG_0002.JPG", "IMG_0002.MOV", "IMG_0003.HEIC", "IMG_0003.MOV", "IMG_0101.HEIC", "IMG_0101 (1).HEIC"], "\(result)")
        let output = ImportOutput(result)
        XCTAssertEqual(Set(output.paired.keys), [folder + "/IMG_0002.MOV", folder + "/IMG_0003.MOV"], "\(result)")
        XCTAssertNotNil(output.added[folder + "/IMG_0101.HEIC"], "the original keeps its name: \(result)")
        XCTAssertNotNil(output.alreadyPresent[folder + "/IMG_0101 (1).HEIC"], "\(result)")
    }

    func testTheMovieFirstThenTheStillInAnotherImportMakeOneLivePhoto() throws {
        let library = directory.file("library")
        // The movie alone is a video; its still, imported later from elsewhere, takes it over.
        let first = try ServerProcess.importPhotos(library: library, [media("live-IMG_0002.mov")])
        XCTAssertTrue(first.succeeded, "\(first)")
        let videoID = try XCTUnwrap(ImportOutput(first).added.values.first)
        let second = try ServerProcess.importPhotos(library: library, [media("jpeg_live_still.jpg")])
        XCTAssertTrue(second.succeeded, "\(second)")
        XCTAssertEqual(ImportOutput(second).paired.values.first, videoID, "the still joined the video's asset: \(second)")

        server = try ServerProcess.start(library: library)
        let all = try listAssets(server!)
        XCTAssertEqual(all.map(\.localIdentifier), [videoID])
        let shown = try show(videoID)
        XCTAssertEqual(shown.asset.mediaType, "image")
        XCTAssertEqual(shown.asset.mediaSubtypes, ["live"])
        XCTAssertEqual([shown.asset.pixelWidth, shown.asset.pixelHeight], [120, 180], "the still's size")
        XCTAssertEqual(shown.asset.creationDate, "2018-05-20T12:00:00Z")
        XCTAssertEqual(shown.asset.duration, 0)
        XCTAssertEqual(Set(shown.resources.map(\.type)), ["photo", "pairedVideo"])
        XCTAssertEqual(try listAssets(server!, ["--album", "videos"]).count, 0, "no longer a video")
    }

    func testUploadingAFolderPairsALivePhotoByNameAndRefusesADamagedMovie() throws {
        let folder = try directory.folder("phone/DCIM")
        for (source, name) in [
            ("heic_thumbnail.heic", "IMG_0003.HEIC"), ("live-IMG_0003.mov", "IMG_0003.MOV"), ("video-plain.mp4", "IMG_0004.MP4"),
            ("video-plain-truncated.mp4", "IMG_0005.MP4"),
        ] {
            try FileManager.default.copyItem(atPath: media(source), toPath: folder + "/" + name)
        }
        server = try ServerProcess.start(library: directory.file("library"))
        let result = try runCLI(["upload", folder], server: server)
        XCTAssertFalse(result.succeeded, "the damaged movie is refused: \(result)")
        let lines = result.stdoutLines
        let still = try XCTUnwrap(lines.first { $0.hasPrefix("new ") && $0.hasSuffix("IMG_0003.HEIC") }, "\(result)")
        let id = String(still.split(separator: " ")[1])
        XCTAssertTrue(lines.contains("paired \(id) \(folder)/IMG_0003.MOV"), "\(result)")
        XCTAssertTrue(lines.contains { $0.hasPrefix("new ") && $0.hasSuffix("IMG_0004.MP4") }, "\(result)")
        XCTAssertTrue(result.stderrLines.contains { $0.contains("IMG_0005.MP4") && $0.contains("truncated") }, "\(result)")
        let shown = try show(id)
        XCTAssertEqual(shown.asset.mediaSubtypes, ["live"])
        XCTAssertEqual(Set(shown.resources.map(\.type)), ["photo", "pairedVideo"])
        XCTAssertEqual(try listAssets(server!, ["--album", "videos"]).count, 1)
    }
}
