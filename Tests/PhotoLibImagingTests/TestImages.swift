import PhotoLibTestSupport
import PhotoLibCore
import Testing

@testable import PhotoLibImaging

/// Decoded pixels of a JPEG, for comparisons in tests.
struct DecodedPixels {
    var width: Int
    var height: Int
    var components: Int
    var bytes: [UInt8]

    /// Decodes `jpeg` at full scale through the same shim the renderer uses.
    init(jpeg: [UInt8]) throws {
        let decoded = try LibJPEG.decode(jpeg, scale: 8, limits: .default, keepPixels: true)
        let pixels = try #require(decoded.pixels)
        width = pixels.width
        height = pixels.height
        components = pixels.components
        bytes = pixels.bytes
    }

    init(width: Int, height: Int, components: Int, bytes: [UInt8]) {
        self.width = width
        self.height = height
        self.components = components
        self.bytes = bytes
    }

    /// The value of component `k` at (x, y).
    func sample(_ x: Int, _ y: Int, _ k: Int = 0) -> UInt8 {
        bytes[(y * width + x) * components + k]
    }

    /// This image with EXIF orientation `orientation` applied, written independently of
    /// the C code (from the EXIF definition of where row 0 and column 0 go).
    func oriented(_ orientation: Int) -> DecodedPixels {
        let swaps = orientation >= 5
        let outWidth = swaps ? height : width
        let outHeight = swaps ? width : height
        var out = [UInt8](repeating: 0, count: bytes.count)
        // Walk the stored image and place each pixel where the display puts it.
        for row in 0..<height {
            for column in 0..<width {
                let (x, y): (Int, Int)
                switch orientation {
                case 1: (x, y) = (column, row)
                case 2: (x, y) = (width - 1 - column, row)
                case 3: (x, y) = (width - 1 - column, height - 1 - row)
                case 4: (x, y) = (column, height - 1 - row)
                case 5: (x, y) = (row, column)  // row 0 → left, column 0 → top
                case 6: (x, y) = (outWidth - 1 - row, column)  // row 0 → right, column 0 → top
                case 7: (x, y) = (outWidth - 1 - row, outHeight - 1 - column)  // row 0 → right, column 0 → bottom
                default: (x, y) = (row, outHeight - 1 - column)  // 8: row 0 → left, column 0 → bottom
                }
                for k in 0..<components {
                    out[(y * outWidth + x) * components + k] = bytes[(row * width + column) * components + k]
                }
            }
        }
        return DecodedPixels(width: outWidth, height: outHeight, components: components, bytes: out)
    }

    /// Mean absolute difference per sample (images must have the same shape).
    func meanAbsoluteDifference(_ other: DecodedPixels) -> Double {
        precondition(width == other.width && height == other.height && components == other.components)
        var total = 0
        for index in bytes.indices {
            total += abs(Int(bytes[index]) - Int(other.bytes[index]))
        }
        return Double(total) / Double(bytes.count)
    }
}

/// Photo bytes, read once per process.
enum Photos {
    static let baseline = load(Fixtures.baselineLandscape)
    static let progressive = load(Fixtures.progressiveLandscape)
    static let landscape = load(Fixtures.landscape)
    static let portrait = load(Fixtures.portrait)

    private static func load(_ path: String) -> [UInt8] {
        do {
            return try Fixtures.bytes(at: path)
        } catch {
            fatalError("cannot read test photo \(path): \(error)")
        }
    }

    /// A small real JPEG (the portrait rendered to fit 96×96), for quick tests.
    static let small: [UInt8] = {
        do {
            return try JPEGRenderer.render(portrait, request: RenderRequest(targetSize: PixelSize(width: 96, height: 96), contentMode: .aspectFit)).jpeg
        } catch {
            fatalError("cannot render the small test JPEG: \(error)")
        }
    }()
}

/// Runs `body` and returns the ImagingError it throws, failing the test if it succeeds.
func imagingError<T>(
    _ body: () throws(ImagingError) -> T, sourceLocation: SourceLocation = #_sourceLocation
) -> ImagingError? {
    do {
        let value = try body()
        Issue.record("expected an ImagingError, got \(value)", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}
