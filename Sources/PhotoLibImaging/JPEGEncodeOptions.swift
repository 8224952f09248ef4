/// How ``JPEGRenderer/reencode(_:options:limits:)`` writes a JPEG: the knobs needed to make
/// every kind of JPEG (for tests, and for callers that need a particular form).
public struct JPEGEncodeOptions: Sendable, Hashable {
    /// Chroma subsampling of colour output.
    public enum ChromaSubsampling: Sendable, Hashable, CaseIterable {
        /// 4:4:4, chroma at full resolution.
        case none
        /// 4:2:2, chroma halved horizontally.
        case horizontal
        /// 4:2:0, chroma halved both ways.
        case both
    }

    /// Quality, 1...100.
    public var quality: Int
    /// Chroma subsampling (ignored for grayscale and plain CMYK).
    public var chromaSubsampling: ChromaSubsampling
    /// Progressive (libjpeg's default scan script) instead of baseline.
    public var progressive: Bool
    /// Restart interval in MCU rows; 0 writes no restart markers.
    public var restartIntervalRows: Int
    /// For 4-component input: plain CMYK (Adobe transform 0) instead of YCCK.
    public var plainCMYK: Bool
    /// Optimised Huffman tables.
    public var optimizeCoding: Bool

    /// Creates options; the defaults are what rendered images use (q85, 4:2:0, baseline,
    /// optimised tables).
    public init(
        quality: Int = 85, chromaSubsampling: ChromaSubsampling = .both, progressive: Bool = false,
        restartIntervalRows: Int = 0, plainCMYK: Bool = false, optimizeCoding: Bool = true
    ) {
        self.quality = quality
        self.chromaSubsampling = chromaSubsampling
        self.progressive = progressive
        self.restartIntervalRows = restartIntervalRows
        self.plainCMYK = plainCMYK
        self.optimizeCoding = optimizeCoding
    }
}
