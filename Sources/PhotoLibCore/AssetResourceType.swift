/// PhotoKit's `PHAssetResourceType`, with PhotoKit's numbers: the one resource-type enum of
/// the store, the wire (`ResourceType` in images.proto) and the client.
public enum AssetResourceType: Int, Sendable, Hashable, CaseIterable {
    /// The original photo.
    case photo = 1
    /// The original video.
    case video = 2
    /// The original audio.
    case audio = 3
    /// An alternate photo (the RAW of a RAW+JPEG pair).
    case alternatePhoto = 4
    /// The current, edited photo.
    case fullSizePhoto = 5
    /// The current, edited video.
    case fullSizeVideo = 6
    /// The edit recipe.
    case adjustmentData = 7
    /// The photo the edit recipe applies to.
    case adjustmentBasePhoto = 8
    /// The video of a Live Photo.
    case pairedVideo = 9
    /// The edited video of a Live Photo.
    case fullSizePairedVideo = 10
    /// The paired video the edit recipe applies to.
    case adjustmentBasePairedVideo = 11
    /// The video the edit recipe applies to.
    case adjustmentBaseVideo = 12

    /// The lower-camel name, e.g. `fullSizePhoto` (the CLI's `--resource` values).
    public var name: String {
        switch self {
        case .photo: "photo"
        case .video: "video"
        case .audio: "audio"
        case .alternatePhoto: "alternatePhoto"
        case .fullSizePhoto: "fullSizePhoto"
        case .fullSizeVideo: "fullSizeVideo"
        case .adjustmentData: "adjustmentData"
        case .adjustmentBasePhoto: "adjustmentBasePhoto"
        case .pairedVideo: "pairedVideo"
        case .fullSizePairedVideo: "fullSizePairedVideo"
        case .adjustmentBasePairedVideo: "adjustmentBasePairedVideo"
        case .adjustmentBaseVideo: "adjustmentBaseVideo"
        }
    }

    /// The type named `name` (see ``name``), case-insensitively.
    public init?(name: String) {
        guard let found = Self.allCases.first(where: { $0.name.lowercased() == name.lowercased() }) else { return nil }
        self = found
    }
}
