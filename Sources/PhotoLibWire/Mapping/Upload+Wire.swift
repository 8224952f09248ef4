import PhotoLibCore

// Upload (PhotoLibCore) ⇄ `UploadResult` (changes.proto).

extension Wire.UploadResult {
    /// The message for a staged upload.
    public init(_ upload: Upload) {
        self.init(
            uploadID: upload.uploadID, sha256: upload.sha256, size: UInt64(max(0, upload.size)),
            existingAssetIdentifier: upload.existingAssetIdentifier ?? "", expiresAtMs: Wire.milliseconds(upload.expiresAt))
    }
}

extension Upload {
    /// The staged upload a message describes; an impossible size is `invalidArgument`.
    public init(_ wire: Wire.UploadResult) throws(PhotoLibError) {
        guard wire.size <= UInt64(Int.max) else {
            throw PhotoLibError(.invalidArgument, "UploadResult.size \(wire.size) is out of range")
        }
        self.init(
            uploadID: wire.uploadID, sha256: wire.sha256, size: Int(wire.size),
            existingAssetIdentifier: wire.existingAssetIdentifier.isEmpty ? nil : wire.existingAssetIdentifier,
            expiresAt: Wire.date(milliseconds: wire.expiresAtMs))
    }
}
