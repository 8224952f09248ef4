/// PhotoKit's `PHAssetResource`: one file of an asset, described (type, original file name,
/// size, uniform type identifier, SHA-256). The bytes are fetched separately.
public struct AssetResource: Sendable, Hashable {
    /// The asset the file belongs to.
    public var assetIdentifier: String
    /// Which of the asset's files this is.
    public var type: AssetResourceType
    /// The file's name when it was imported, e.g. `IMG_0042.JPG`.
    public var originalFilename: String
    /// e.g. `public.jpeg`.
    public var uniformTypeIdentifier: String
    /// Size in bytes.
    public var size: Int
    /// SHA-256 of the bytes, 64 lowercase hex digits.
    public var sha256: String

    /// A resource description.
    public init(assetIdentifier: String, type: AssetResourceType, originalFilename: String, uniformTypeIdentifier: String, size: Int, sha256: String) {
        self.assetIdentifier = assetIdentifier
        self.type = type
        self.originalFilename = originalFilename
        self.uniformTypeIdentifier = uniformTypeIdentifier
        self.size = size
        self.sha256 = sha256
    }
}
