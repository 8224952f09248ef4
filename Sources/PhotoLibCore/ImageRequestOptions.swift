/// How an image fills the target size: PhotoKit's `PHImageContentMode`.
public enum ContentMode: Int, Sendable, Hashable, CaseIterable {
    /// Scale so the whole image fits inside the target (`aspectFit`).
    case aspectFit = 0
    /// Scale so the image covers the target, aspect kept, not cropped (`aspectFill`).
    case aspectFill = 1
}

/// Quality versus speed of delivery: PhotoKit's `PHImageRequestOptionsDeliveryMode`.
public enum DeliveryMode: Int, Sendable, Hashable, CaseIterable {
    /// A fast degraded image first, then the final one.
    case opportunistic = 0
    /// Only the final, high-quality image.
    case highQualityFormat = 1
    /// One image, as fast as possible, possibly degraded.
    case fastFormat = 2
}

/// How exactly the image is resized: PhotoKit's `PHImageRequestOptionsResizeMode`.
///
/// The raw values are the wire's (`ResizeMode` in images.proto), where `fast` is 0 so that an
/// unset field means PhotoKit's default.
public enum ResizeMode: Int, Sendable, Hashable, CaseIterable {
    /// Close to the target size, possibly larger, as fast as possible (the default).
    case fast = 0
    /// No resize: the image at its stored size.
    case none = 1
    /// Exactly the target size for the content mode.
    case exact = 2
}

/// Which version of an edited asset: PhotoKit's `PHImageRequestOptionsVersion`.
public enum ImageVersion: Int, Sendable, Hashable, CaseIterable {
    /// With edits applied.
    case current = 0
    /// Without edits.
    case unadjusted = 1
    /// The original file, unrendered.
    case original = 2
}

/// A rectangle in unit coordinates (0…1), origin at the top left of the upright image.
public struct NormalizedRect: Sendable, Hashable {
    /// Left edge.
    public var x: Double
    /// Top edge.
    public var y: Double
    /// Width.
    public var width: Double
    /// Height.
    public var height: Double

    /// Creates a rectangle.
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The whole image.
    public static let unit = NormalizedRect(x: 0, y: 0, width: 1, height: 1)

    /// Returns `self` when every value is finite, the origin is in 0…1, the size is positive
    /// and the rectangle ends inside the unit square (a tolerance of 1e-9 absorbs rounding in
    /// clients); otherwise throws `invalidArgument`.
    public func validated() throws(PhotoLibError) -> NormalizedRect {
        let values = [x, y, width, height]
        guard values.allSatisfy(\.isFinite), x >= 0, y >= 0, x <= 1, y <= 1, width > 0, height > 0,
            x + width <= 1 + 1e-9, y + height <= 1 + 1e-9
        else {
            throw PhotoLibError(
                .invalidArgument,
                "crop rectangle (x \(x), y \(y), width \(width), height \(height)) must lie inside the unit square with a positive size")
        }
        return self
    }
}

/// The options of an image request: PhotoKit's `PHImageRequestOptions`.
public struct ImageRequestOptions: Sendable, Hashable {
    /// Delivery mode.
    public var deliveryMode: DeliveryMode
    /// Resize mode.
    public var resizeMode: ResizeMode
    /// Version.
    public var version: ImageVersion
    /// Crop, or `nil` for the whole image.
    public var normalizedCropRect: NormalizedRect?

    /// Creates options; the defaults are PhotoKit's.
    public init(deliveryMode: DeliveryMode = .opportunistic, resizeMode: ResizeMode = .fast, version: ImageVersion = .current, normalizedCropRect: NormalizedRect? = nil) {
        self.deliveryMode = deliveryMode
        self.resizeMode = resizeMode
        self.version = version
        self.normalizedCropRect = normalizedCropRect
    }
}

/// A size in pixels; PhotoKit's `PHImageManagerMaximumSize` is ``maximum``.
public struct PixelSize: Sendable, Hashable {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// Creates a size.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// The largest available size (the image at full resolution).
    public static let maximum = PixelSize(width: 0, height: 0)

    /// Parses `WxH`, e.g. `256x256`; `max` (or `0x0`, as on the wire) is ``maximum``. Each
    /// side is 1…65535 here; a server allows at most its own limit (photolibd: 16384).
    public init(parsing text: String) throws(PhotoLibError) {
        let lowered = text.lowercased()
        if lowered == "max" || lowered == "0x0" {
            self = .maximum
            return
        }
        let parts = lowered.split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0, w <= 65_535, h <= 65_535 else {
            throw PhotoLibError(.invalidArgument, "size '\(text)' must be WIDTHxHEIGHT with each side 1…65535 (e.g. 256x256; a server allows at most its own limit, photolibd 16384), or max (or 0x0) for the full size")
        }
        self.init(width: w, height: h)
    }
}
