import Foundation
import PhotoLibCore
import PhotoLibImaging
import PhotoLibMedia
import PhotoLibStore
import PhotoLibTestSupport
import Testing

@testable import PhotoLibServer

/// HEIC, PNG and WebP photos enter the library like JPEGs: kept as they came (their own
/// extension and type identifier), with their upright size, date, place and subtypes.
@Suite("Stills beyond JPEG: imported and uploaded with their metadata and subtypes")
struct StillIntakeTests {
    private static func media(_ name: String) throws -> [UInt8] {
        try Fixtures.bytes(at: Fixtures.path("Tests/Fixtures/media/" + name))
    }

    @Test("a HEIC with rotation and GPS, a PNG screenshot, a WebP: types, sizes, dates, places, subtypes")
    func metadata() throws {
        let heic = try PhotoIntake.metadata(for: try Self.media("heic_rotated_gps.heic"), filename: "IMG_0001.HEIC", fallbackDate: Date(timeIntervalSince1970: 0))
        #expect(heic.fileType == .heic)
        #expect(heic.pixelWidth == 640 && heic.pixelHeight == 360, "upright: the stored 360×640 turned by irot")
        #expect(heic.creationDate != Date(timeIntervalSince1970: 0), "EXIF date read")
        #expect(heic.location != nil, "EXIF GPS read")
        #expect(heic.mediaSubtypes.isEmpty)

        let screenshot = try PhotoIntake.metadata(for: try Self.media("png_screenshot_1170x2532.png"), filename: "", fallbackDate: Date())
        #expect(screenshot.fileType == .png && screenshot.originalFilename == "photo.png")
        #expect(screenshot.mediaSubtypes.contains(.photoScreenshot))

        let webp = try PhotoIntake.metadata(for: try Self.media("webp_photo.webp"), filename: "p.webp", fallbackDate: Date())
        #expect(webp.fileType == .webp && !webp.mediaSubtypes.contains(.photoScreenshot))
    }

    @Test("EXIF CustomRendered: an iPhone's HDR flag makes photoHDR, its panorama flag photoPanorama")
    func customRendered() throws {
        let photo = try Fixtures.bytes(at: Fixtures.landscape)
        func subtypes(_ value: Int?) throws -> MediaSubtypes {
            try PhotoIntake.metadata(for: ExifFixture.jpegWithExif(photo, customRendered: value), filename: "p.jpg", fallbackDate: Date()).mediaSubtypes
        }
        #expect(try subtypes(3) == .photoHDR)
        #expect(try subtypes(2) == .photoHDR)
        #expect(try subtypes(7) == .photoHDR, "portrait HDR")
        #expect(try subtypes(6) == .photoPanorama, "Apple's panorama flag, whatever the aspect")
        #expect(try subtypes(4).isEmpty, "the original kept beside an HDR photo")
        #expect(try subtypes(0).isEmpty)
        #expect(try subtypes(nil).isEmpty)
    }

    @Test("another type is refused naming what it is; a truncated HEIC is refused")
    func refused() throws {
        let gif = Array("GIF89a".utf8) + [UInt8](repeating: 0, count: 64)
        let error = thrownError { () throws(PhotoLibError) in _ = try PhotoIntake.metadata(for: gif, filename: "a.gif", fallbackDate: Date()) }
        #expect(error?.code == .invalidArgument && error?.message.contains("GIF") == true, "\(error?.message ?? "")")
        let truncated = try Self.media("heic_rotated_gps_truncated.heic")
        let cut = thrownError { () throws(PhotoLibError) in
            _ = try PhotoIntake.metadata(for: truncated, filename: "cut.heic", fallbackDate: Date())
        }
        #expect(cut?.code == .invalidArgument)
    }

    @Test("imported stills keep their bytes and type; the Screenshots smart album lists the PNG; renders are upright")
    func importAndRender() throws {
        let temp = try TestDirectory()
        defer { temp.cleanUp() }
        let library = try PhotoLibrary.open(at: temp.library)
        let intake = PhotoIntake(library: library)
        var assets: [String: String] = [:]
        for name in ["heic_rotated_gps.heic", "png_screenshot_1170x2532.png", "webp_photo.webp", "png_alpha.png"] {
            guard case .added(let asset) = try intake.add(try Self.media(name), filename: name, fallbackDate: Date()) else {
                Issue.record("\(name) was not added")
                continue
            }
            assets[name] = asset.localIdentifier
        }
        let heic = try #require(assets["heic_rotated_gps.heic"])
        let original = try library.originalResource(forAsset: heic)
        #expect(original.uniformTypeIdentifier == "public.heic" && original.path.hasSuffix(".heic"))
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: original.path))) == (try Self.media("heic_rotated_gps.heic")), "kept byte for byte")
        let screenshots = try library.fetchAssetIdentifiers(AssetQuery(collection: LocalIdentifier.smartAlbum(.smartAlbumScreenshots)))
        #expect(screenshots == [assets["png_screenshot_1170x2532.png"]].compactMap { $0 })
        // A 64-pixel render of the HEIC is landscape, like the photo upright.
        let render = try StillImageRenderer.render(
            Array(try Data(contentsOf: URL(fileURLWithPath: original.path))),
            request: RenderRequest(targetSize: PixelSize(width: 64, height: 64), contentMode: .aspectFit, resizeMode: .exact))
        #expect(render.width == 64 && render.height == 36)
    }
}
