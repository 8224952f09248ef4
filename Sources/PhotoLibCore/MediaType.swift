/// The kind of media an asset holds, with PhotoKit's `PHAssetMediaType` raw values.
public enum MediaType: Int, Sendable, Hashable, CaseIterable, Codable {
    /// Unknown media.
    case unknown = 0
    /// A still image.
    case image = 1
    /// A video.
    case video = 2
    /// Audio.
    case audio = 3

    /// The name used in predicates, JSON and the CLI (`image`, `video`…).
    public var name: String {
        switch self {
        case .unknown: return "unknown"
        case .image: return "image"
        case .video: return "video"
        case .audio: return "audio"
        }
    }

    /// Looks a media type up by its ``name``.
    public init?(name: String) {
        guard let match = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = match
    }
}
