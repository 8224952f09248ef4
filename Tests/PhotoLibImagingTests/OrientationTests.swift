import PhotoLibTestSupport
import PhotoLibCore
import Testing

@testable import PhotoLibImaging

@Suite("EXIF orientation is applied to the pixels")
struct OrientationTests {
    /// The landscape photo rendered upright (orientation 1) at 256x144, decoded.
    static let reference: DecodedPixels = {
        do {
            let rendered = try JPEGRenderer.render(
                Photos.landscape, request: RenderRequest(targetSize: PixelSize(width: 256, height: 256), contentMode: .aspectFit, quality: 95))
            return try DecodedPixels(jpeg: rendered.jpeg)
        } catch {
            fatalError("reference render failed: \(error)")
        }
    }()

    @Test("exactly the quarter turns (EXIF 5...8) swap the sides, whatever follows them", arguments: 0...9)
    func swapsAxes(code: Int) {
        let turn = Orientation(exif: code)
        let swaps = (5...8).contains(code)
        #expect(turn.swapsAxes == swaps)
        #expect(turn.sides(width: 40, height: 30) == (swaps ? (30, 40) : (40, 30)))
        // The inverse turns back, and a quarter turn more swaps (or unswaps) them again.
        #expect(turn.inverse.swapsAxes == swaps)
        #expect(Orientation.quarterTurnClockwise.after(turn).swapsAxes == !swaps)
        #expect(Orientation.mirror.after(turn).swapsAxes == swaps)
    }

    @Test("orientation N equals the reference transformed in Swift", arguments: 2...8)
    func matchesSwiftTransform(orientation: Int) throws {
        let jpeg = ExifFixture.jpegWithExif(Photos.landscape, orientation: orientation)
        let rendered = try JPEGRenderer.render(
            jpeg, request: RenderRequest(targetSize: PixelSize(width: 256, height: 256), contentMode: .aspectFit, quality: 95))
        let pixels = try DecodedPixels(jpeg: rendered.jpeg)
        let expected = Self.reference.oriented(orientation)
        #expect(pixels.width == expected.width && pixels.height == expected.height)
        let difference = pixels.meanAbsoluteDifference(expected)
        #expect(difference < 3, "orientation \(orientation): mean difference \(difference)")
        // The check can fail: every other transform of the same shape is far off.
        for other in 1...8 where other != orientation && (other >= 5) == (orientation >= 5) {
            let wrong = Self.reference.oriented(other)
            #expect(pixels.meanAbsoluteDifference(wrong) > 10, "orientation \(orientation) looks like \(other)")
        }
    }

    @Test("the C transform matches the Swift transform exactly on raw pixels", arguments: 1...8)
    func exactOnRawPixels(orientation: Int) throws {
        // A 5x3 image whose every sample is distinct.
        let bytes = (0..<(5 * 3 * 3)).map { UInt8($0) }
        let source = try PixelBuffer.make(width: 5, height: 3, components: 3, bytes: bytes)
        let oriented = try LibJPEG.orient(source, orientation: orientation)
        let expected = DecodedPixels(width: 5, height: 3, components: 3, bytes: bytes).oriented(orientation)
        #expect(oriented.width == expected.width && oriented.height == expected.height)
        #expect(oriented.bytes == expected.bytes)
    }

    @Test("orientation 6 puts the stored bottom-left corner at the top-left")
    func cornerCheck() throws {
        // Stored 4x2 gray image, bottom-left pixel = 200, everything else 0.
        var bytes = [UInt8](repeating: 0, count: 8)
        bytes[4] = 200  // (x 0, y 1)
        let source = try PixelBuffer.make(width: 4, height: 2, components: 1, bytes: bytes)
        let rotated = try LibJPEG.orient(source, orientation: 6)
        #expect(rotated.width == 2 && rotated.height == 4)
        #expect(rotated.bytes[0] == 200)  // rotated 90° clockwise: bottom-left → top-left
        #expect(rotated.bytes.filter { $0 != 0 }.count == 1)
    }
}
