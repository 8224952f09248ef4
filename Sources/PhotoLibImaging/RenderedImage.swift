/// A rendered, upright JPEG and its dimensions.
public struct RenderedImage: Sendable, Hashable {
    /// The encoded JPEG bytes (baseline, no EXIF: the pixels are already upright).
    public var jpeg: [UInt8]
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// Creates a rendered image value.
    public init(jpeg: [UInt8], width: Int, height: Int) {
        self.jpeg = jpeg
        self.width = width
        self.height = height
    }
}
