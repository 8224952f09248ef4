import PhotoLibCore
import Testing

@testable import PhotoLibImaging
@testable import PhotoLibMedia

/// The editing base of HEIC, PNG and WebP originals (docs/FILTERS.md "Originals that are not
/// JPEG"): the JPEG both the server and clients render recipes on.
@Suite("Editing HEIC, PNG and WebP: the editing base and recipe renders on it")
struct StillImageEditingTests {
    /// The photo fixtures that are not JPEG, each with the red marker in its upright top-left
    /// corner: a HEIC turned by `irot` (orientation 6), an unturned HEIC, a PNG turned by EXIF
    /// (orientation 6) and a WebP.
    static let others = ["heic_rotated_gps.heic", "heic_thumbnail.heic", "png_exif_rotated.png", "webp_photo.webp"]

    @Test("the base is an upright JPEG of the upright size, orientation 1, the same bytes every time", arguments: others)
    func baseIsUprightJPEG(name: String) throws {
        let original = try Media.bytes(name)
        let info = try StillImageRenderer.inspect(original)
        let base = try StillImageRenderer.editingBase(original)
        #expect(ImageFormat.detect(base) == .jpeg, "\(name)")
        // Decodes completely, and carries no orientation to apply a second time.
        let jpeg = try JPEGInspector.validate(base)
        #expect(jpeg.orientation == 1, "\(name)")
        #expect(jpeg.storedWidth == info.pixelWidth && jpeg.storedHeight == info.pixelHeight, "\(name): \(jpeg.storedWidth)x\(jpeg.storedHeight)")
        let image = RenderedImage(jpeg: base, width: jpeg.storedWidth, height: jpeg.storedHeight)
        #expect(near(try rgb(image, 1, 1), 255, 0, 0, tolerance: 60), "\(name): the marker is top-left")
        #expect(!near(try rgb(image, image.width - 2, image.height - 2), 255, 0, 0, tolerance: 60), "\(name)")
        let again = try StillImageRenderer.editingBase(original)
        #expect(again == base, "\(name): the base is deterministic")
    }

    @Test("a JPEG is its own base")
    func jpegIsItsOwnBase() throws {
        let original = try Media.bytes("jpeg_live_still.jpg")
        #expect(try StillImageRenderer.editingBase(original) == original)
    }

    @Test("a recipe on the original is RecipeRenderer on the base, at the size recipeOutputSize gives", arguments: others)
    func recipeRendersOnTheBase(name: String) throws {
        let original = try Media.bytes(name)
        let base = try StillImageRenderer.editingBase(original)
        let recipes = [
            FilterRecipe([.filter(.mono, intensity: 1)]),
            FilterRecipe([.filter(.chrome, intensity: 0.7), .exposure(0.3), .crop(NormalizedRect(x: 0.1, y: 0.2, width: 0.55, height: 0.5)), .rotate(quarterTurns: 1)]),
            FilterRecipe([.mirror, .rotate(quarterTurns: 3), .crop(NormalizedRect(x: 0, y: 0, width: 0.333, height: 0.777)), .contrast(0.2)]),
        ]
        for recipe in recipes {
            let rendered = try StillImageRenderer.renderRecipe(original, recipe: recipe)
            let onBase = try RecipeRenderer.render(base, recipe: recipe)
            // renderRecipe makes its own base: equal bytes mean the base is the same each time it
            // is made, which clients' renders and the server's disk cache of bases rely on.
            #expect(rendered.jpeg == onBase.jpeg, "\(name): the server's render is a client's render of the base")
            let size = try StillImageRenderer.recipeOutputSize(recipe, original: original)
            #expect(PixelSize(width: rendered.width, height: rendered.height) == size, "\(name) \(recipe.operations)")
            let header = try JPEGInspector.validate(rendered.jpeg)
            #expect(header.storedWidth == rendered.width && header.storedHeight == rendered.height && header.orientation == 1, "\(name)")
        }
    }

    @Test("a HEIC turned by irot and a PNG turned by EXIF are turned once: the marker stays top-left, then follows a quarter turn",
          arguments: ["heic_rotated_gps.heic", "png_exif_rotated.png"])
    func orientationAppliedOnce(name: String) throws {
        let original = try Media.bytes(name)
        let info = try StillImageRenderer.inspect(original)
        #expect(info.orientation == 6, "\(name): the fixture is stored turned")
        let plain = try StillImageRenderer.renderRecipe(original, recipe: FilterRecipe([.filter(.chrome, intensity: 1)]))
        #expect(plain.width == info.pixelWidth && plain.height == info.pixelHeight, "\(name): \(plain.width)x\(plain.height)")
        #expect(plain.width > plain.height, "\(name): upright is landscape")
        #expect(near(try rgb(plain, 1, 1), 255, 0, 0, tolerance: 60), "\(name): marker top-left")
        let turned = try StillImageRenderer.renderRecipe(
            original, recipe: FilterRecipe([.filter(.chrome, intensity: 1), .rotate(quarterTurns: 1)]))
        #expect(turned.width == info.pixelHeight && turned.height == info.pixelWidth, "\(name)")
        #expect(near(try rgb(turned, turned.width - 2, 1), 255, 0, 0, tolerance: 60), "\(name): a clockwise turn takes the marker top-right")
        #expect(!near(try rgb(turned, 1, 1), 255, 0, 0, tolerance: 60), "\(name)")
    }

    @Test("damaged, foreign and out-of-range input fail with the decoders' codes; cancellation stops the base")
    func errors() throws {
        let truncated = try Media.bytes("heic_rotated_gps_truncated.heic")
        let webp = try Media.bytes("webp_photo.webp")
        let png = try Media.bytes("png_exif_rotated.png")
        let cancelled = RenderControl()
        cancelled.cancel()
        let cases: [(String, () throws(ImagingError) -> Void, Set<ImagingError.Code>)] = [
            ("a truncated HEIC", { () throws(ImagingError) in _ = try StillImageRenderer.editingBase(truncated) }, [.truncated, .corrupt]),
            ("a GIF", { () throws(ImagingError) in _ = try StillImageRenderer.editingBase(Array("GIF89a not a photo".utf8)) }, [.unsupportedFormat]),
            ("an exposure of 9 EV", { () throws(ImagingError) in _ = try StillImageRenderer.renderRecipe(webp, recipe: FilterRecipe([.exposure(9)])) }, [.invalidArgument]),
            ("a cancelled control", { () throws(ImagingError) in _ = try StillImageRenderer.editingBase(png, control: cancelled) }, [.cancelled]),
        ]
        for (what, work, codes) in cases {
            do throws(ImagingError) {
                try work()
                Issue.record("\(what) must fail")
            } catch {
                #expect(codes.contains(error.code), "\(what): \(error)")
            }
        }
    }
}
