import PhotoLibCore
import Testing

@testable import PhotoLibImaging
@testable import PhotoLibMedia

@Suite("StillImageRenderer renders every format upright, at JPEG's sizes, alpha over white")
struct StillImageRenderTests {
    @Test("upright at the size JPEGRenderer.outputSize gives, fit and fill", arguments: Media.marked)
    func uprightAndSized(name: String) throws {
        let bytes = try Media.bytes(name)
        let info = try StillImageRenderer.inspect(bytes)
        for mode in [ContentMode.aspectFit, .aspectFill] {
            let request = RenderRequest(targetSize: PixelSize(width: 96, height: 96), contentMode: mode)
            let image = try StillImageRenderer.render(bytes, request: request)
            let expected = try JPEGRenderer.outputSize(
                uprightWidth: info.pixelWidth, uprightHeight: info.pixelHeight, targetWidth: 96, targetHeight: 96,
                contentMode: mode)
            #expect(image.width == expected.width && image.height == expected.height, "\(name) \(mode)")
            // The red marker is in the upright top-left corner, nowhere else.
            let corner = try rgb(image, 1, 1)
            #expect(near(corner, 255, 0, 0, tolerance: 60), "\(name): top-left \(corner)")
            #expect(!near(try rgb(image, image.width - 2, image.height - 2), 255, 0, 0, tolerance: 60), "\(name)")
        }
    }

    @Test("maximum size is the upright size; resize mode none ignores the target", arguments: Media.marked)
    func maximumSize(name: String) throws {
        let bytes = try Media.bytes(name)
        let info = try StillImageRenderer.inspect(bytes)
        let full = try StillImageRenderer.render(bytes, request: RenderRequest(targetSize: .maximum))
        #expect(full.width == info.pixelWidth && full.height == info.pixelHeight)
        let none = try StillImageRenderer.render(
            bytes, request: RenderRequest(targetSize: PixelSize(width: 10, height: 10), resizeMode: .none))
        #expect(none.width == info.pixelWidth && none.height == info.pixelHeight)
    }

    @Test("a crop is in upright coordinates, as for JPEG", arguments: Media.marked)
    func crop(name: String) throws {
        let bytes = try Media.bytes(name)
        let info = try StillImageRenderer.inspect(bytes)
        let crop = NormalizedRect(x: 0, y: 0, width: 0.5, height: 0.5)
        let image = try StillImageRenderer.render(bytes, request: RenderRequest(targetSize: .maximum, crop: crop))
        #expect(abs(image.width - info.pixelWidth / 2) <= 1 && abs(image.height - info.pixelHeight / 2) <= 1, "\(name)")
        #expect(near(try rgb(image, 1, 1), 255, 0, 0, tolerance: 60), "\(name)")
    }

    @Test("PNG alpha: transparent is white, half-transparent blue is (127, 127, 255), opaque keeps its colour")
    func pngAlpha() throws {
        let image = try StillImageRenderer.render(Media.bytes("png_alpha.png"), request: RenderRequest(targetSize: .maximum, quality: 95))
        #expect(near(try rgb(image, 20, 60), 255, 255, 255, tolerance: 4))
        #expect(near(try rgb(image, 120, 100), 127, 127, 255, tolerance: 8))
        #expect(near(try rgb(image, 84, 4), 255, 0, 0, tolerance: 60))
    }

    @Test("WebP alpha: transparent half is white, opaque half green")
    func webpAlpha() throws {
        let image = try StillImageRenderer.render(Media.bytes("webp_alpha.webp"), request: RenderRequest(targetSize: .maximum, quality: 95))
        #expect(near(try rgb(image, 8, 24), 255, 255, 255, tolerance: 4))
        #expect(near(try rgb(image, 52, 24), 0, 200, 0, tolerance: 12))
    }

    @Test("the real-size screenshot renders a 256-pixel thumbnail")
    func screenshot() throws {
        let image = try StillImageRenderer.render(
            Media.bytes("png_screenshot_1170x2532.png"), request: RenderRequest(targetSize: PixelSize(width: 256, height: 256)))
        #expect(image.height == 256 && image.width == Int((1170.0 * 256 / 2532).rounded()))
    }

    @Test("HEIC degraded: the thumbnail item when it is at least half the output, upright, never larger than the output")
    func heicDegraded() throws {
        let bytes = try Media.bytes("heic_thumbnail.heic")
        let request = RenderRequest(targetSize: PixelSize(width: 256, height: 256))
        let degraded = try #require(try StillImageRenderer.renderDegraded(bytes, request: request))
        #expect(degraded.source == .heifThumbnail)
        let final = try StillImageRenderer.render(bytes, request: request)
        #expect(degraded.image.width <= final.width && degraded.image.height <= final.height)
        #expect(abs(Double(degraded.image.width) / Double(degraded.image.height) - Double(final.width) / Double(final.height)) < 0.02)
        #expect(near(try rgb(degraded.image, 1, 1), 255, 0, 0, tolerance: 60))
        // 512x768 output: the 320-pixel thumbnail is less than half of it.
        #expect(try StillImageRenderer.renderDegraded(bytes, request: RenderRequest(targetSize: .maximum)) == nil)
        // A crop, or no thumbnail at all: no degraded image.
        let cropped = RenderRequest(targetSize: PixelSize(width: 64, height: 64), crop: NormalizedRect(x: 0, y: 0, width: 0.5, height: 0.5))
        #expect(try StillImageRenderer.renderDegraded(bytes, request: cropped) == nil)
        #expect(try StillImageRenderer.renderDegraded(Media.bytes("heic_rotated_gps.heic"), request: request) == nil)
        #expect(try StillImageRenderer.renderDegraded(Media.bytes("png_alpha.png"), request: request) == nil)
    }

    @Test("a bad request is refused before decoding, as for JPEG")
    func badRequest() throws {
        let bytes = try Media.bytes("webp_photo.webp")
        let error = imagingError { () throws(ImagingError) in
            try StillImageRenderer.render(bytes, request: RenderRequest(targetSize: PixelSize(width: 0, height: 10)))
        }
        #expect(error?.code == .invalidArgument)
        let quality = imagingError { () throws(ImagingError) in
            try StillImageRenderer.render(bytes, request: RenderRequest(targetSize: .maximum, quality: 0))
        }
        #expect(quality?.code == .invalidArgument)
    }

    @Test("a cancelled control stops every format", arguments: Media.complete.map(\.name))
    func cancelled(name: String) throws {
        let bytes = try Media.bytes(name)
        let control = RenderControl()
        control.cancel()
        let error = imagingError { () throws(ImagingError) in
            try StillImageRenderer.render(bytes, request: RenderRequest(targetSize: .maximum), control: control)
        }
        #expect(error?.code == .cancelled, "\(name): \(String(describing: error))")
    }
}

@Suite("Box shrinking while decoding (the stand-in for JPEG's DCT scaling)")
struct StillImageShrinkTests {
    /// Photos differ by JPEG noise; the screenshot's hard-edged flat shapes show the box and
    /// Lanczos filters' different edge responses (ringing), hence its looser bound.
    @Test("a shrunk decode renders close to a full-size decode", arguments: [
        ("png_screenshot_1170x2532.png", 10.0), ("webp_photo.webp", 4.0), ("heic_thumbnail.heic", 4.0), ("heic_rotated_gps.heic", 4.0),
    ])
    func matchesFullDecode(name: String, bound: Double) throws {
        let bytes = try Media.bytes(name)
        let format = try #require(ImageFormat.detect(bytes))
        let request = RenderRequest(targetSize: PixelSize(width: 64, height: 64), quality: 95)
        let plan = try StillImageRenderer.plan(bytes, format: format, request: request, limits: .default)
        #expect(StillImageRenderer.shrinkFactor(plan, request: request) > 1)
        let shrunk = try StillImageRenderer.render(bytes, request: request)
        let full: PixelBuffer?
        switch format {
        case .png: full = try LibPNG.decode(bytes, limits: .default, control: nil, keepPixels: true).pixels
        case .webp: full = try LibWebP.decode(bytes, limits: .default, control: nil, keepPixels: true)
        default: full = try LibHEIF.decode(bytes, thumbnail: false, limits: .default, control: nil, keepPixels: true)
        }
        let reference = try StillImageRenderer.finish(
            try #require(full), plan: plan, request: request, quality: 95, limits: .default, control: nil)
        #expect(shrunk.width == reference.width && shrunk.height == reference.height)
        let a = try DecodedPixels(jpeg: shrunk.jpeg)
        let b = try DecodedPixels(jpeg: reference.jpeg)
        let difference = zip(a.bytes, b.bytes).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
        let mean = Double(difference) / Double(a.bytes.count)
        #expect(mean < bound, "\(name): mean difference \(mean)")
    }

    @Test("fast mode shrinks to cover the output once and may skip the resampler; exact keeps JPEG's size")
    func fastMode() throws {
        let bytes = try Media.bytes("png_screenshot_1170x2532.png")
        let fast = try StillImageRenderer.render(bytes, request: RenderRequest(targetSize: PixelSize(width: 100, height: 100), resizeMode: .fast))
        let exact = try StillImageRenderer.render(bytes, request: RenderRequest(targetSize: PixelSize(width: 100, height: 100)))
        #expect(exact.height == 100)
        #expect(fast.height >= 100 && fast.height <= 200)
    }
}

@Suite("HEIC colour conversion row by row")
struct HEICColourTests {
    @Test("the shim's interleaving and YCbCr → RGB match libheif's conversion", arguments: ["heic_rotated_gps.heic", "heic_thumbnail.heic"])
    func matchesLibheif(name: String) throws {
        let bytes = try Media.bytes(name)
        let reference = try #require(
            try LibHEIF.decode(bytes, thumbnail: false, limits: .default, control: nil, keepPixels: true, colours: .libheif))
        for (colours, meanBound, maxBound) in [(LibHEIF.ColourConversion.rowByRow, 0.0, 0), (.ycbcr420RowByRow, 1.0, 32)] {
            let ours = try #require(try LibHEIF.decode(bytes, thumbnail: false, limits: .default, control: nil, keepPixels: true, colours: colours))
            #expect(ours.width == reference.width && ours.height == reference.height && ours.components == reference.components)
            let differences = zip(ours.bytes, reference.bytes).map { abs(Int($0) - Int($1)) }
            let mean = Double(differences.reduce(0, +)) / Double(differences.count)
            // Planar RGB is only interleaved: identical. The YCbCr planes are libheif's RGB taken
            // back to 4:2:0, so chroma detail at sharp colour edges (the red marker) is lost and
            // single pixels there differ more; the mean shows the matrix and range are right.
            #expect(mean <= meanBound, "\(name) \(colours): mean difference \(mean)")
            #expect((differences.max() ?? 0) <= maxBound, "\(name) \(colours): largest difference \(differences.max() ?? 0)")
        }
    }
}
