import Foundation
import PhotoLibCore
import PhotoLibTestSupport
import Testing

@testable import PhotoLibImaging
@testable import PhotoLibMedia

@Suite("Hostile videos are refused with the right code and a clear message, never a crash")
struct VideoHostileInputTests {
    static let request = RenderRequest(targetSize: PixelSize(width: 64, height: 64))

    /// Inspect and render `bytes` from memory; both must fail with one of `codes`.
    func expectBothFail(_ bytes: [UInt8], _ codes: Set<ImagingError.Code>, limits: ImagingLimits = .default,
                        sourceLocation: SourceLocation = #_sourceLocation) -> [ImagingError] {
        let inspect = imagingError({ () throws(ImagingError) in try VideoInspector.inspect(bytes, limits: limits) }, sourceLocation: sourceLocation)
        let render = imagingError({ () throws(ImagingError) in
            try VideoPosterRenderer.render(bytes, request: Self.request, limits: limits)
        }, sourceLocation: sourceLocation)
        let errors = [inspect, render].compactMap { $0 }
        for error in errors {
            #expect(codes.contains(error.code), "\(error)", sourceLocation: sourceLocation)
            #expect(!error.message.isEmpty, sourceLocation: sourceLocation)
        }
        return errors
    }

    @Test("every truncated fixture is truncated, from a path and from bytes", arguments: VideoFixtures.truncated)
    func truncated(path: String) {
        let error = imagingError { () throws(ImagingError) in try VideoInspector.inspect(path: path) }
        #expect(error?.code == .truncated, "\(String(describing: error))")
        #expect(error?.message.contains("truncated") == true)
        let render = imagingError { () throws(ImagingError) in try VideoPosterRenderer.render(path: path, request: Self.request) }
        #expect(render?.code == .truncated)
        _ = expectBothFail(VideoFixtures.bytes(path), [.truncated])
    }

    @Test("cut at many offsets: never a success, never a crash", arguments: [VideoFixtures.rotated, VideoFixtures.plain])
    func cutEverywhere(path: String) {
        let bytes = VideoFixtures.bytes(path)
        for offset in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 97)) {
            _ = expectBothFail(Array(bytes.prefix(offset)), [.truncated, .corrupt, .notVideo, .unsupported])
        }
    }

    @Test("not a video: the message names what the file is")
    func notVideo() throws {
        let cases: [([UInt8], String)] = [
            (try Fixtures.bytes(at: Fixtures.landscape), "JPEG image"),
            ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13], "PNG image"),
            (Array("hello, this is not a video\n".utf8), "text"),
            ([0, 0, 0, 24] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8), "HEIF"),
            ([0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42, 0x82, 0x84] + Array("webm".utf8), "WebM"),
            ([], "empty"),
            ([0x00, 0x01, 0x02, 0x03, 0xFE], "0x00 0x01 0x02 0x03"),
        ]
        for (bytes, name) in cases {
            let errors = expectBothFail(bytes, [.notVideo])
            #expect(errors.count == 2)
            for error in errors {
                #expect(error.message.contains(name), "\(error)")
            }
        }
        let jpegPath = imagingError { () throws(ImagingError) in try VideoInspector.inspect(path: Fixtures.landscape) }
        #expect(jpegPath?.code == .notVideo)
        #expect(jpegPath?.message == "the file is a JPEG image, not a MOV/MP4 video")
    }

    @Test("a missing file or a folder is unreadable")
    func unreadable() {
        let missing = imagingError { () throws(ImagingError) in try VideoInspector.inspect(path: "/nonexistent/video.mov") }
        #expect(missing?.code == .unreadable && missing?.message.contains("No such file") == true)
        let folder = imagingError { () throws(ImagingError) in try VideoInspector.inspect(path: Fixtures.packageRoot) }
        #expect(folder?.code == .unreadable)
    }

    @Test("pixel, byte and memory limits refuse the video before decoding")
    func limits() {
        let bytes = VideoFixtures.bytes(VideoFixtures.rotated)
        let pixels = expectBothFail(bytes, [.tooLarge], limits: ImagingLimits(maxPixels: 320 * 240 - 1))
        #expect(pixels.first?.message.contains("320x240") == true)
        let read = expectBothFail(bytes, [.tooLarge], limits: ImagingLimits(maxInputBytes: 4096))
        #expect(read.first?.message.contains("4096 bytes") == true)
        let memory = imagingError { () throws(ImagingError) in
            try VideoPosterRenderer.render(bytes, request: RenderRequest(targetSize: .maximum), limits: ImagingLimits(maxMemoryBytes: 1000))
        }
        #expect(memory?.code == .tooLarge)
    }

    @Test("a cancelled control stops inspection and rendering")
    func cancellation() {
        let control = RenderControl()
        control.cancel()
        let inspect = imagingError { () throws(ImagingError) in try VideoInspector.inspect(path: VideoFixtures.rotated, control: control) }
        #expect(inspect?.code == .cancelled)
        let render = imagingError { () throws(ImagingError) in
            try VideoPosterRenderer.render(path: VideoFixtures.rotated, request: Self.request, control: control)
        }
        #expect(render?.code == .cancelled)
    }

    @Test("a cancel from another thread stops a render loop")
    func cancelFromAnotherThread() {
        let control = RenderControl()
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(100)) { control.cancel() }
        var stopped: ImagingError? = nil
        for _ in 0..<100_000 {
            do throws(ImagingError) {
                _ = try VideoPosterRenderer.render(path: VideoFixtures.rotated, request: Self.request, control: control)
            } catch {
                stopped = error
                break
            }
        }
        #expect(stopped?.code == .cancelled)
    }

    @Test("deterministic byte damage: every result is an image or an ImagingError", arguments: VideoFixtures.all)
    func damaged(path: String) {
        let original = VideoFixtures.bytes(path)
        var generator = SplitMix64(seed: UInt64(original.count))
        for round in 0..<150 {
            var bytes = original
            let edits = 1 + Int(generator.next() % 8)
            for _ in 0..<edits {
                let at = Int(generator.next() % UInt64(bytes.count))
                switch round % 3 {
                case 0: bytes[at] ^= UInt8(truncatingIfNeeded: generator.next() | 1)
                case 1: bytes[at] = [0x00, 0xFF, 0x7F, 0x80][Int(generator.next() % 4)]
                default: bytes.replaceSubrange(at..<min(bytes.count, at + 4), with: [0xFF, 0xFF, 0xFF, 0xFF])
                }
            }
            // Typed throws: anything thrown is an ImagingError; the test proves no crash or hang.
            do {
                let info = try VideoInspector.inspect(bytes)
                #expect(info.storedWidth > 0 && info.storedHeight > 0)
                let image = try VideoPosterRenderer.render(bytes, request: Self.request)
                #expect(image.width > 0 && image.width <= 64 && image.height <= 64)
            } catch {
                #expect(!error.message.isEmpty)
            }
        }
    }

    @Test("every committed crasher is handled")
    func crashers() {
        for path in VideoFixtures.crashers {
            do {
                _ = try VideoInspector.inspect(path: path)
                _ = try VideoPosterRenderer.render(path: path, request: Self.request)
            } catch {
                #expect(!error.message.isEmpty, "\(path)")
            }
        }
    }
}

@Suite("Damaged videos whose headers parse: the poster fails as corrupt, saying why")
struct VideoDamagedPosterTests {
    @Test(
        "fuzzer-found damage",
        arguments: [
            ("video-damaged-no-sample-index.mov", "no keyframe to seek to"),
            ("video-damaged-no-keyframe.mov", "has no keyframe"),
            ("video-damaged-bad-nal.mov", "cannot decode the poster keyframe"),
            ("video-damaged-no-picture.mov", "decodes to no picture"),
        ])
    func damaged(name: String, reason: String) throws {
        let path = VideoFixtures.path(name)
        _ = try VideoInspector.inspect(path: path)
        let error = imagingError { () throws(ImagingError) in
            try VideoPosterRenderer.render(path: path, request: RenderRequest(targetSize: PixelSize(width: 64, height: 64)))
        }
        #expect(error?.code == .corrupt, "\(String(describing: error))")
        #expect(error?.message.contains(reason) == true, "\(String(describing: error))")
        #expect(error?.message.hasPrefix("damaged video") == true)
    }
}
