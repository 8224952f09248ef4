import PhotoLibCore

/// A file of an asset as stored: PhotoKit's `PHAssetResource` plus where the bytes are.
public struct AssetResourceRecord: Sendable, Hashable {
    /// What the client sees of the file.
    public var resource: AssetResource
    /// The absolute path of the file.
    public var path: String

    /// The asset the file belongs to.
    public var assetIdentifier: String { resource.assetIdentifier }
    /// Which resource this is.
    public var type: AssetResourceType { resource.type }
    /// The file name the asset had when imported.
    public var originalFilename: String { resource.originalFilename }
    /// Size in bytes.
    public var byteSize: Int { resource.size }
    /// SHA-256 of the bytes, 64 lowercase hex digits.
    public var sha256: String { resource.sha256 }
    /// The uniform type identifier, e.g. `public.jpeg`.
    public var uniformTypeIdentifier: String { resource.uniformTypeIdentifier }

    /// Creates a record.
    public init(
        assetIdentifier: String, type: AssetResourceType, originalFilename: String, byteSize: Int,
        sha256: String, uniformTypeIdentifier: String, path: String
    ) {
        self.resource = AssetResource(
            assetIdentifier: assetIdentifier, type: type, originalFilename: originalFilename,
            uniformTypeIdentifier: uniformTypeIdentifier, size: byteSize, sha256: sha256)
        self.path = path
    }
}
