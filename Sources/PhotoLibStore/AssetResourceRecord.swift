/// PhotoKit's `PHAssetResourceType`, with its raw values.
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
}

/// A file of an asset as stored: PhotoKit's `PHAssetResource` plus where the bytes are.
public struct AssetResourceRecord: Sendable, Hashable {
    /// The asset the file belongs to.
    public var assetIdentifier: String
    /// Which resource this is.
    public var type: AssetResourceType
    /// The file name the asset had when imported.
    public var originalFilename: String
    /// Size in bytes.
    public var byteSize: Int
    /// SHA-256 of the bytes, 64 lowercase hex digits.
    public var sha256: String
    /// The uniform type identifier, e.g. `public.jpeg`.
    public var uniformTypeIdentifier: String
    /// The absolute path of the file.
    public var path: String

    /// Creates a record.
    public init(
        assetIdentifier: String, type: AssetResourceType, originalFilename: String, byteSize: Int,
        sha256: String, uniformTypeIdentifier: String, path: String
    ) {
        self.assetIdentifier = assetIdentifier
        self.type = type
        self.originalFilename = originalFilename
        self.byteSize = byteSize
        self.sha256 = sha256
        self.uniformTypeIdentifier = uniformTypeIdentifier
        self.path = path
    }
}
