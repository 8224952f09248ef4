import Foundation
import PhotoLibCore
import PhotoLibTestSupport
import Testing

@testable import PhotoLibImaging

/// A progressive JPEG decoded at 1/8 from only the scans that scale reads (the C shim's
/// `plj_scans.c`) gives the pixels of the whole stream decoded at 1/8, byte for byte, and a
/// render built on it the same JPEG bytes; the scan limits still count the skipped scans.
@Suite("progressive JPEGs at 1/8: unneeded scans skipped, same bytes")
struct ProgressiveScanSkippingTests {
    /// Every JPEG of the test data: the samples, the test photos, the media fixtures and
    /// their progressive variants (`Tests/Fixtures/media/progressive`, made by
    /// `Scripts/media-fixtures/progressive-jpegs.sh`).
    static let testDataJPEGs: [String] = {
        var paths: [String] = []
        for folder in ["Samples", "Tests/Fixtures"] {
            let root = Fixtures.path(folder)
            let names = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
            for name in names where name.lowercased().hasSuffix(".jpg") || name.lowercased().hasSuffix(".jpeg") {
                paths.append(root + "/" + name)
            }
        }
        return paths.sorted()
    }()

    /// The progressive ones (by their frame header).
    static let progressiveJPEGs: [String] = testDataJPEGs.filter { path in
        guard let bytes = try? Fixtures.bytes(at: path), let header = try? LibJPEG.readHeader(bytes, limits: .default) else {
            return false
        }
        return header.isProgressive
    }

    static func progressive(_ name: String) throws -> [UInt8] {
        try Media.bytes("progressive/" + name)
    }

    /// The outcome of a decode: pixels, or the error's code and message.
    enum Outcome: Equatable {
        case pixels(width: Int, height: Int, components: Int, bytes: [UInt8])
        case failure(ImagingError.Code, String)
    }

    static func decode(_ bytes: [UInt8], skip: Bool, limits: ImagingLimits = .default) -> (outcome: Outcome, skipped: Int) {
        do {
            let decoded = try LibJPEG.decode(bytes, scale: 1, crop: nil, skipUnneededScans: skip, limits: limits, control: nil)
            let pixels = decoded.pixels
            return (.pixels(width: pixels.width, height: pixels.height, components: pixels.components, bytes: pixels.bytes), decoded.skippedScans)
        } catch {
            return (.failure(error.code, error.message), 0)
        }
    }

    @Test("the test data holds progressive files of every kind")
    func inventory() {
        let names = Self.progressiveJPEGs.map { ($0 as NSString).lastPathComponent }
        for expected in [
            "p02_seeding_5312x2988_prog420_q85.jpg", "p05_bridge_4352x2448_prog422_q90.jpg", "prog444.jpg", "prog420.jpg",
            "prog422.jpg", "prog440.jpg", "proggray.jpg", "prog420_restart.jpg", "prog420_custom_scans.jpg",
            "prog420_truncated.jpg", "prog444_incomplete_ac.jpg", "prog444_no_luma_ac.jpg",
        ] {
            #expect(names.contains(expected), "\(expected) is among the progressive test files \(names)")
        }
    }

    @Test("every progressive file of the test data: the same 1/8 pixels, byte for byte, with scans skipped")
    func everyProgressiveFile() throws {
        // The files that read every scan: truncated, or a full decode that smooths blocks.
        let wholeDecodes = ["prog420_truncated.jpg", "prog444_incomplete_ac.jpg", "prog444_no_luma_ac.jpg"]
        var skippedFiles = 0
        for path in Self.progressiveJPEGs {
            let bytes = try Fixtures.bytes(at: path)
            let full = Self.decode(bytes, skip: false)
            let fast = Self.decode(bytes, skip: true)
            let same = full.outcome == fast.outcome
            #expect(same, "\(path): the 1/8 decode with scans skipped differs from the full one")
            let name = (path as NSString).lastPathComponent
            #expect((fast.skipped > 0) != wholeDecodes.contains(name), "\(name): \(fast.skipped) scans skipped")
            if fast.skipped > 0 { skippedFiles += 1 }
        }
        #expect(skippedFiles >= 10, "files with skipped scans: \(skippedFiles) of \(Self.progressiveJPEGs.count)")
    }

    @Test("a 256 px render of every progressive file: the same JPEG bytes as one from the full 1/8 decode")
    func renders() throws {
        let requests = [
            RenderRequest(targetSize: PixelSize(width: 256, height: 256)),
            RenderRequest(targetSize: PixelSize(width: 40, height: 40), contentMode: .aspectFill, crop: NormalizedRect(x: 0.1, y: 0.2, width: 0.5, height: 0.6)),
        ]
        for path in Self.progressiveJPEGs where !path.hasSuffix("_truncated.jpg") {
            let bytes = try Fixtures.bytes(at: path)
            for request in requests {
                let plan = try JPEGRenderer.plan(bytes, request: request)
                guard plan.dctScale == 1 else { continue }
                let rendered = try JPEGRenderer.render(bytes, request: request)
                // The reference: the same pipeline from the whole stream decoded at 1/8.
                let crop = JPEGRenderer.scaledCrop(plan.storedCrop, storedWidth: plan.storedWidth, storedHeight: plan.storedHeight, scale: 1)
                let full = try LibJPEG.decode(bytes, scale: 1, crop: crop, skipUnneededScans: false, limits: .default, control: nil)
                let reference = try JPEGRenderer.finish(full.pixels, plan: plan, request: request, quality: request.quality, limits: .default, control: nil)
                let same = rendered.jpeg == reference.jpeg
                #expect(same, "\(path) \(request.targetSize): the render's JPEG differs from the full decode's")
            }
        }
    }

    @Test("which scans are read: DC only, plus the chroma AC of 4:2:0 (2×2 IDCT)")
    func plans() throws {
        let p02 = try LibJPEG.scanPlan(Photos.progressive, scale: 1, limits: .default)
        #expect(p02.skips && p02.idctSizes.prefix(3) == [1, 2, 2])
        #expect(p02.totalScans == 10 && p02.keptScans == 6, "4:2:0: DC scans and the four chroma AC scans: \(p02)")
        #expect(p02.keptBytes * 3 < p02.totalBytes, "most bytes are luma AC: \(p02.keptBytes) of \(p02.totalBytes)")
        let p05 = try LibJPEG.scanPlan(Photos.landscape, scale: 1, limits: .default)
        #expect(p05.skips && p05.idctSizes.prefix(3) == [1, 1, 1] && p05.keptScans == 2, "4:2:2: the two DC scans only: \(p05)")
        for name in ["prog444.jpg", "prog422.jpg", "prog440.jpg"] {
            let plan = try LibJPEG.scanPlan(try Self.progressive(name), scale: 1, limits: .default)
            #expect(plan.skips && plan.keptScans == 2 && plan.totalScans == 10, "\(name): \(plan)")
        }
        let gray = try LibJPEG.scanPlan(try Self.progressive("proggray.jpg"), scale: 1, limits: .default)
        #expect(gray.skips && gray.keptScans == 2 && gray.totalScans == 6, "grayscale: \(gray)")
        // Custom script: 4 luma AC scans skipped, and the chroma band of zig-zag 3 (row 2,
        // column 0), which the 2×2 IDCT never reads.
        let custom = try LibJPEG.scanPlan(try Self.progressive("prog420_custom_scans.jpg"), scale: 1, limits: .default)
        #expect(custom.skips && custom.totalScans == 14 && custom.keptScans == 9, "custom scans: \(custom)")
        let restart = try LibJPEG.scanPlan(try Self.progressive("prog420_restart.jpg"), scale: 1, limits: .default)
        #expect(restart.skips && restart.keptScans == 6, "restart markers: \(restart)")
        // Files whose full decode smooths blocks keep the full decode.
        for name in ["prog444_incomplete_ac.jpg", "prog444_no_luma_ac.jpg"] {
            let plan = try LibJPEG.scanPlan(try Self.progressive(name), scale: 1, limits: .default)
            #expect(!plan.skips && plan.reason.contains("smooth"), "\(name): \(plan)")
        }
        let truncated = try LibJPEG.scanPlan(try Self.progressive("prog420_truncated.jpg"), scale: 1, limits: .default)
        #expect(!truncated.skips && truncated.reason.contains("EOI"), "\(truncated)")
        // Scales above 1/8 and baseline files take the existing path.
        #expect(try !LibJPEG.scanPlan(Photos.progressive, scale: 2, limits: .default).skips)
        #expect(try LibJPEG.scanPlan(Photos.baseline, scale: 1, limits: .default).reason.contains("progressive"))
        #expect(Self.decode(Photos.baseline, skip: true).skipped == 0)
    }

    @Test("a truncated progressive file is refused both ways, as truncated")
    func truncated() throws {
        let bytes = try Self.progressive("prog420_truncated.jpg")
        let fast = Self.decode(bytes, skip: true).outcome
        #expect(fast == Self.decode(bytes, skip: false).outcome)
        guard case .failure(let code, _) = fast else {
            Issue.record("a truncated file decoded")
            return
        }
        #expect(code == .truncated)
    }

    @Test("skipped scans still count against the scan limits, with the same refusal")
    func limits() throws {
        let bytes = try Self.progressive("prog444.jpg")  // 10 scans, 2 of them read at 1/8
        let fewScans = ImagingLimits(maxScans: 5)
        let fast = Self.decode(bytes, skip: true, limits: fewScans).outcome
        #expect(fast == Self.decode(bytes, skip: false, limits: fewScans).outcome)
        #expect(fast == .failure(.tooLarge, "JPEG has more than 5 scans (the configured maximum); refusing it"))
        // 401×267 pixels: 3 scans' worth of work allowed, the file needs 10.
        let littleWork = ImagingLimits(maxScanPixels: 401 * 267 * 3)
        let fastWork = Self.decode(bytes, skip: true, limits: littleWork).outcome
        #expect(fastWork == Self.decode(bytes, skip: false, limits: littleWork).outcome)
        guard case .failure(.tooLarge, let message) = fastWork else {
            Issue.record("the decode-work limit did not refuse the file: \(fastWork)")
            return
        }
        #expect(message.contains("4 scans or more"), "\(message)")
    }

    @Test("a CMYK (YCCK) progressive file: the same 1/8 pixels with scans skipped")
    func cmyk() throws {
        let jpeg = try LibJPEG.encode(try JPEGKindsTests.cmykPixels(), options: JPEGEncodeOptions(quality: 90, progressive: true), control: nil)
        let fast = Self.decode(jpeg, skip: true)
        let same = fast.outcome == Self.decode(jpeg, skip: false).outcome
        #expect(same && fast.skipped > 0, "YCCK: skipped \(fast.skipped)")
    }

    @Test("the degraded image of a progressive file comes from the skipped-scan decode; none when the final is that decode")
    func degraded() throws {
        let small = RenderRequest(targetSize: PixelSize(width: 256, height: 256))
        #expect(try JPEGRenderer.renderDegraded(Photos.landscape, request: small) == nil, "at 1/8 the final render is as cheap")
        let request = RenderRequest(targetSize: PixelSize(width: 1024, height: 1024))
        let degraded = try #require(try JPEGRenderer.renderDegraded(Photos.landscape, request: request))
        #expect(degraded.source == .progressiveEarlyScan)
        let plan = try JPEGRenderer.plan(Photos.landscape, request: request)
        let full = try LibJPEG.decode(Photos.landscape, scale: 1, crop: nil, skipUnneededScans: false, limits: .default, control: nil)
        let reference = try JPEGRenderer.finish(full.pixels, plan: plan, request: request, quality: 70, limits: .default, control: nil, neverUpscale: true)
        let same = degraded.image.jpeg == reference.jpeg
        #expect(same, "the degraded image is the full 1/8 decode's, encoded at quality 70")
    }
}
