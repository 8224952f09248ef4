import PhotoLibCore

// PHImageManager's arguments (PhotoLibCore) ⇄ `ImageRequest` / `CachingRequest` (images.proto).

extension Wire.ImageRequest {
    /// The message for `requestImage(for:targetSize:contentMode:options:)`; `acceptsWholeImages`
    /// says the client takes an image that fits in one chunk as one `ImageWhole`. A target
    /// size the wire cannot carry is `invalidArgument` (`PixelSize.wireSides()`).
    public init(
        assetIdentifier: String, targetSize: PixelSize, contentMode: ContentMode = .aspectFit, options: ImageRequestOptions = ImageRequestOptions(),
        wantsProgress: Bool = false, requestID: UInt64 = 0, bypassCache: Bool = false, acceptsWholeImages: Bool = false
    ) throws(PhotoLibError) {
        let (width, height) = try targetSize.wireSides()
        self.init(
            assetIdentifier: assetIdentifier, targetWidth: width, targetHeight: height,
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

extension PixelSize {
    /// The size as the wire's two `uint32` sides (`target_width`, `target_height`), checked
    /// before anything is sent: a negative side, or one beyond the wire's range (2^32 − 1), is
    /// `invalidArgument` naming the size given (clamped, −5 × −5 would read as 0 × 0, the
    /// full image, and 2^32 as 2^32 − 1). `PixelSize.maximum` (0 × 0) is 0 × 0, the full
    /// image. Sides within the wire's range are the server's
    /// to check (each 1 … its maximum image dimension, or 0 × 0: docs/PROTOCOL.md 14.1).
    public func wireSides() throws(PhotoLibError) -> (width: UInt32, height: UInt32) {
        guard let width = UInt32(exactly: width), let height = UInt32(exactly: height) else {
            throw PhotoLibError(
                .invalidArgument,
                "target size \(width)x\(height) is invalid: each side must be 0…\(UInt32.max) on the wire (the server allows 1…its maximum image dimension, photolibd 16384), or 0x0 (PixelSize.maximum) for the full size")
        }
        return (width, height)
    }
}

extension Wire.CachingRequest {
    /// At most this many assets per request.
    public static let maxAssets = 1000

    /// The message for `startCachingImages` / `stopCachingImages`; a target size the wire
    /// cannot carry is `invalidArgument` (`PixelSize.wireSides()`).
    public init(assetIdentifiers: [String], targetSize: PixelSize, contentMode: ContentMode, resizeMode: ResizeMode, version: ImageVersion) throws(PhotoLibError) {
        let (width, height) = try targetSize.wireSides()
        self.init(
            assetIdentifiers: assetIdentifiers, targetWidth: width, targetHeight: height,
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
