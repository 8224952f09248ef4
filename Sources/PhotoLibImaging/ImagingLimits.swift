/// Limits applied to every decode, so hostile or absurd files are refused quickly.
///
/// Each limit is checked before the allocation it protects: the pixel count right after
/// the frame header is read (before any pixel buffer exists), the input size before
/// libjpeg sees a byte, the scan count while scans are read.
public struct ImagingLimits: Sendable, Hashable {
    /// Maximum width × height declared in the image header (JPEG frame header, PNG IHDR, WebP
    /// header, HEIF primary image, a video track's header and its decoded frame). Default 120
    /// megapixels.
    public var maxPixels: Int
    /// Maximum size of the compressed input in bytes. Default 256 MiB. For a video, which is
    /// read from its file piece by piece, the most bytes one inspection or poster render
    /// reads (the file itself may be larger).
    public var maxInputBytes: Int
    /// Maximum memory for one decode: libjpeg's `max_memory_to_use`, plus the estimate of
    /// the coefficient and pixel buffers, plus resampling buffers. Default 1 GiB.
    public var maxMemoryBytes: Int
    /// Maximum number of scans (SOS markers); progressive photos have about 10, and no encoder
    /// we know writes more than a few dozen. Default 100.
    public var maxScans: Int
    /// Maximum decode work, as width × height × scans: a progressive decode walks the whole
    /// coefficient buffer once per scan, so a small file with many scans over many pixels can
    /// cost seconds of CPU. Default 2.5 billion pixel-scans (a 25-megapixel photo with 100
    /// scans, a 120-megapixel one with 20); a 12-megapixel photo with 10 scans is 0.12 billion.
    public var maxScanPixels: Int

    /// Creates limits; every value must be positive.
    public init(
        maxPixels: Int = 120_000_000,
        maxInputBytes: Int = 256 << 20,
        maxMemoryBytes: Int = 1 << 30,
        maxScans: Int = 100,
        maxScanPixels: Int = 2_500_000_000
    ) {
        self.maxPixels = maxPixels
        self.maxInputBytes = maxInputBytes
        self.maxMemoryBytes = maxMemoryBytes
        self.maxScans = maxScans
        self.maxScanPixels = maxScanPixels
    }

    /// 120 megapixels, 256 MiB of input, 1 GiB of memory, 100 scans, 2.5 billion pixel-scans.
    public static let `default` = ImagingLimits()
}
