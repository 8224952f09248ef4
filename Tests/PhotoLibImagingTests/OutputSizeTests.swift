import Testing

@testable import PhotoLibImaging
import PhotoLibCore

@Suite("Output size (PhotoKit semantics)")
struct OutputSizeTests {
    typealias Case = (w: Int, h: Int, tw: Int, th: Int, mode: ContentMode, ow: Int, oh: Int)

    static let cases: [Case] = [
        (5312, 2988, 256, 256, .aspectFit, 256, 144),
        (5312, 2988, 256, 256, .aspectFill, 455, 256),
        (2560, 3837, 256, 256, .aspectFit, 171, 256),
        (2560, 3837, 256, 256, .aspectFill, 256, 384),
        (2448, 4352, 300, 300, .aspectFit, 169, 300),
        (2448, 4352, 300, 300, .aspectFill, 300, 533),
        (5312, 2988, 1000, 100, .aspectFit, 178, 100),
        // 2988 * 1000 / 5312 = 562.5 exactly: rounds half away from zero.
        (5312, 2988, 1000, 100, .aspectFill, 1000, 563),
        // Never upscale: a target larger than the image gives the image's size.
        (640, 480, 4000, 4000, .aspectFit, 640, 480),
        (640, 480, 4000, 4000, .aspectFill, 640, 480),
        // Fill with one side already at full size: s = max(...) = 1.
        (640, 480, 640, 10, .aspectFill, 640, 480),
        // Tiny targets never give 0.
        (5312, 2988, 1, 1, .aspectFit, 1, 1),
        (5312, 10, 100, 100, .aspectFit, 100, 1),
        // Same aspect ratio: both sides exact.
        (5312, 2988, 2656, 1494, .aspectFit, 2656, 1494),
    ]

    @Test("exact sizes", arguments: cases.indices)
    func exactSizes(index: Int) throws {
        let c = Self.cases[index]
        let size = try JPEGRenderer.outputSize(
            uprightWidth: c.w, uprightHeight: c.h, targetWidth: c.tw, targetHeight: c.th, contentMode: c.mode)
        #expect(size.width == c.ow && size.height == c.oh, "\(c)")
    }

    @Test("the constrained side equals the target exactly")
    func constrainedSideIsExact() throws {
        // Many awkward ratios: the constrained side must never be off by one.
        for target in stride(from: 7, through: 997, by: 10) {
            for (w, h) in [(5312, 2988), (2560, 3837), (4352, 2448), (3001, 1999)] {
                let fit = try JPEGRenderer.outputSize(
                    uprightWidth: w, uprightHeight: h, targetWidth: target, targetHeight: target,
                    contentMode: .aspectFit)
                #expect(max(fit.width, fit.height) == target)
                #expect(fit.width <= target && fit.height <= target)
                let fill = try JPEGRenderer.outputSize(
                    uprightWidth: w, uprightHeight: h, targetWidth: target, targetHeight: target,
                    contentMode: .aspectFill)
                #expect(min(fill.width, fill.height) == target)
                #expect(fill.width >= target && fill.height >= target)
            }
        }
    }

    @Test("invalid targets are refused", arguments: [(0, 10), (10, 0), (-5, 10), (65536, 10), (10, 1 << 40)])
    func invalidTargets(width: Int, height: Int) {
        let error = imagingError { () throws(ImagingError) in
            try JPEGRenderer.outputSize(
                uprightWidth: 100, uprightHeight: 100, targetWidth: width, targetHeight: height,
                contentMode: .aspectFit)
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("target size") == true)
    }

    @Test("DCT scale is the smallest N/8 whose output covers the size")
    func dctScale() {
        #expect(JPEGRenderer.dctScale(storedWidth: 5312, storedHeight: 2988, covering: 256, 144) == 1)
        #expect(JPEGRenderer.dctScale(storedWidth: 5312, storedHeight: 2988, covering: 664, 374) == 1)
        #expect(JPEGRenderer.dctScale(storedWidth: 5312, storedHeight: 2988, covering: 665, 374) == 2)
        #expect(JPEGRenderer.dctScale(storedWidth: 5312, storedHeight: 2988, covering: 664, 375) == 2)
        #expect(JPEGRenderer.dctScale(storedWidth: 5312, storedHeight: 2988, covering: 2000, 1125) == 4)
        #expect(JPEGRenderer.dctScale(storedWidth: 5312, storedHeight: 2988, covering: 5312, 2988) == 8)
        // libjpeg rounds scaled sizes up: ceil(2560 * 3 / 8) = 960, ceil(3837 * 3 / 8) = 1439.
        #expect(LibJPEG.scaledDimension(3837, scale: 3) == 1439)
        #expect(JPEGRenderer.dctScale(storedWidth: 2560, storedHeight: 3837, covering: 960, 1439) == 3)
    }
}
