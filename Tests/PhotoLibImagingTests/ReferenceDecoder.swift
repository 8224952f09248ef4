import Foundation
import Testing

@testable import PhotoLibImaging

/// An independent reference decoder: Pillow (Debian's python3-pil, installed by
/// Scripts/install-deps), run as a child process. It applies the EXIF orientation
/// (ImageOps.exif_transpose) and converts to RGB, CMYK included.
enum ReferenceDecoder {
    static let python = "/usr/bin/python3"

    static let script = """
        import sys
        from PIL import Image, ImageOps
        image = ImageOps.exif_transpose(Image.open(sys.argv[1]))
        image = image.convert('RGB')
        open(sys.argv[2], 'wb').write(image.tobytes())
        print(image.size[0], image.size[1])
        """

    /// Decodes `jpeg` to upright RGB with Pillow.
    static func decode(_ jpeg: [UInt8]) throws -> DecodedPixels {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("plref-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("in.jpg")
        let output = folder.appendingPathComponent("out.rgb")
        try Data(jpeg).write(to: input)
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw ReferenceError("\(python) is missing: run Scripts/install-deps (python3 and python3-pil)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script, input.path, output.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ReferenceError("the reference decoder failed (is python3-pil installed? Scripts/install-deps): \(text)")
        }
        let size = text.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        guard size.count == 2 else { throw ReferenceError("unexpected reference output: \(text)") }
        let bytes = [UInt8](try Data(contentsOf: output))
        return DecodedPixels(width: size[0], height: size[1], components: 3, bytes: bytes)
    }

    struct ReferenceError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}

extension DecodedPixels {
    /// This image as RGB (gray expanded).
    var rgb: DecodedPixels {
        guard components == 1 else { return self }
        return DecodedPixels(width: width, height: height, components: 3, bytes: bytes.flatMap { [$0, $0, $0] })
    }

    /// Peak signal-to-noise ratio against `other` in dB (same shape; identical images give infinity).
    func psnr(_ other: DecodedPixels) -> Double {
        precondition(width == other.width && height == other.height && components == other.components)
        var squared = 0.0
        for index in bytes.indices {
            let difference = Double(Int(bytes[index]) - Int(other.bytes[index]))
            squared += difference * difference
        }
        let mse = squared / Double(bytes.count)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    /// The mean of each component over the rectangle.
    func mean(x: Int, y: Int, width w: Int, height h: Int) -> [Double] {
        var sums = [Double](repeating: 0, count: components)
        for row in y..<(y + h) {
            for column in x..<(x + w) {
                for k in 0..<components { sums[k] += Double(sample(column, row, k)) }
            }
        }
        return sums.map { $0 / Double(w * h) }
    }
}
