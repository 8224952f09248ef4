/// How much a render may deviate from the exact target size (PhotoKit's
/// `PHImageRequestOptionsResizeMode`).
public enum RenderResizeMode: Sendable, Hashable, CaseIterable {
    /// No resize: the stored size (of the crop, when there is one); the target size is ignored.
    case none
    /// The DCT-scaled decode is returned as it is, without the final resample, when it is
    /// at most twice the exact size on each side (so the result covers the target and
    /// may be up to 2× larger); otherwise as ``exact``.
    case fast
    /// Exactly the size of ``JPEGRenderer/outputSize(uprightWidth:uprightHeight:targetWidth:targetHeight:contentMode:)``.
    case exact
}

/// A rectangle in unit coordinates of the upright image, origin at the top left.
public struct UnitRect: Sendable, Hashable {
    /// Left edge, 0...1.
    public var x: Double
    /// Top edge, 0...1.
    public var y: Double
    /// Width, > 0, with x + width ≤ 1.
    public var width: Double
    /// Height, > 0, with y + height ≤ 1.
    public var height: Double

    /// Creates a rectangle (checked by ``validate()``).
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The whole image.
    public static let unit = UnitRect(x: 0, y: 0, width: 1, height: 1)

    /// Throws ``ImagingError/Code/invalidArgument`` unless every value is finite, the origin is
    /// in 0...1, the size is positive, and the rectangle ends inside the unit square
    /// (a tolerance of 1e-9 absorbs rounding in clients).
    public func validate() throws(ImagingError) {
        let values = [x, y, width, height]
        guard values.allSatisfy(\.isFinite), x >= 0, y >= 0, x <= 1, y <= 1, width > 0, height > 0,
            x + width <= 1 + 1e-9, y + height <= 1 + 1e-9
        else {
            throw ImagingError(
                code: .invalidArgument,
                message: "crop rectangle (x \(x), y \(y), width \(width), height \(height)) must lie inside the unit square with a positive size")
        }
    }

    /// The same rectangle in the stored (unrotated) image for EXIF orientation 1...8.
    func stored(orientation: Int) -> UnitRect {
        // Maps an upright unit point to the stored unit point (see plj_orient.c's table).
        func map(_ u: Double, _ v: Double) -> (Double, Double) {
            switch orientation {
            case 2: (1 - u, v)
            case 3: (1 - u, 1 - v)
            case 4: (u, 1 - v)
            case 5: (v, u)
            case 6: (v, 1 - u)
            case 7: (1 - v, 1 - u)
            case 8: (1 - v, u)
            default: (u, v)
            }
        }
        let a = map(x, y)
        let b = map(x + width, y + height)
        return UnitRect(
            x: min(a.0, b.0), y: min(a.1, b.1), width: abs(a.0 - b.0), height: abs(a.1 - b.1))
    }

    /// The pixel rectangle this covers in an image of `width` × `height`: edges rounded
    /// outwards, clamped inside, at least one pixel.
    func pixels(width imageWidth: Int, height imageHeight: Int) -> PixelRect {
        func span(_ start: Double, _ length: Double, _ size: Int) -> (Int, Int) {
            var first = Int((start * Double(size)).rounded(.down) + 1e-9)
            var last = Int(((start + length) * Double(size) - 1e-9).rounded(.up))
            first = min(max(first, 0), size - 1)
            last = min(max(last, first + 1), size)
            return (first, last - first)
        }
        let (px, pw) = span(x, width, imageWidth)
        let (py, ph) = span(y, height, imageHeight)
        return PixelRect(x: px, y: py, width: pw, height: ph)
    }
}

/// What to render: target size, content mode, resize mode, crop and quality.
public struct RenderRequest: Sendable, Hashable {
    /// Target width; 0 with ``targetHeight`` 0 means the maximum size (PhotoKit's
    /// `PHImageManagerMaximumSize`).
    public var targetWidth: Int
    /// Target height; see ``targetWidth``.
    public var targetHeight: Int
    /// Fit or fill.
    public var contentMode: ImageContentMode
    /// How exactly the target size is met.
    public var resizeMode: RenderResizeMode
    /// The part of the upright image to render (`nil`: all of it).
    public var crop: UnitRect?
    /// JPEG quality of the output, 1...100.
    public var quality: Int

    /// Creates a request.
    public init(
        targetWidth: Int, targetHeight: Int, contentMode: ImageContentMode = .aspectFit,
        resizeMode: RenderResizeMode = .exact, crop: UnitRect? = nil, quality: Int = 85
    ) {
        self.targetWidth = targetWidth
        self.targetHeight = targetHeight
        self.contentMode = contentMode
        self.resizeMode = resizeMode
        self.crop = crop
        self.quality = quality
    }

    /// Whether the target is the maximum size (0 × 0).
    public var isMaximumSize: Bool { targetWidth == 0 && targetHeight == 0 }
}

/// A rectangle in pixels.
struct PixelRect: Sendable, Hashable {
    var x: Int
    var y: Int
    var width: Int
    var height: Int
}
