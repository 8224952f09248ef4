import Foundation
import PhotoLibTestSupport
import Testing

@testable import PhotoLibImaging
import PhotoLibCore

@Suite("JPEGRenderer")
struct JPEGRendererTests {
    @Test(
        "fit and fill give exact sizes on the landscape and portrait photos",
        arguments: [
            (0, 256, 256, ContentMode.aspectFit, 256, 144),
            (0, 256, 256, .aspectFill, 455, 256),
            (1, 256, 256, .aspectFit, 256, 144),
            (2, 300, 300, .aspectFit, 300, 169),
            (2, 300, 300, .aspectFill, 533, 300),
            (3, 256, 256, .aspectFit, 171, 256),
            (3, 256, 256, .aspectFill, 256, 384),
            (3, 200, 600, .aspectFit, 200, 300),
            (3, 200, 600, .aspectFill, 400, 600),
        ])
    func exactSizes(photo: Int, targetWidth: Int, targetHeight: Int, mode: ContentMode, width: Int, height: Int)
        throws
    {
        let bytes = [Photos.baseline, Photos.progressive, Photos.landscape, Photos.portrait][photo]
        let rendered = try JPEGRenderer.render(
            bytes, request: RenderRequest(targetSize: PixelSize(width: targetWidth, height: targetHeight), contentMode: mode))
        #expect(rendered.width == width && rendered.height == height)
        // The bytes are a JPEG of exactly that size.
        let info = try JPEGInspector.validate(rendered.jpeg)
        #expect(info.storedWidth == width && info.storedHeight == height)
        #expect(info.orientation == 1)
        #expect(!info.isProgressive)
    }

    @Test("all 8 orientations give upright sizes", arguments: 1...8)
    func orientedSizes(orientation: Int) throws {
        let jpeg = ExifFixture.jpegWithExif(Photos.landscape, orientation: orientation)
        let fit = try JPEGRenderer.render(jpeg, request: RenderRequest(targetSize: PixelSize(width: 300, height: 300), contentMode: .aspectFit))
        let fill = try JPEGRenderer.render(jpeg, request: RenderRequest(targetSize: PixelSize(width: 120, height: 100), contentMode: .aspectFill))
        if orientation >= 5 {
            // Upright 2448 x 4352.
            #expect(fit.width == 169 && fit.height == 300)
            #expect(fill.width == 120 && fill.height == 213)
        } else {
            #expect(fit.width == 300 && fit.height == 169)
            #expect(fill.width == 178 && fill.height == 100)
        }
        let info = try JPEGInspector.inspect(fit.jpeg)
        #expect(info.storedWidth == fit.width && info.storedHeight == fit.height)
        #expect(info.orientation == 1)  // no EXIF in the output: it is upright
    }

    @Test("a target larger than the photo renders at full size (no upscale)")
    func noUpscale() throws {
        let rendered = try JPEGRenderer.render(
            Photos.small, request: RenderRequest(targetSize: PixelSize(width: 1000, height: 1000), contentMode: .aspectFill))
        #expect(rendered.width == 64 && rendered.height == 96)
    }

    @Test("sizes needing DCT scales above 1/8 are still exact")
    func intermediateScales() throws {
        // 5312x2988 to 1000 wide: scale 2/8 (1328x747) then Lanczos down to 1000x562.
        let wide = try JPEGRenderer.render(Photos.baseline, request: RenderRequest(targetSize: PixelSize(width: 1000, height: 1000), contentMode: .aspectFit))
        #expect(wide.width == 1000 && wide.height == 563)
        // Exactly a DCT scale: 2560x3837 at 3/8 is 960x1439, no resampling needed.
        let exact = try JPEGRenderer.render(Photos.portrait, request: RenderRequest(targetSize: PixelSize(width: 960, height: 1439), contentMode: .aspectFit))
        #expect(exact.width == 960 && exact.height == 1439)
    }

    @Test("invalid arguments", arguments: [(0, 100, 85), (100, -1, 85), (70000, 100, 85), (100, 100, 0), (100, 100, 101)])
    func invalidArguments(width: Int, height: Int, quality: Int) {
        let error = imagingError { () throws(ImagingError) in
            try JPEGRenderer.render(
                Photos.small, request: RenderRequest(targetSize: PixelSize(width: width, height: height), contentMode: .aspectFit, quality: quality))
        }
        #expect(error?.code == .invalidArgument)
    }

    @Test("quality changes the encoded size")
    func quality() throws {
        let low = try JPEGRenderer.render(Photos.landscape, request: RenderRequest(targetSize: PixelSize(width: 400, height: 400), contentMode: .aspectFit, quality: 20))
        let high = try JPEGRenderer.render(Photos.landscape, request: RenderRequest(targetSize: PixelSize(width: 400, height: 400), contentMode: .aspectFit, quality: 95))
        #expect(low.jpeg.count * 2 < high.jpeg.count)
    }

    @Test("rendered pixels look like the photo at every DCT scale")
    func renderMatchesAcrossScales() throws {
        // The same 200-wide output reached from scale 1/8 (decode 664 wide) and from a
        // 4x larger render (decode 2656 wide, then Lanczos): the two must agree.
        let direct = try DecodedPixels(
            jpeg: JPEGRenderer.render(Photos.baseline, request: RenderRequest(targetSize: PixelSize(width: 200, height: 200), contentMode: .aspectFit, quality: 95)).jpeg)
        let large = try JPEGRenderer.render(Photos.baseline, request: RenderRequest(targetSize: PixelSize(width: 2000, height: 2000), contentMode: .aspectFit, quality: 95))
        let viaLarge = try DecodedPixels(
            jpeg: JPEGRenderer.render(large.jpeg, request: RenderRequest(targetSize: PixelSize(width: 200, height: 200), contentMode: .aspectFit, quality: 95)).jpeg)
        #expect(direct.width == 200 && viaLarge.width == 200 && direct.height == viaLarge.height)
        #expect(direct.meanAbsoluteDifference(viaLarge) < 4)
    }

    @Test("timing: 256 px fit of the 5312x2988 photos (debug build)")
    func timing() throws {
        let clock = ContinuousClock()
        for (name, bytes) in [("baseline", Photos.baseline), ("progressive", Photos.progressive)] {
            _ = try JPEGRenderer.render(bytes, request: RenderRequest(targetSize: PixelSize(width: 256, height: 256), contentMode: .aspectFit))
            let runs = 5
            let elapsed = try clock.measure {
                for _ in 0..<runs {
                    _ = try JPEGRenderer.render(bytes, request: RenderRequest(targetSize: PixelSize(width: 256, height: 256), contentMode: .aspectFit))
                }
            }
            print("render 256px fit of 5312x2988 \(name): \(elapsed / runs) per image")
            #expect(elapsed / runs < .seconds(2))
        }
    }
}
