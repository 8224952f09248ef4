import Foundation

/// Bytes uploaded and staged on the server, waiting for a `createAsset` request (wire message
/// `UploadResult`): what the store stages and what the client's `upload` returns.
public struct Upload: Sendable, Hashable {
    /// The id to pass in `ChangeRequest.CreateAsset.uploadID`.
    public var uploadID: String
    /// SHA-256 of the bytes, 64 lowercase hex digits.
    public var sha256: String
    /// Size in bytes.
    public var size: Int
    /// The asset that already holds these bytes, if any: a `createAsset` from this upload
    /// resolves to it and creates nothing.
    public var existingAssetIdentifier: String?
    /// When the upload is dropped if no `createAsset` used it.
    public var expiresAt: Date

    /// Creates a value.
    public init(uploadID: String, sha256: String, size: Int, existingAssetIdentifier: String?, expiresAt: Date) {
        self.uploadID = uploadID
        self.sha256 = sha256
        self.size = size
        self.existingAssetIdentifier = existingAssetIdentifier
        self.expiresAt = expiresAt
    }
}
