import Foundation
import PhotoLibTestSupport
import Testing

@testable import PhotoLibImaging
import PhotoLibCore

/// Every kind of JPEG renders with the colours of an independent reference decoder
/// (Pillow): baseline, progressive, 4:4:4 / 4:2:2 / 4:2:0, restart markers, grayscale,
/// CMYK, YCCK and all eight EXIF orientations. Variants are derived from one photo through
/// the shim's encoder.
@Suite("every kind of JPEG")
struct JPEGKindsTests {
    /// A 320×480 colour photo (the portrait fitted), the source of every variant.
    static let source: [UInt8] = {
        do {
            return try JPEGRenderer.render(Photos.portrait, request: RenderRequest(targetSize: PixelSize(width: 320, height: 480), contentMode: .aspectFit, quality: 95)).jpeg
        } catch {
            fatalError("cannot make the test source: \(error)")
        }
    }()

    /// Renders at full size (our pipeline: decode, orient, encode at q85) and compares with
    /// Pillow's decode of the same bytes.
    func expectMatchesReference(_ jpeg: [UInt8], minimumPSNR: Double = 30, _ comment: Comment) throws {
        let rendered = try JPEGRenderer.render(jpeg, request: RenderRequest(targetSize: PixelSize(width: 0, height: 0), resizeMode: .none))
        let ours = try DecodedPixels(jpeg: rendered.jpeg).rgb
        let reference = try ReferenceDecoder.decode(jpeg)
        #expect(ours.width == reference.width && ours.height == reference.height, "\(comment): size \(ours.width)x\(ours.height) vs reference \(reference.width)x\(reference.height)")
        guard ours.width == reference.width, ours.height == reference.height else { return }
        let psnr = ours.psnr(reference)
        #expect(psnr >= minimumPSNR, "\(comment): PSNR \(psnr) dB against the reference decoder")
    }

    @Test("baseline and progressive at 4:4:4, 4:2:2, 4:2:0", arguments: [false, true], JPEGEncodeOptions.ChromaSubsampling.allCases)
    func sampling(progressive: Bool, subsampling: JPEGEncodeOptions.ChromaSubsampling) throws {
        let jpeg = try JPEGRenderer.reencode(Self.source, options: JPEGEncodeOptions(quality: 90, chromaSubsampling: subsampling, progressive: progressive))
        let info = try JPEGInspector.inspect(jpeg)
        #expect(info.isProgressive == progressive)
        try expectMatchesReference(jpeg, "\(progressive ? "progressive" : "baseline") \(subsampling)")
    }

    @Test("restart markers every MCU row, baseline and progressive", arguments: [false, true])
    func restartMarkers(progressive: Bool) throws {
        let jpeg = try JPEGRenderer.reencode(Self.source, options: JPEGEncodeOptions(quality: 90, progressive: progressive, restartIntervalRows: 1))
        let markers = zip(jpeg, jpeg.dropFirst()).filter { $0 == 0xFF && (0xD0...0xD7).contains($1) }.count
        #expect(markers >= 20, "expected a restart marker per MCU row, found \(markers)")
        try expectMatchesReference(jpeg, "restart markers")
    }

    @Test("grayscale stays grayscale and matches")
    func grayscale() throws {
        let rgb = try DecodedPixels(jpeg: Self.source)
        var gray = [UInt8](repeating: 0, count: rgb.width * rgb.height)
        for index in gray.indices {
            let r = Int(rgb.bytes[index * 3]), g = Int(rgb.bytes[index * 3 + 1]), b = Int(rgb.bytes[index * 3 + 2])
            gray[index] = UInt8((r * 299 + g * 587 + b * 114) / 1000)
        }
        let pixels = try PixelBuffer.make(width: rgb.width, height: rgb.height, components: 1, bytes: gray)
        let jpeg = try LibJPEG.encode(pixels, options: JPEGEncodeOptions(quality: 90), control: nil)
        #expect(try JPEGInspector.inspect(jpeg).components == 1)
        let rendered = try JPEGRenderer.render(jpeg, request: RenderRequest(targetSize: PixelSize(width: 0, height: 0), resizeMode: .none))
        #expect(try DecodedPixels(jpeg: rendered.jpeg).components == 1, "a grayscale photo renders as grayscale")
        try expectMatchesReference(jpeg, "grayscale")
    }

    /// CMYK pixels in Adobe's inverted convention whose RGB equivalent is the source.
    static func cmykPixels() throws -> PixelBuffer {
        let rgb = try DecodedPixels(jpeg: source)
        var cmyk = [UInt8](repeating: 0, count: rgb.width * rgb.height * 4)
        for index in 0..<(rgb.width * rgb.height) {
            let r = Int(rgb.bytes[index * 3]), g = Int(rgb.bytes[index * 3 + 1]), b = Int(rgb.bytes[index * 3 + 2])
            let k = max(r, g, b, 1)  // inverted K: 255 means no black ink
            cmyk[index * 4] = UInt8(r * 255 / k)
            cmyk[index * 4 + 1] = UInt8(g * 255 / k)
            cmyk[index * 4 + 2] = UInt8(b * 255 / k)
            cmyk[index * 4 + 3] = UInt8(k)
        }
        return try PixelBuffer.make(width: rgb.width, height: rgb.height, components: 4, bytes: cmyk)
    }

    @Test("CMYK (Adobe, inverted) and YCCK match the reference and the original colours", arguments: [true, false])
    func cmyk(plain: Bool) throws {
        let jpeg = try LibJPEG.encode(try Self.cmykPixels(), options: JPEGEncodeOptions(quality: 92, plainCMYK: plain), control: nil)
        let info = try JPEGInspector.inspect(jpeg)
        #expect(info.components == 4)
        try expectMatchesReference(jpeg, plain ? "CMYK" : "YCCK")
        // And the colours are the photo's own (not inverted, not shifted).
        let rendered = try DecodedPixels(jpeg: try JPEGRenderer.render(jpeg, request: RenderRequest(targetSize: PixelSize(width: 0, height: 0), resizeMode: .none)).jpeg)
        let original = try DecodedPixels(jpeg: Self.source)
        #expect(rendered.psnr(original) >= 28, "\(plain ? "CMYK" : "YCCK") keeps the colours: \(rendered.psnr(original)) dB")
    }

    @Test("all eight EXIF orientations come out upright like the reference", arguments: 1...8)
    func orientation(_ orientation: Int) throws {
        let jpeg = ExifFixture.jpegWithExif(Self.source, orientation: orientation)
        try expectMatchesReference(jpeg, "orientation \(orientation)")
        let info = try JPEGInspector.inspect(jpeg)
        #expect(info.pixelWidth == (orientation >= 5 ? 480 : 320))
    }
}
