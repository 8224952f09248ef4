import PhotoLibCore

// PHImageManager's arguments (PhotoLibCore) ⇄ `ImageRequest` / `CachingRequest` (images.proto).

extension Wire.ImageRequest {
    /// The message for `requestImage(for:targetSize:contentMode:options:)`; `acceptsWholeImages`
    /// says the client takes an image that fits in one chunk as one `ImageWhole`.
    public init(
        assetIdentifier: String, targetSize: PixelSize, contentMode: ContentMode = .aspectFit, options: ImageRequestOptions = ImageRequestOptions(),
        wantsProgress: Bool = false, requestID: UInt64 = 0, bypassCache: Bool = false, acceptsWholeImages: Bool = false
    ) {
        self.init(
            assetIdentifier: assetIdentifier, targetWidth: UInt32(clamping: targetSize.width), targetHeight: UInt32(clamping: targetSize.height),
            contentMode: .init(contentMode), deliveryMode: .init(options.deliveryMode), resizeMode: .init(options.resizeMode),
            version: .init(options.version), normalizedCropRect: options.normalizedCropRect.map(Wire.NormalizedRect.init),
            wantsProgress: wantsProgress, requestID: requestID, bypassCache: bypassCache, acceptsWholeImages: acceptsWholeImages)
    }

    /// The target size (0 × 0: PhotoKit's maximum size).
    public var targetSize: PixelSize { PixelSize(width: Int(targetWidth), height: Int(targetHeight)) }

    /// The content mode and options it asks for. An enum number this side does not know
    /// (from a newer peer) is read as the field's default, value 0 (proto3 open enums,
    /// docs/PROTOCOL.md section 13.1).
    public func domain() throws(PhotoLibError) -> (contentMode: ContentMode, options: ImageRequestOptions) {
        let mode = ContentMode(rawValue: Int(contentMode.rawValue)) ?? ContentMode(rawValue: 0)!
        let delivery = DeliveryMode(rawValue: Int(deliveryMode.rawValue)) ?? DeliveryMode(rawValue: 0)!
        let resize = ResizeMode(rawValue: Int(resizeMode.rawValue)) ?? ResizeMode(rawValue: 0)!
        let version = ImageVersion(rawValue: Int(version.rawValue)) ?? ImageVersion(rawValue: 0)!
        let crop = normalizedCropRect.map { NormalizedRect(x: $0.x, y: $0.y, width: $0.width, height: $0.height) }
        return (mode, ImageRequestOptions(deliveryMode: delivery, resizeMode: resize, version: version, normalizedCropRect: crop))
    }
}

extension Wire.NormalizedRect {
    /// The message for `rect`.
    public init(_ rect: NormalizedRect) {
        self.init(x: rect.x, y: rect.y, width: rect.width, height: rect.height)
    }
}

extension Wire.CachingRequest {
    /// At most this many assets per request.
    public static let maxAssets = 1000

    /// The message for `startCachingImages` / `stopCachingImages`.
    public init(assetIdentifiers: [String], targetSize: PixelSize, contentMode: ContentMode, resizeMode: ResizeMode, version: ImageVersion) {
        self.init(
            assetIdentifiers: assetIdentifiers, targetWidth: UInt32(clamping: targetSize.width), targetHeight: UInt32(clamping: targetSize.height),
            contentMode: .init(contentMode), resizeMode: .init(resizeMode), version: .init(version))
    }

    /// The target size.
    public var targetSize: PixelSize { PixelSize(width: Int(targetWidth), height: Int(targetHeight)) }

    /// The arguments, checked: at most ``maxAssets`` assets; an unknown enum number is read
    /// as the field's default, value 0 (as for ``Wire/ImageRequest/domain()``).
    public func domain() throws(PhotoLibError) -> (contentMode: ContentMode, resizeMode: ResizeMode, version: ImageVersion) {
        guard assetIdentifiers.count <= Self.maxAssets else {
            throw PhotoLibError(.resourceExhausted, "a caching request holds at most \(Self.maxAssets) asset identifiers; this one has \(assetIdentifiers.count): split it")
        }
        return (
            ContentMode(rawValue: Int(contentMode.rawValue)) ?? ContentMode(rawValue: 0)!,
            ResizeMode(rawValue: Int(resizeMode.rawValue)) ?? ResizeMode(rawValue: 0)!,
            ImageVersion(rawValue: Int(version.rawValue)) ?? ImageVersion(rawValue: 0)!)
    }
}

extension Wire.ResourceType {
    /// The PhotoLibCore type; 0 (unspecified) and unknown numbers are `invalidArgument`.
    public func domain(field: String) throws(PhotoLibError) -> AssetResourceType {
        guard let type = AssetResourceType(rawValue: Int(rawValue)) else {
            throw PhotoLibError(.invalidArgument, "\(field) has resource type \(rawValue), which is unspecified or unknown (see ResourceType in images.proto)")
        }
        return type
    }
}
