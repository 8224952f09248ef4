import PhotoLibCore

/// What to render: target size, content mode, resize mode, crop and quality.
///
/// The size, modes and crop are PhotoLibCore's (the same values a client puts in an image
/// request); how this module meets them:
/// - `ResizeMode.none`: the stored size (of the crop, when there is one); the
///   target size is ignored.
/// - `ResizeMode.fast`: the DCT-scaled decode is returned as it is, without the
///   final resample, when it is at most twice the exact size on each side (so the result
///   covers the target and may be up to 2× larger); otherwise as `exact`.
/// - `ResizeMode.exact`: exactly the size of
///   ``JPEGRenderer/outputSize(uprightWidth:uprightHeight:targetWidth:targetHeight:contentMode:)``.
public struct RenderRequest: Sendable, Hashable {
    /// Target size; `PixelSize.maximum` (0 × 0) means the full size (PhotoKit's
    /// `PHImageManagerMaximumSize`).
    public var targetSize: PixelSize
    /// Fit or fill.
    public var contentMode: ContentMode
    /// How exactly the target size is met.
    public var resizeMode: ResizeMode
    /// The part of the upright image to render (`nil`: all of it).
    public var crop: NormalizedRect?
    /// JPEG quality of the output, 1...100.
    public var quality: Int

    /// Creates a request.
    public init(
        targetSize: PixelSize, contentMode: ContentMode = .aspectFit,
        resizeMode: ResizeMode = .exact, crop: NormalizedRect? = nil, quality: Int = 85
    ) {
        self.targetSize = targetSize
        self.contentMode = contentMode
        self.resizeMode = resizeMode
        self.crop = crop
        self.quality = quality
    }

    /// Whether the target is the maximum size (0 × 0).
    public var isMaximumSize: Bool { targetSize == .maximum }
}

/// A rectangle in pixels.
package struct PixelRect: Sendable, Hashable {
    package var x: Int
    package var y: Int
    package var width: Int
    package var height: Int
}
