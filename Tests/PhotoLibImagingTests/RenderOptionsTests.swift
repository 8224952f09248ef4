import Foundation
import PhotoLibTestSupport
import Testing

@testable import PhotoLibImaging
import PhotoLibCore

/// The effect of each request option on the rendered image.
@Suite("render options")
struct RenderOptionsTests {
    /// 400×300 test card: four quadrants of solid colour (red, green / blue, white).
    static let card: [UInt8] = {
        var bytes = [UInt8](repeating: 0, count: 400 * 300 * 3)
        for y in 0..<300 {
            for x in 0..<400 {
                let colour: [UInt8] = y < 150 ? (x < 200 ? [220, 20, 20] : [20, 220, 20]) : (x < 200 ? [20, 20, 220] : [240, 240, 240])
                bytes.replaceSubrange(((y * 400 + x) * 3)..<((y * 400 + x) * 3 + 3), with: colour)
            }
        }
        do {
            return try LibJPEG.encode(PixelBuffer.make(width: 400, height: 300, components: 3, bytes: bytes), options: JPEGEncodeOptions(quality: 95, chromaSubsampling: .none), control: nil)
        } catch {
            fatalError("cannot encode the test card: \(error)")
        }
    }()

    func size(_ jpeg: [UInt8], _ request: RenderRequest) throws -> (Int, Int) {
        let image = try JPEGRenderer.render(jpeg, request: request)
        let decoded = try DecodedPixels(jpeg: image.jpeg)
        #expect(decoded.width == image.width && decoded.height == image.height)
        return (image.width, image.height)
    }

    @Test("maximum size and resize none give the stored (upright) size")
    func maximumAndNone() throws {
        #expect(try size(Self.card, RenderRequest(targetSize: PixelSize(width: 0, height: 0))) == (400, 300))
        #expect(try size(Self.card, RenderRequest(targetSize: PixelSize(width: 50, height: 50), resizeMode: .none)) == (400, 300))
        let rotated = ExifFixture.jpegWithExif(Self.card, orientation: 6)
        #expect(try size(rotated, RenderRequest(targetSize: PixelSize(width: 0, height: 0))) == (300, 400))
    }

    @Test("exact gives the fit and fill sizes exactly")
    func exact() throws {
        #expect(try size(Self.card, RenderRequest(targetSize: PixelSize(width: 100, height: 100), contentMode: .aspectFit)) == (100, 75))
        #expect(try size(Self.card, RenderRequest(targetSize: PixelSize(width: 100, height: 100), contentMode: .aspectFill)) == (133, 100))
    }

    @Test("fast returns the DCT-scaled decode when within 2x of the exact size")
    func fast() throws {
        // 400x300 into 100x100 fit: exact 100x75; DCT 2/8 gives exactly 100x75.
        #expect(try size(Self.card, RenderRequest(targetSize: PixelSize(width: 100, height: 100), resizeMode: .fast)) == (100, 75))
        // Into 90x90 fit: exact 90x68; the 2/8 decode (100x75) is within 2x, so fast returns it.
        #expect(try size(Self.card, RenderRequest(targetSize: PixelSize(width: 90, height: 90), resizeMode: .fast)) == (100, 75))
        #expect(try size(Self.card, RenderRequest(targetSize: PixelSize(width: 90, height: 90), resizeMode: .exact)) == (90, 68))
    }

    @Test("a crop selects that region of the upright image, then fits")
    func crop() throws {
        // The top-right quadrant is green.
        let request = RenderRequest(targetSize: PixelSize(width: 100, height: 100), crop: NormalizedRect(x: 0.5, y: 0, width: 0.5, height: 0.5))
        let image = try JPEGRenderer.render(Self.card, request: request)
        #expect((image.width, image.height) == (100, 75))
        let pixels = try DecodedPixels(jpeg: image.jpeg)
        let mean = pixels.mean(x: 10, y: 10, width: 80, height: 55)
        #expect(mean[1] > 180 && mean[0] < 60 && mean[2] < 60, "the crop is the green quadrant: \(mean)")
        // Upright coordinates: with orientation 3 (rotated 180°) the stored bottom-left (blue)
        // quadrant is the upright top-right one.
        let rotated = ExifFixture.jpegWithExif(Self.card, orientation: 3)
        let upright = try DecodedPixels(jpeg: try JPEGRenderer.render(rotated, request: request).jpeg)
        let rotatedMean = upright.mean(x: 10, y: 10, width: 80, height: 55)
        #expect(rotatedMean[2] > 180 && rotatedMean[0] < 60, "orientation 3: upright top-right is blue: \(rotatedMean)")
        // With orientation 6 the upright image is 300x400: the top-right quadrant (150x200)
        // is the stored top-left (red) quadrant.
        let six = ExifFixture.jpegWithExif(Self.card, orientation: 6)
        let sixImage = try JPEGRenderer.render(six, request: RenderRequest(targetSize: PixelSize(width: 0, height: 0), crop: NormalizedRect(x: 0.5, y: 0, width: 0.5, height: 0.5)))
        #expect((sixImage.width, sixImage.height) == (150, 200))
        let sixMean = try DecodedPixels(jpeg: sixImage.jpeg).mean(x: 20, y: 20, width: 110, height: 160)
        #expect(sixMean[0] > 180 && sixMean[1] < 60, "orientation 6: upright top-right is stored top-left (red): \(sixMean)")
    }

    @Test("invalid crops are refused", arguments: [
        NormalizedRect(x: -0.1, y: 0, width: 0.5, height: 0.5), NormalizedRect(x: 0.6, y: 0, width: 0.5, height: 0.5),
        NormalizedRect(x: 0, y: 0, width: 0, height: 0.5), NormalizedRect(x: 0, y: 0, width: .nan, height: 0.5),
    ])
    func invalidCrop(_ rect: NormalizedRect) {
        let error = imagingError { () throws(ImagingError) in try JPEGRenderer.render(Self.card, request: RenderRequest(targetSize: PixelSize(width: 64, height: 64), crop: rect)) }
        #expect(error?.code == .invalidArgument)
    }

    @Test("degraded: early scan of a progressive JPEG, like the final image at lower quality")
    func degradedProgressive() throws {
        let request = RenderRequest(targetSize: PixelSize(width: 1024, height: 1024))
        let degraded = try #require(try JPEGRenderer.renderDegraded(Photos.progressive, request: request))
        #expect(degraded.source == .progressiveEarlyScan)
        #expect((degraded.image.width, degraded.image.height) == (664, 374), "1/8 of 5312x2988, never upscaled")
        // It looks like the final image, at lower quality.
        let final = try JPEGRenderer.render(Photos.progressive, request: RenderRequest(targetSize: PixelSize(width: 664, height: 664)))
        let psnr = try DecodedPixels(jpeg: degraded.image.jpeg).psnr(DecodedPixels(jpeg: final.jpeg))
        #expect(psnr > 22, "the degraded image resembles the final one: \(psnr) dB")
        // How much cheaper it is, is a figure for Scripts/bench-images (section 2), not a
        // timed test: this test compared the two times and failed on a busy machine.
        #expect(degraded.image.jpeg.count < final.jpeg.count, "the early scan carries less detail than the final image")
    }

    @Test("degraded: a 1/8 decode for baseline when the final needs more; none when the final is as cheap")
    func degradedBaseline() throws {
        let large = try #require(try JPEGRenderer.renderDegraded(Photos.baseline, request: RenderRequest(targetSize: PixelSize(width: 1024, height: 1024))))
        #expect(large.source == .eighthScaleDecode)
        #expect(try JPEGRenderer.renderDegraded(Photos.baseline, request: RenderRequest(targetSize: PixelSize(width: 256, height: 256))) == nil)
    }

    @Test("degraded: the EXIF thumbnail when it is large enough")
    func exifThumbnail() throws {
        let thumbnail = try JPEGRenderer.render(Self.card, request: RenderRequest(targetSize: PixelSize(width: 160, height: 160)))
        let photo = try JPEGRenderer.reencode(Photos.landscape, options: JPEGEncodeOptions(quality: 80))
        // An APP1 Exif segment holding IFD0 + IFD1 pointing at the thumbnail.
        let jpeg = ExifFixture.jpegWithAPP1(photo, payload: Self.exifWithThumbnail(thumbnail.jpeg))
        // The thumbnail's aspect (4:3) differs from the photo's (16:9): refused.
        #expect(try JPEGRenderer.renderDegraded(jpeg, request: RenderRequest(targetSize: PixelSize(width: 256, height: 256)))?.source != .exifThumbnail)
        let matching = try JPEGRenderer.reencode(Self.card, options: JPEGEncodeOptions(quality: 80))
        let withThumb = ExifFixture.jpegWithAPP1(matching, payload: Self.exifWithThumbnail(thumbnail.jpeg))
        let degraded = try #require(try JPEGRenderer.renderDegraded(withThumb, request: RenderRequest(targetSize: PixelSize(width: 200, height: 200))))
        #expect(degraded.source == .exifThumbnail)
        #expect((degraded.image.width, degraded.image.height) == (160, 120))
    }

    /// "Exif\0\0" + a little-endian TIFF with an empty IFD0 and an IFD1 carrying the thumbnail.
    static func exifWithThumbnail(_ thumbnail: [UInt8]) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func u32(_ v: Int) -> [UInt8] { u16(v & 0xFFFF) + u16(v >> 16) }
        var tiff: [UInt8] = Array("II".utf8) + u16(42) + u32(8)
        // IFD0 at 8: one entry (Orientation = 1), next IFD at 26.
        tiff += u16(1) + u16(0x0112) + u16(3) + u32(1) + u16(1) + u16(0) + u32(26)
        // IFD1 at 26: JPEGInterchangeFormat (0x0201) and its length (0x0202), no next IFD.
        let dataOffset = 26 + 2 + 2 * 12 + 4
        tiff += u16(2)
        tiff += u16(0x0201) + u16(4) + u32(1) + u32(dataOffset)
        tiff += u16(0x0202) + u16(4) + u32(1) + u32(thumbnail.count)
        tiff += u32(0)
        tiff += thumbnail
        return Array("Exif".utf8) + [0, 0] + tiff
    }

    @Test("cancellation stops a running decode")
    func cancel() throws {
        let control = RenderControl()
        let data = Photos.progressive
        let outcome = CancelOutcome()
        // A plain thread, not a task: other tests may be holding the cooperative threads.
        let thread = Thread {
            do throws(ImagingError) {
                _ = try JPEGRenderer.render(data, request: RenderRequest(targetSize: PixelSize(width: 0, height: 0)), control: control)
            } catch {
                outcome.set(error)
            }
            outcome.finish()
        }
        thread.start()
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(30)
        while control.progress == 0 && !outcome.isFinished && clock.now < deadline { usleep(1000) }
        let progressAtCancel = control.progress
        let cancelledAt = clock.now
        control.cancel()
        while !outcome.isFinished && clock.now < deadline { usleep(1000) }
        let stopped = clock.now - cancelledAt
        #expect(progressAtCancel > 0 && progressAtCancel < 1, "cancelled while decoding (progress \(progressAtCancel))")
        #expect(outcome.error?.code == .cancelled, "\(String(describing: outcome.error))")
        #expect(stopped < .milliseconds(500), "stopped \(stopped) after the cancel")
    }

    /// What the cancelled render's thread reports.
    final class CancelOutcome: @unchecked Sendable {
        private let lock = NSLock()
        private var storedError: ImagingError?
        private var finished = false
        func set(_ error: ImagingError) { lock.withLock { storedError = error } }
        func finish() { lock.withLock { finished = true } }
        var error: ImagingError? { lock.withLock { storedError } }
        var isFinished: Bool { lock.withLock { finished } }
    }

    @Test("a progressive JPEG with thousands of scans is refused fast")
    func scanBomb() throws {
        // SOI, tables and frame of a small progressive JPEG, then its first (DC) scan
        // repeated 5000 times: a valid-looking but hostile stream.
        let small = try JPEGRenderer.reencode(Photos.small, options: JPEGEncodeOptions(quality: 80, progressive: true))
        let sos = try #require(Self.offsets(of: 0xDA, in: small).first)
        let secondSOS = try #require(Self.offsets(of: 0xDA, in: small).dropFirst().first)
        let scan = Array(small[sos..<secondSOS])
        var bomb = Array(small[..<sos])
        for _ in 0..<5000 { bomb += scan }
        bomb += [0xFF, 0xD9]
        let clock = ContinuousClock()
        var error: ImagingError?
        let elapsed = clock.measure {
            error = imagingError { () throws(ImagingError) in try JPEGRenderer.render(bomb, request: RenderRequest(targetSize: PixelSize(width: 64, height: 64))) }
        }
        #expect(error?.code == .tooLarge || error?.code == .corrupt, "\(String(describing: error))")
        #expect(elapsed < .seconds(2), "refused in \(elapsed)")
        // The early-scan path reads only the first scans: it answers (or refuses) quickly too.
        let earlyElapsed = clock.measure {
            _ = try? JPEGRenderer.renderDegraded(bomb, request: RenderRequest(targetSize: PixelSize(width: 64, height: 64)))
        }
        #expect(earlyElapsed < .seconds(2), "early scan took \(earlyElapsed)")
    }

    static func offsets(of marker: UInt8, in bytes: [UInt8]) -> [Int] {
        var found: [Int] = []
        var index = 2
        while index + 1 < bytes.count {
            if bytes[index] == 0xFF && bytes[index + 1] == marker { found.append(index) }
            index += 1
        }
        return found
    }

    @Test("contact sheets lay thumbnails out in a grid")
    func contactSheet() throws {
        let thumb = try JPEGRenderer.render(Self.card, request: RenderRequest(targetSize: PixelSize(width: 64, height: 64))).jpeg
        let sheet = try ContactSheet.compose([thumb, thumb, thumb], columns: 2, cell: 64, spacing: 4)
        #expect((sheet.width, sheet.height) == (2 * 64 + 3 * 4, 2 * 64 + 3 * 4))
        let pixels = try DecodedPixels(jpeg: sheet.jpeg)
        // Cell (1, 1) is empty: background grey; cell (0, 0) top-left quadrant is red.
        let empty = pixels.mean(x: 4 + 68 + 10, y: 4 + 68 + 10, width: 40, height: 40)
        #expect(empty.allSatisfy { abs($0 - 40) < 8 }, "\(empty)")
        let red = pixels.mean(x: 8, y: 14, width: 20, height: 15)
        #expect(red[0] > 170 && red[1] < 80, "\(red)")
    }
}
