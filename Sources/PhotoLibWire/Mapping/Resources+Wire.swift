import PhotoLibCore

// AssetResource ⇄ `AssetResource` (images.proto).

extension Wire.AssetResource {
    /// The wire form of `resource`.
    public init(_ resource: AssetResource) {
        self.init(
            assetIdentifier: resource.assetIdentifier, type: .init(resource.type), originalFilename: resource.originalFilename,
            uniformTypeIdentifier: resource.uniformTypeIdentifier, size: UInt64(max(0, resource.size)), sha256: resource.sha256)
    }
}

extension AssetResource {
    /// The resource a message describes; an unknown type or an impossible size is
    /// `invalidArgument`.
    public init(_ wire: Wire.AssetResource) throws(PhotoLibError) {
        guard wire.size <= UInt64(Int.max) else {
            throw PhotoLibError(.invalidArgument, "AssetResource.size \(wire.size) is out of range")
        }
        self.init(
            assetIdentifier: wire.assetIdentifier, type: try wire.type.domain(field: "AssetResource.type"),
            originalFilename: wire.originalFilename, uniformTypeIdentifier: wire.uniformTypeIdentifier, size: Int(wire.size),
            sha256: wire.sha256)
    }
}
