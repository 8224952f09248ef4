import Foundation
import PhotoLibTestSupport
import XCTest

/// The demo's camera roll (`Samples/camera-roll`, made by `Scripts/make-demo-roll`), imported
/// with `photolibd import` as `Scripts/demo` does and browsed with the `photolib` CLI: a
/// newcomer sees photos from several years and places, a HEIC, a screenshot, a panorama, a
/// video and a Live Photo, and no smart album that a camera roll fills is empty.
final class DemoRollTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var server: ServerProcess?

    private static let roll = Paths.packageRoot + "/Samples/camera-roll"
    private static let photos = roll + "/DCIM/100APPLE"

    override func setUpWithError() throws {
        _ = try Paths.executable(Paths.photolibd)
        _ = try Paths.executable(Paths.photolib)
        directory = try TemporaryDirectory("photolib-e2e-demo-roll")
    }

    override func tearDown() {
        server?.stopGracefully()
        server = nil
        directory?.remove()
    }

    /// An asset and its resources as `photolib show --json` prints them.
    private struct ShowJSON: Decodable {
        struct Asset: Decodable {
            var mediaType: String
            var mediaSubtypes: [String]
            var duration: Double
            var location: AssetJSON.Location?
        }
        struct Resource: Decodable {
            var type: String
            var originalFilename: String
            var uniformTypeIdentifier: String
        }
        var asset: Asset
        var resources: [Resource]
    }

    /// A row of `photolib albums --json` (smart albums, user albums and folders).
    private struct CollectionJSON: Decodable {
        var title: String
        var type: String
        var subtype: String?
        var count: Int
    }

    private func show(_ id: String) throws -> ShowJSON {
        try runCLIJSON(ShowJSON.self, ["show", id, "--json"], server: server)
    }

    func testTheDemoRollFillsEverySmartAlbumACameraRollCan() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.photos).sorted()
        let result = try ServerProcess.importPhotos(library: directory.file("library"), [Self.roll])
        XCTAssertTrue(result.succeeded, "every file of the roll imports: \(result)")
        XCTAssertEqual(result.stderrLines, [], "nothing refused: \(result)")
        let output = ImportOutput(result)
        let id = { (name: String) in output.added[Self.photos + "/" + name] }
        XCTAssertEqual(output.paired.count, 1, "one Live Photo pair: \(result)")
        XCTAssertEqual(output.paired[Self.photos + "/IMG_0016.MOV"], try XCTUnwrap(id("IMG_0016.JPG")), "the movie joined its still")
        XCTAssertEqual(output.added.count + output.paired.count, names.count, "every file of the roll: \(result)")

        server = try ServerProcess.start(library: directory.file("library"))
        let all = try listAssets(server!)
        XCTAssertEqual(all.count, names.count - 1, "one asset per file, the Live Photo's two files make one")
        let images = all.filter { $0.mediaType == "image" }
        XCTAssertGreaterThanOrEqual(images.count, 12, "a dozen photos at least")

        // Several years, several places (EXIF, and QuickTime metadata for the video).
        let years = Set(all.compactMap { parseISO8601($0.creationDate) }.map { Calendar(identifier: .gregorian).component(.year, from: $0) })
        XCTAssertGreaterThanOrEqual(years.count, 5, "dates spread over years: \(years.sorted())")
        let places = Set(all.compactMap(\.location).map { "\(($0.latitude * 10).rounded()),\(($0.longitude * 10).rounded())" })
        XCTAssertGreaterThanOrEqual(places.count, 4, "places: \(places.sorted())")

        // One video, with its duration and place.
        let videos = try listAssets(server!, ["--album", "videos"])
        XCTAssertEqual(videos.map(\.localIdentifier), [try XCTUnwrap(id("IMG_0010.MOV"))])
        let video = try show(videos[0].localIdentifier)
        XCTAssertEqual(video.asset.duration, 2.5, accuracy: 0.1)
        XCTAssertEqual(video.asset.location?.latitude ?? 0, 49.3017, accuracy: 1e-3)
        XCTAssertEqual(video.resources.map(\.type), ["video"])

        // One Live Photo: the still with its paired movie.
        let live = try listAssets(server!, ["--album", "live-photos"])
        XCTAssertEqual(live.map(\.localIdentifier), [try XCTUnwrap(id("IMG_0016.JPG"))])
        let liveShown = try show(live[0].localIdentifier)
        XCTAssertEqual(liveShown.asset.mediaSubtypes, ["live"])
        XCTAssertEqual(Set(liveShown.resources.map(\.type)), ["photo", "pairedVideo"])

        // One screenshot (the PNG), one panorama, one HEIC.
        XCTAssertEqual(try listAssets(server!, ["--album", "screenshots"]).map(\.localIdentifier), [try XCTUnwrap(id("IMG_0015.PNG"))])
        XCTAssertEqual(try listAssets(server!, ["--album", "panoramas"]).map(\.localIdentifier), [try XCTUnwrap(id("IMG_0004.JPG"))])
        let heic = try show(try XCTUnwrap(id("IMG_0013.HEIC")))
        XCTAssertEqual(heic.resources.map(\.uniformTypeIdentifier), ["public.heic"])
        XCTAssertNotNil(heic.asset.location, "the HEIC keeps its EXIF place")

        // Every smart album but Favorites, Hidden and Recently Deleted (the demo's own doing,
        // or the user's) has something to show.
        let collections = try runCLIJSON([CollectionJSON].self, ["albums", "--json"], server: server)
        let smart = collections.filter { $0.type == "smartAlbum" }
        XCTAssertGreaterThanOrEqual(smart.count, 9, "\(smart.map(\.title))")
        let leftEmpty: Set<String?> = ["smartAlbumFavorites", "smartAlbumAllHidden", "smartAlbumRecentlyDeleted"]
        for album in smart where !leftEmpty.contains(album.subtype) {
            XCTAssertGreaterThan(album.count, 0, "\(album.title) is empty")
        }
    }

    func testTheRollIsSmallAndEveryFileHasItsLicence() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.photos)
        let licence = try String(contentsOfFile: Self.roll + "/LICENSE.md", encoding: .utf8)
        var total = 0
        for name in names {
            XCTAssertTrue(licence.contains("| DCIM/100APPLE/\(name) |"), "\(name) is not listed in Samples/camera-roll/LICENSE.md")
            total += (try FileManager.default.attributesOfItem(atPath: Self.photos + "/" + name)[.size] as? NSNumber)?.intValue ?? 0
        }
        XCTAssertLessThanOrEqual(total, 4 << 20, "the demo roll stays a few MB")
    }
}
