import Foundation
import PhotoLibCore
import PhotoLibTestSupport
import Testing

@testable import PhotoLibImaging
@testable import PhotoLibMedia

@Suite("Video poster frames render upright at the requested size")
struct VideoPosterRendererTests {
    static func request(_ width: Int, _ height: Int, _ mode: ContentMode = .aspectFit, crop: NormalizedRect? = nil) -> RenderRequest {
        RenderRequest(targetSize: PixelSize(width: width, height: height), contentMode: mode, crop: crop, quality: 90)
    }

    @Test("the rotated MOV renders upright (90° clockwise), fitted, not black")
    func rotatedUpright() throws {
        let rendered = try VideoPosterRenderer.render(path: VideoFixtures.rotated, request: Self.request(120, 120))
        #expect(rendered.width == 90 && rendered.height == 120)
        let pixels = try DecodedPixels(jpeg: rendered.jpeg)
        #expect(pixels.width == 90 && pixels.height == 120 && pixels.components == 3)
        // Stored TL red, TR green, BL blue, BR yellow; turned 90° clockwise the stored left
        // column becomes the top row: upright TL blue, TR red, BL yellow, BR green.
        #expect(VideoFixtures.name(VideoFixtures.colour(pixels, 0.25, 0.25)) == "blue")
        #expect(VideoFixtures.name(VideoFixtures.colour(pixels, 0.75, 0.25)) == "red")
        #expect(VideoFixtures.name(VideoFixtures.colour(pixels, 0.25, 0.75)) == "yellow")
        #expect(VideoFixtures.name(VideoFixtures.colour(pixels, 0.75, 0.75)) == "green")
        let mean = pixels.bytes.reduce(0) { $0 + Int($1) } / pixels.bytes.count
        #expect(mean > 60, "mean sample \(mean): the poster looks black")
    }

    @Test("validate inspects and decodes the poster in one pass: the inspection's answer, or the poster's refusal", arguments: VideoFixtures.all)
    func validate(path: String) throws {
        let bytes = try Fixtures.bytes(at: path)
        #expect(try VideoPosterRenderer.validate(path: path) == VideoInspector.inspect(path: path))
        #expect(try VideoPosterRenderer.validate(bytes) == VideoInspector.inspect(bytes))
        let noKeyframe = path.replacingOccurrences(of: (path as NSString).lastPathComponent, with: "video-damaged-no-keyframe.mov")
        #expect(throws: ImagingError.self) { try VideoPosterRenderer.validate(path: noKeyframe) }
    }

    @Test("an unrotated video keeps the stored layout; every fixture renders", arguments: VideoFixtures.all)
    func everyFixture(path: String) throws {
        let info = try VideoInspector.inspect(path: path)
        let rendered = try VideoPosterRenderer.render(path: path, request: Self.request(64, 64))
        let expected = try JPEGRenderer.outputSize(
            uprightWidth: info.pixelWidth, uprightHeight: info.pixelHeight, targetWidth: 64, targetHeight: 64, contentMode: .aspectFit)
        #expect(rendered.width == expected.width && rendered.height == expected.height)
        let pixels = try DecodedPixels(jpeg: rendered.jpeg)
        if info.rotation == 0 {
            #expect(VideoFixtures.name(VideoFixtures.colour(pixels, 0.25, 0.25)) == "red")
            #expect(VideoFixtures.name(VideoFixtures.colour(pixels, 0.75, 0.25)) == "green")
            #expect(VideoFixtures.name(VideoFixtures.colour(pixels, 0.25, 0.75)) == "blue")
            #expect(VideoFixtures.name(VideoFixtures.colour(pixels, 0.75, 0.75)) == "yellow")
        }
    }

    @Test("the poster is the first keyframe at or after min(10 %, 1 s), else the first frame")
    func posterTime() throws {
        // Keyframes every 0.5 s: targets 0.2 s (2 s clip) and 0.1 s (1 s clips) land on 0.5 s.
        for path in [VideoFixtures.rotated, VideoFixtures.plain, VideoFixtures.highFrameRate, VideoFixtures.live] {
            let poster = try VideoPosterRenderer.renderPoster(.path(path), request: Self.request(32, 32), limits: .default, control: nil)
            #expect(abs(poster.time - 0.5) < 0.001, "\(path): \(poster.time)")
        }
        // MPEG-4 Part 2 with keyframes every 0.4 s: 0.1 s lands on 0.4 s.
        let mpeg4 = try VideoPosterRenderer.renderPoster(.path(VideoFixtures.mpeg4), request: Self.request(32, 32), limits: .default, control: nil)
        #expect(abs(mpeg4.time - 0.4) < 0.001, "\(mpeg4.time)")
        // The 0.5 s time-lapse has one keyframe, at 0: nothing at or after 0.05 s, so the first frame.
        let first = try VideoPosterRenderer.renderPoster(.path(VideoFixtures.timelapse), request: Self.request(32, 32), limits: .default, control: nil)
        #expect(first.time == 0)
    }

    @Test("maximum size, fill, none and fast follow JPEG's semantics")
    func sizes() throws {
        let full = try VideoPosterRenderer.render(path: VideoFixtures.rotated, request: RenderRequest(targetSize: .maximum))
        #expect(full.width == 240 && full.height == 320)
        let fill = try VideoPosterRenderer.render(path: VideoFixtures.rotated, request: Self.request(100, 100, .aspectFill))
        #expect(fill.width == 100 && fill.height == 133)
        let none = try VideoPosterRenderer.render(
            path: VideoFixtures.rotated, request: RenderRequest(targetSize: PixelSize(width: 10, height: 10), resizeMode: .none))
        #expect(none.width == 240 && none.height == 320)
        // Fast: the N/8 conversion is returned when it is at most twice the exact size.
        let fast = try VideoPosterRenderer.render(
            path: VideoFixtures.rotated, request: RenderRequest(targetSize: PixelSize(width: 50, height: 50), resizeMode: .fast))
        #expect(fast.width >= 38 && fast.width <= 76 && fast.height >= 50 && fast.height <= 100)
        #expect(fast.width * 4 == fast.height * 3)
    }

    @Test("a crop in upright coordinates")
    func crop() throws {
        // The upright top half: blue on the left, red on the right.
        let rendered = try VideoPosterRenderer.render(
            path: VideoFixtures.rotated,
            request: RenderRequest(targetSize: .maximum, crop: NormalizedRect(x: 0, y: 0, width: 1, height: 0.5)))
        #expect(rendered.width == 240 && rendered.height == 160)
        let pixels = try DecodedPixels(jpeg: rendered.jpeg)
        #expect(VideoFixtures.name(VideoFixtures.colour(pixels, 0.2, 0.5)) == "blue")
        #expect(VideoFixtures.name(VideoFixtures.colour(pixels, 0.8, 0.5)) == "red")
    }

    @Test("bytes in memory render exactly like the file")
    func bytesMatchPath() throws {
        let request = Self.request(80, 80)
        let fromPath = try VideoPosterRenderer.render(path: VideoFixtures.rotated, request: request)
        let fromBytes = try VideoPosterRenderer.render(VideoFixtures.bytes(VideoFixtures.rotated), request: request)
        #expect(fromPath == fromBytes)
    }

    @Test("a finished poster reports full progress on its control")
    func progress() throws {
        let control = RenderControl()
        _ = try VideoPosterRenderer.render(path: VideoFixtures.rotated, request: Self.request(64, 64), control: control)
        #expect(control.progress == 1)
    }

    @Test("bad requests are invalid arguments")
    func badRequests() {
        let quality = imagingError { () throws(ImagingError) in
            try VideoPosterRenderer.render(
                path: VideoFixtures.rotated, request: RenderRequest(targetSize: PixelSize(width: 10, height: 10), quality: 0))
        }
        #expect(quality?.code == .invalidArgument)
        let target = imagingError { () throws(ImagingError) in
            try VideoPosterRenderer.render(path: VideoFixtures.rotated, request: Self.request(0, 10))
        }
        #expect(target?.code == .invalidArgument)
    }
}

@Suite("Every display matrix of the eight orientations renders like EXIF's")
struct VideoDisplayMatrixTests {
    /// The plain MP4 with its video track's tkhd matrix replaced by (a, b, c, d) in 16.16.
    static func withMatrix(_ a: Int32, _ b: Int32, _ c: Int32, _ d: Int32) throws -> [UInt8] {
        var bytes = VideoFixtures.bytes(VideoFixtures.plain)
        let tkhd = Array("tkhd".utf8)
        let at = try #require((0..<(bytes.count - 4)).first { Array(bytes[$0..<($0 + 4)]) == tkhd })
        // Version 0 tkhd: the matrix follows 40 bytes of fields after the box type.
        #expect(bytes[at + 4] == 0)
        let matrix = at + 4 + 40
        for (index, value) in [(0, a), (1, b), (3, c), (4, d)] {
            let big = UInt32(bitPattern: value).bigEndian
            withUnsafeBytes(of: big) { raw in
                for k in 0..<4 { bytes[matrix + index * 4 + k] = raw[k] }
            }
        }
        return bytes
    }

    @Test(
        "matrix → orientation, rotation, mirror and pixels",
        arguments: [
            // (a, b, c, d) of the QuickTime matrix (x' = a·x + c·y, y' = b·x + d·y), EXIF code, rotation, mirrored
            ((1, 0, 0, 1), 1, 0, false), ((-1, 0, 0, 1), 2, 0, true), ((-1, 0, 0, -1), 3, 180, false),
            ((1, 0, 0, -1), 4, 180, true), ((0, 1, 1, 0), 5, 270, true), ((0, 1, -1, 0), 6, 90, false),
            ((0, -1, -1, 0), 7, 90, true), ((0, -1, 1, 0), 8, 270, false),
        ] as [((Int32, Int32, Int32, Int32), Int, Int, Bool)])
    func orientation(matrix: (Int32, Int32, Int32, Int32), code: Int, rotation: Int, mirrored: Bool) throws {
        let one: Int32 = 65536
        let bytes = try Self.withMatrix(matrix.0 * one, matrix.1 * one, matrix.2 * one, matrix.3 * one)
        let info = try VideoInspector.inspect(bytes)
        #expect(info.orientation == code && info.rotation == rotation && info.isMirrored == mirrored)
        #expect((info.pixelWidth, info.pixelHeight) == (code >= 5 ? (240, 320) : (320, 240)))
        let request = RenderRequest(targetSize: .maximum, quality: 95)
        let reference = try DecodedPixels(jpeg: VideoPosterRenderer.render(path: VideoFixtures.plain, request: request).jpeg)
        let rendered = try DecodedPixels(jpeg: VideoPosterRenderer.render(bytes, request: request).jpeg)
        let expected = reference.oriented(code)
        #expect(rendered.width == expected.width && rendered.height == expected.height)
        let difference = rendered.meanAbsoluteDifference(expected)
        #expect(difference < 3, "orientation \(code): mean difference \(difference)")
    }
}

@Suite("A poster at or above the stored size converts every pixel, whatever the width")
struct VideoPosterFullSizeTests {
    /// Widths swscale's SIMD YUV → RGB converter (x86 SSSE3, 16 pixels a step) does not
    /// divide: 120 × 80 is a multiple of 8 but not of 16, and the converter wrote 24 bytes past
    /// a packed RGB buffer (heap corruption: `malloc(): corrupted top size` in photolibd);
    /// 180 × 120 is not a multiple of 8, and the converter left the last 4 columns black.
    static let fixtures: [(String, Int, Int)] = [(VideoFixtures.liveByName, 120, 80), (VideoFixtures.liveByIdentifier, 180, 120)]

    /// Requests whose poster is converted at the stored size (scale ≥ 1): the maximum, the
    /// stored size itself, and targets larger than the video (never upscaled).
    static func requests(width: Int, height: Int) -> [RenderRequest] {
        [
            RenderRequest(targetSize: .maximum, quality: 95),
            RenderRequest(targetSize: PixelSize(width: width, height: height), quality: 95),
            RenderRequest(targetSize: PixelSize(width: 192, height: 192), quality: 95),
            RenderRequest(targetSize: PixelSize(width: width * 2 + 1, height: height * 3), contentMode: .aspectFill, quality: 95),
        ]
    }

    /// The four colours of the pattern, the right edge's included (an unconverted column is black).
    static func expectPattern(_ pixels: DecodedPixels, _ what: String) {
        for (u, v, colour) in [
            (0.25, 0.25, "red"), (0.75, 0.25, "green"), (0.25, 0.75, "blue"), (0.75, 0.75, "yellow"),
            (0.0, 0.25, "red"), (1.0, 0.25, "green"), (0.0, 0.75, "blue"), (1.0, 0.75, "yellow"),
        ] {
            let found = VideoFixtures.colour(pixels, u, v)
            #expect(VideoFixtures.name(found) == colour, "\(what): at (\(u), \(v)) \(found), expected \(colour)")
        }
    }

    @Test("the stored size, from the file and from memory, repeatedly", arguments: fixtures)
    func storedSize(path: String, width: Int, height: Int) throws {
        let info = try VideoInspector.inspect(path: path)
        #expect(info.storedWidth == width && info.storedHeight == height && info.rotation == 0)
        let bytes = VideoFixtures.bytes(path)
        for request in Self.requests(width: width, height: height) {
            // Several renders: each one used to write past its buffer, and the allocator noticed
            // the damage only at a later allocation or free.
            for round in 0..<4 {
                let rendered = try round.isMultiple(of: 2)
                    ? VideoPosterRenderer.render(path: path, request: request)
                    : VideoPosterRenderer.render(bytes, request: request)
                #expect(rendered.width == width && rendered.height == height, "\(request.targetSize): \(rendered.width)x\(rendered.height)")
                let pixels = try DecodedPixels(jpeg: rendered.jpeg)
                #expect(pixels.width == width && pixels.height == height && pixels.components == 3)
                Self.expectPattern(pixels, "\((path as NSString).lastPathComponent) at \(request.targetSize)")
            }
        }
    }

    @Test("the stored-size conversion matches the same frame converted by a downscale's path", arguments: fixtures)
    func rightEdgeMatchesDownscale(path: String, width: Int, height: Int) throws {
        // The 1/2 poster goes through swscale's scaling path, which was always right; the full
        // one, box-averaged to the same size, must agree with it column for column (the last
        // ones too).
        let full = try DecodedPixels(jpeg: VideoPosterRenderer.render(path: path, request: RenderRequest(targetSize: .maximum, quality: 95)).jpeg)
        let half = try DecodedPixels(
            jpeg: VideoPosterRenderer.render(path: path, request: RenderRequest(targetSize: PixelSize(width: width / 2, height: height / 2), quality: 95)).jpeg)
        #expect(half.width == width / 2 && half.height == height / 2)
        for x in [half.width - 2, half.width - 1] {
            for y in stride(from: 1, to: half.height - 1, by: max(1, half.height / 8)) {
                for k in 0..<3 {
                    let box = (0..<2).flatMap { dy in (0..<2).map { dx in Int(full.sample(2 * x + dx, 2 * y + dy, k)) } }.reduce(0, +) / 4
                    let scaled = Int(half.sample(x, y, k))
                    #expect(abs(box - scaled) < 40, "(\(x), \(y)) component \(k): full-size box \(box), downscaled \(scaled)")
                }
            }
        }
    }
}
