/// Further classification of an asset, with PhotoKit's `PHAssetMediaSubtype` bit values.
public struct MediaSubtypes: OptionSet, Sendable, Hashable, Codable {
    /// The raw bit set.
    public var rawValue: UInt32
    /// Creates a set from raw bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// A panorama photo.
    public static let photoPanorama = MediaSubtypes(rawValue: 1 << 0)
    /// A high-dynamic-range photo.
    public static let photoHDR = MediaSubtypes(rawValue: 1 << 1)
    /// A screenshot.
    public static let photoScreenshot = MediaSubtypes(rawValue: 1 << 2)
    /// A Live Photo (a photo with a paired video).
    public static let photoLive = MediaSubtypes(rawValue: 1 << 3)
    /// A photo with depth effect.
    public static let photoDepthEffect = MediaSubtypes(rawValue: 1 << 4)
    /// A streamed video.
    public static let videoStreamed = MediaSubtypes(rawValue: 1 << 16)
    /// A high-frame-rate (slow motion) video.
    public static let videoHighFrameRate = MediaSubtypes(rawValue: 1 << 17)
    /// A time-lapse video.
    public static let videoTimelapse = MediaSubtypes(rawValue: 1 << 18)

    /// Every named subtype with the name used in predicates, JSON and the CLI.
    public static let named: [(name: String, value: MediaSubtypes)] = [
        ("panorama", .photoPanorama), ("hdr", .photoHDR), ("screenshot", .photoScreenshot),
        ("live", .photoLive), ("depthEffect", .photoDepthEffect), ("streamed", .videoStreamed),
        ("highFrameRate", .videoHighFrameRate), ("timelapse", .videoTimelapse),
    ]

    /// The names of the subtypes in this set, in a stable order.
    public var names: [String] {
        Self.named.filter { contains($0.value) }.map(\.name)
    }
}
