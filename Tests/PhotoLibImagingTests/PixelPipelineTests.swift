import PhotoLibCore
import Testing

@testable import PhotoLibImaging

@Suite("Resampler, colour spaces and the encoder")
struct PixelPipelineTests {
    @Test("downscaling averages fine detail instead of point-sampling it")
    func antialiasing() throws {
        // 1-pixel black/white vertical stripes: a point sampler gives 0 or 255,
        // a proper filter gives mid grey everywhere.
        let width = 240, height = 60
        let bytes = (0..<(width * height)).map { UInt8(($0 % width) % 2 == 0 ? 0 : 255) }
        let source = try PixelBuffer.make(width: width, height: height, components: 1, bytes: bytes)
        for (outWidth, outHeight) in [(60, 15), (47, 13), (101, 30)] {
            let small = try LibJPEG.resample(source, width: outWidth, height: outHeight, limits: .default)
            #expect(small.width == outWidth && small.height == outHeight)
            // Away from the edges every sample is close to 127.5.
            let interior = small.bytes.enumerated().filter { index, _ in
                let x = index % outWidth
                return x >= 3 && x < outWidth - 3
            }
            let worst = interior.map { abs(Int($0.element) - 128) }.max() ?? 255
            #expect(worst <= 12, "\(outWidth)x\(outHeight): worst deviation \(worst)")
        }
    }

    @Test("resampling keeps flat colour and a gradient's direction")
    func flatAndGradient() throws {
        let width = 90, height = 50
        var bytes = [UInt8]()
        for _ in 0..<height {
            for x in 0..<width { bytes += [200, UInt8(x * 255 / (width - 1)), 30] }
        }
        let source = try PixelBuffer.make(width: width, height: height, components: 3, bytes: bytes)
        for (outWidth, outHeight) in [(30, 17), (180, 100)] {
            let out = try LibJPEG.resample(source, width: outWidth, height: outHeight, limits: .default)
            let pixels = out.bytes
            // Red and blue are flat: exactly preserved (weights sum to 1).
            #expect(stride(from: 0, to: pixels.count, by: 3).allSatisfy { abs(Int(pixels[$0]) - 200) <= 1 })
            #expect(stride(from: 2, to: pixels.count, by: 3).allSatisfy { abs(Int(pixels[$0]) - 30) <= 1 })
            // Green increases left to right on a middle row.
            let row = outHeight / 2
            let greens = (0..<outWidth).map { pixels[(row * outWidth + $0) * 3 + 1] }
            #expect(greens.first! < 20 && greens.last! > 235)
            #expect(zip(greens, greens.dropFirst()).allSatisfy { Int($0) <= Int($1) + 2 })
        }
    }

    @Test("the resampler refuses sizes beyond the memory limit")
    func resampleLimit() throws {
        let source = try PixelBuffer.make(width: 2, height: 2, components: 1, bytes: [0, 1, 2, 3])
        let error = imagingError { () throws(ImagingError) in
            try LibJPEG.resample(source, width: 60000, height: 60000, limits: .default)
        }
        #expect(error?.code == .tooLarge)
    }

    @Test("grayscale in, grayscale out")
    func grayscale() throws {
        let width = 120, height = 80
        let bytes = (0..<(width * height)).map { UInt8(($0 % width) * 2) }
        let jpeg = try LibJPEG.encode(
            try PixelBuffer.make(width: width, height: height, components: 1, bytes: bytes), quality: 90)
        let info = try JPEGInspector.validate(jpeg)
        #expect(info.components == 1)
        let rendered = try JPEGRenderer.render(jpeg, request: RenderRequest(targetSize: PixelSize(width: 60, height: 60), contentMode: .aspectFit))
        #expect(rendered.width == 60 && rendered.height == 40)
        let pixels = try DecodedPixels(jpeg: rendered.jpeg)
        #expect(pixels.components == 1)
        #expect(pixels.sample(5, 20) < pixels.sample(55, 20))
    }

    @Test("Adobe CMYK is converted to RGB")
    func cmyk() throws {
        // Adobe's inverted CMYK: 255 = no ink. Left half: full magenta + yellow (red);
        // right half: full cyan (cyan).
        let width = 64, height = 32
        var bytes = [UInt8]()
        for _ in 0..<height {
            for x in 0..<width {
                bytes += x < width / 2 ? [255, 0, 0, 255] : [0, 255, 255, 255]
            }
        }
        let jpeg = try LibJPEG.encode(
            try PixelBuffer.make(width: width, height: height, components: 4, bytes: bytes), quality: 95)
        let info = try JPEGInspector.validate(jpeg)
        #expect(info.components == 4)
        let rendered = try JPEGRenderer.render(jpeg, request: RenderRequest(targetSize: PixelSize(width: 32, height: 32), contentMode: .aspectFit))
        let pixels = try DecodedPixels(jpeg: rendered.jpeg)
        #expect(pixels.components == 3)
        let red = (0..<3).map { Int(pixels.sample(4, 8, $0)) }
        let cyan = (0..<3).map { Int(pixels.sample(28, 8, $0)) }
        #expect(red[0] > 220 && red[1] < 40 && red[2] < 40, "\(red)")
        #expect(cyan[0] < 40 && cyan[1] > 220 && cyan[2] > 220, "\(cyan)")
    }

    @Test("encoder arguments are checked")
    func encoderArguments() throws {
        let source = try PixelBuffer.make(width: 2, height: 2, components: 1, bytes: [0, 1, 2, 3])
        let error = imagingError { () throws(ImagingError) in try LibJPEG.encode(source, quality: 0) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("quality") == true)
        let orientError = imagingError { () throws(ImagingError) in try LibJPEG.orient(source, orientation: 9) }
        #expect(orientError?.code == .invalidArgument)
    }
}
