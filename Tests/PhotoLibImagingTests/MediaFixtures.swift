import Foundation
import PhotoLibCore
import PhotoLibTestSupport
import Testing

@testable import PhotoLibImaging

/// The still-image fixtures in `Tests/Fixtures/media/` (made by `Scripts/make-media-fixtures`;
/// see its LICENSE.md). Every photo fixture has a red square in its upright top-left corner.
enum Media {
    static let folder = Fixtures.path("Tests/Fixtures/media")

    /// The bytes of fixture `name`.
    static func bytes(_ name: String) throws -> [UInt8] {
        try Fixtures.bytes(at: folder + "/" + name)
    }

    /// Complete fixtures and their formats.
    static let complete: [(name: String, format: ImageFormat)] = [
        ("heic_rotated_gps.heic", .heic), ("heic_thumbnail.heic", .heic), ("png_screenshot_1170x2532.png", .png),
        ("png_alpha.png", .png), ("png_exif_rotated.png", .png), ("webp_photo.webp", .webp), ("webp_alpha.webp", .webp),
        ("jpeg_live_still.jpg", .jpeg),
    ]

    /// Photo fixtures with the red upright top-left marker.
    static let marked = ["heic_rotated_gps.heic", "heic_thumbnail.heic", "png_exif_rotated.png", "webp_photo.webp", "jpeg_live_still.jpg"]

    /// The truncated copies (the first 60 % of each file).
    static let truncated = [
        "heic_rotated_gps_truncated.heic", "heic_thumbnail_truncated.heic", "png_screenshot_1170x2532_truncated.png",
        "png_alpha_truncated.png", "png_exif_rotated_truncated.png", "webp_photo_truncated.webp", "webp_alpha_truncated.webp",
    ]

    /// The live-photo content identifier written into the HEIC and JPEG MakerNotes.
    static let contentIdentifier = "7C4F0A52-3B8A-4D5C-9E71-2A4B6C8D0E1F"
}

/// Decodes a rendered JPEG and returns the RGB at (x, y).
func rgb(_ image: RenderedImage, _ x: Int, _ y: Int) throws -> (r: Int, g: Int, b: Int) {
    let pixels = try DecodedPixels(jpeg: image.jpeg)
    if pixels.components == 1 {
        let value = Int(pixels.sample(x, y))
        return (value, value, value)
    }
    return (Int(pixels.sample(x, y, 0)), Int(pixels.sample(x, y, 1)), Int(pixels.sample(x, y, 2)))
}

/// Whether a colour is within `tolerance` of (r, g, b) on every channel.
func near(_ colour: (r: Int, g: Int, b: Int), _ r: Int, _ g: Int, _ b: Int, tolerance: Int = 16) -> Bool {
    abs(colour.r - r) <= tolerance && abs(colour.g - g) <= tolerance && abs(colour.b - b) <= tolerance
}
