import Foundation
import PhotoLibCore
import Testing

@testable import PhotoLibImaging
@testable import PhotoLibMedia

@Suite("StillImageRenderer.inspect reads size, orientation, date, GPS and Apple metadata from every format")
struct StillImageInspectTests {
    func date(_ text: String) -> Date {
        ISO8601DateFormatter().date(from: text)!
    }

    @Test("HEIC: irot gives orientation 6 and the upright size; EXIF date, GPS, camera, content identifier")
    func heicRotated() throws {
        let info = try StillImageRenderer.inspect(Media.bytes("heic_rotated_gps.heic"))
        #expect(info.format == .heic)
        #expect(info.storedWidth == 360 && info.storedHeight == 640)
        #expect(info.orientation == 6)
        #expect(info.pixelWidth == 640 && info.pixelHeight == 360)
        #expect(info.creationDate == date("2021-07-14T16:32:05Z"))
        let location = try #require(info.location)
        #expect(abs(location.latitude - 48.8584) < 1e-4 && abs(location.longitude - 2.2945) < 1e-4)
        #expect(abs((location.altitude ?? 0) - 35) < 0.01)
        #expect(info.hasCameraMetadata)
        #expect(info.contentIdentifier == Media.contentIdentifier)
        #expect(!info.hasAlpha)
        #expect(info.embeddedThumbnailSize == nil)
    }

    @Test("HEIC: the thumbnail item's size; no EXIF means no date, camera or location")
    func heicThumbnail() throws {
        let info = try StillImageRenderer.inspect(Media.bytes("heic_thumbnail.heic"))
        #expect(info.pixelWidth == 512 && info.pixelHeight == 768 && info.orientation == 1)
        let thumbnail = try #require(info.embeddedThumbnailSize)
        #expect(max(thumbnail.width, thumbnail.height) == 320)
        #expect(abs(Double(thumbnail.width) / Double(thumbnail.height) - 512.0 / 768.0) < 0.02)
        #expect(info.creationDate == nil && info.location == nil && !info.hasCameraMetadata && info.contentIdentifier == nil)
    }

    @Test("PNG screenshot: real iPhone size, XMP UserComment 'Screenshot', no camera")
    func pngScreenshot() throws {
        let info = try StillImageRenderer.inspect(Media.bytes("png_screenshot_1170x2532.png"))
        #expect(info.format == .png)
        #expect(info.pixelWidth == 1170 && info.pixelHeight == 2532)
        #expect(info.userComment == "Screenshot")
        #expect(!info.hasCameraMetadata && info.creationDate == nil && !info.hasAlpha)
    }

    @Test("PNG eXIf: orientation 6, a date without offset read as UTC, GPS south and east")
    func pngExif() throws {
        let info = try StillImageRenderer.inspect(Media.bytes("png_exif_rotated.png"))
        #expect(info.storedWidth == 80 && info.storedHeight == 120 && info.orientation == 6)
        #expect(info.pixelWidth == 120 && info.pixelHeight == 80)
        #expect(info.creationDate == date("2019-03-02T10:11:12Z"))
        let location = try #require(info.location)
        #expect(abs(location.latitude + 33.8568) < 1e-4 && abs(location.longitude - 151.2153) < 1e-4)
    }

    @Test("PNG and WebP alpha are reported")
    func alpha() throws {
        let png = try StillImageRenderer.inspect(Media.bytes("png_alpha.png"))
        #expect(png.hasAlpha && png.pixelWidth == 160 && png.pixelHeight == 120)
        let webp = try StillImageRenderer.inspect(Media.bytes("webp_alpha.webp"))
        #expect(webp.format == .webp && webp.hasAlpha && webp.pixelWidth == 64 && webp.pixelHeight == 48)
    }

    @Test("WebP EXIF chunk: camera, date with offset, GPS west")
    func webpExif() throws {
        let info = try StillImageRenderer.inspect(Media.bytes("webp_photo.webp"))
        #expect(info.format == .webp && info.pixelWidth == 480 && info.pixelHeight == 270 && !info.hasAlpha)
        #expect(info.creationDate == date("2020-01-15T13:00:00Z"))
        let location = try #require(info.location)
        #expect(abs(location.latitude - 40.6892) < 1e-4 && abs(location.longitude + 74.0445) < 1e-4)
        #expect(info.hasCameraMetadata)
    }

    @Test("JPEG goes through the JPEG inspector and also yields the Apple content identifier")
    func jpegStill() throws {
        let info = try StillImageRenderer.inspect(Media.bytes("jpeg_live_still.jpg"))
        #expect(info.format == .jpeg && info.pixelWidth == 120 && info.pixelHeight == 180)
        #expect(info.contentIdentifier == Media.contentIdentifier && info.hasCameraMetadata)
        #expect(info.creationDate == date("2018-05-20T12:00:00Z"))
    }

    @Test("validate accepts every complete fixture and agrees with inspect")
    func validateComplete() throws {
        for fixture in Media.complete {
            let bytes = try Media.bytes(fixture.name)
            let validated = try StillImageRenderer.validate(bytes)
            #expect(validated == (try StillImageRenderer.inspect(bytes)), "\(fixture.name)")
            #expect(validated.format == fixture.format, "\(fixture.name)")
        }
    }
}
