internal import CPhotoLibProto
import PhotoLibCore

/// `ImageRequest`: PhotoKit's `requestImage(for:targetSize:contentMode:options:)`.
public struct ImageRequest: WireMessage, Hashable {
    /// The asset.
    public var assetIdentifier: String
    /// Target size; ``PixelSize/maximum`` (0×0) for full size.
    public var targetSize: PixelSize
    /// Fit or fill.
    public var contentMode: ContentMode
    /// Delivery, resize, version, crop.
    public var options: ImageRequestOptions
    /// Whether to send progress messages.
    public var wantsProgress: Bool
    /// Client-chosen id for `CancelImageRequest` (0: none).
    public var requestID: UInt64
    /// Ignore every cache (owner only).
    public var bypassCache: Bool

    /// Creates a request.
    public init(assetIdentifier: String, targetSize: PixelSize, contentMode: ContentMode = .aspectFit, options: ImageRequestOptions = ImageRequestOptions(), wantsProgress: Bool = false, requestID: UInt64 = 0, bypassCache: Bool = false) {
        self.assetIdentifier = assetIdentifier
        self.targetSize = targetSize
        self.contentMode = contentMode
        self.options = options
        self.wantsProgress = wantsProgress
        self.requestID = requestID
        self.bypassCache = bypassCache
    }

    /// Decodes and checks the request; unknown enum values are `invalidArgument`.
    public init(decoding bytes: [UInt8]) throws(PhotoLibError) {
        self = try ProtoCodec.decode(bytes, "ImageRequest", photolib__v1__image_request__unpack, photolib__v1__image_request__free_unpacked) { (m) throws(PhotoLibError) in
            let p = m.pointee
            guard let mode = ContentMode(rawValue: Int(p.content_mode.rawValue)),
                let delivery = DeliveryMode(rawValue: Int(p.delivery_mode.rawValue)),
                let resize = ResizeMode(rawValue: Int(p.resize_mode.rawValue)),
                let version = ImageVersion(rawValue: Int(p.version.rawValue))
            else {
                throw PhotoLibError(.invalidArgument, "ImageRequest has an unknown content mode, delivery mode, resize mode or version (see images.proto)")
            }
            let crop = p.normalized_crop_rect.map { NormalizedRect(x: $0.pointee.x, y: $0.pointee.y, width: $0.pointee.width, height: $0.pointee.height) }
            return ImageRequest(
                assetIdentifier: ProtoCodec.string(p.asset_identifier),
                targetSize: PixelSize(width: Int(p.target_width), height: Int(p.target_height)), contentMode: mode,
                options: ImageRequestOptions(deliveryMode: delivery, resizeMode: resize, version: version, normalizedCropRect: crop),
                wantsProgress: p.wants_progress != 0, requestID: p.request_id, bypassCache: p.bypass_cache != 0)
        }
    }

    /// Encodes the request.
    public func encoded() -> [UInt8] {
        let arena = ProtoArena()
        var m = Photolib__V1__ImageRequest()
        photolib__v1__image_request__init(&m)
        m.asset_identifier = arena.string(assetIdentifier)
        m.target_width = UInt32(clamping: targetSize.width)
        m.target_height = UInt32(clamping: targetSize.height)
        m.content_mode = .init(rawValue: numericCast(contentMode.rawValue))
        m.delivery_mode = .init(rawValue: numericCast(options.deliveryMode.rawValue))
        m.resize_mode = .init(rawValue: numericCast(options.resizeMode.rawValue))
        m.version = .init(rawValue: numericCast(options.version.rawValue))
        if let crop = options.normalizedCropRect {
            var r = Photolib__V1__NormalizedRect()
            photolib__v1__normalized_rect__init(&r)
            r.x = crop.x
            r.y = crop.y
            r.width = crop.width
            r.height = crop.height
            m.normalized_crop_rect = arena.object(r)
        }
        m.wants_progress = wantsProgress ? 1 : 0
        m.request_id = requestID
        m.bypass_cache = bypassCache ? 1 : 0
        return ProtoCodec.pack(&m, photolib__v1__image_request__get_packed_size, photolib__v1__image_request__pack)
    }
}

/// Describes one delivered image (`ImageStart`).
public struct ImageStart: Sendable, Hashable {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// Total bytes of the encoded image that the chunks carry.
    public var byteCount: Int
    /// Whether this is the degraded first image of an opportunistic request.
    public var degraded: Bool
    /// `public.jpeg`.
    public var uniformTypeIdentifier: String
    /// 0 for the first image of the call, 1 for the second.
    public var imageIndex: Int

    /// Creates an image description.
    public init(width: Int, height: Int, byteCount: Int, degraded: Bool, uniformTypeIdentifier: String = "public.jpeg", imageIndex: Int) {
        self.width = width
        self.height = height
        self.byteCount = byteCount
        self.degraded = degraded
        self.uniformTypeIdentifier = uniformTypeIdentifier
        self.imageIndex = imageIndex
    }
}

/// `ImageResponse`: one part of an image stream.
public enum ImageResponse: WireMessage, Hashable {
    /// A new image begins.
    case start(ImageStart)
    /// Bytes of the current image at `offset`.
    case chunk(offset: Int, data: [UInt8])
    /// The current image is complete.
    case end(imageIndex: Int, isFinal: Bool)
    /// Work done so far, 0…1.
    case progress(Double)

    /// Decodes and checks a part.
    public init(decoding bytes: [UInt8]) throws(PhotoLibError) {
        self = try ProtoCodec.decode(bytes, "ImageResponse", photolib__v1__image_response__unpack, photolib__v1__image_response__free_unpacked) { (m) throws(PhotoLibError) in
            let p = m.pointee
            switch p.part_case {
            case PHOTOLIB__V1__IMAGE_RESPONSE__PART_START:
                guard let s = p.start?.pointee else { break }
                return .start(ImageStart(
                    width: Int(s.width), height: Int(s.height), byteCount: ProtoCodec.int(s.byte_count), degraded: s.degraded != 0,
                    uniformTypeIdentifier: ProtoCodec.string(s.uniform_type_identifier), imageIndex: Int(s.image_index)))
            case PHOTOLIB__V1__IMAGE_RESPONSE__PART_CHUNK:
                guard let c = p.chunk?.pointee else { break }
                return .chunk(offset: ProtoCodec.int(c.offset), data: ProtoCodec.bytes(c.data))
            case PHOTOLIB__V1__IMAGE_RESPONSE__PART_END:
                guard let e = p.end?.pointee else { break }
                return .end(imageIndex: Int(e.image_index), isFinal: e.is_final != 0)
            case PHOTOLIB__V1__IMAGE_RESPONSE__PART_PROGRESS:
                guard let g = p.progress?.pointee else { break }
                return .progress(g.fraction)
            default:
                break
            }
            throw PhotoLibError(.invalidArgument, "ImageResponse carries no part")
        }
    }

    /// Encodes the part.
    public func encoded() -> [UInt8] {
        let arena = ProtoArena()
        var m = Photolib__V1__ImageResponse()
        photolib__v1__image_response__init(&m)
        switch self {
        case .start(let start):
            var s = Photolib__V1__ImageStart()
            photolib__v1__image_start__init(&s)
            s.width = UInt32(clamping: start.width)
            s.height = UInt32(clamping: start.height)
            s.byte_count = UInt64(max(0, start.byteCount))
            s.degraded = start.degraded ? 1 : 0
            s.uniform_type_identifier = arena.string(start.uniformTypeIdentifier)
            s.image_index = UInt32(clamping: start.imageIndex)
            m.part_case = PHOTOLIB__V1__IMAGE_RESPONSE__PART_START
            m.start = arena.object(s)
        case .chunk(let offset, let data):
            var c = Photolib__V1__ImageChunk()
            photolib__v1__image_chunk__init(&c)
            c.offset = UInt64(max(0, offset))
            c.data = arena.bytes(data)
            m.part_case = PHOTOLIB__V1__IMAGE_RESPONSE__PART_CHUNK
            m.chunk = arena.object(c)
        case .end(let index, let isFinal):
            var e = Photolib__V1__ImageEnd()
            photolib__v1__image_end__init(&e)
            e.image_index = UInt32(clamping: index)
            e.is_final = isFinal ? 1 : 0
            m.part_case = PHOTOLIB__V1__IMAGE_RESPONSE__PART_END
            m.end = arena.object(e)
        case .progress(let fraction):
            var g = Photolib__V1__ImageProgress()
            photolib__v1__image_progress__init(&g)
            g.fraction = fraction
            m.part_case = PHOTOLIB__V1__IMAGE_RESPONSE__PART_PROGRESS
            m.progress = arena.object(g)
        }
        return ProtoCodec.pack(&m, photolib__v1__image_response__get_packed_size, photolib__v1__image_response__pack)
    }
}

/// `CancelImageRequestRequest`: PhotoKit's `cancelImageRequest(_:)`.
public struct CancelImageRequestRequest: WireMessage, Hashable {
    /// The `ImageRequest.requestID` to cancel.
    public var requestID: UInt64

    /// Creates a request.
    public init(requestID: UInt64) { self.requestID = requestID }

    /// Decodes the request.
    public init(decoding bytes: [UInt8]) throws(PhotoLibError) {
        self = try ProtoCodec.decode(bytes, "CancelImageRequestRequest", photolib__v1__cancel_image_request_request__unpack, photolib__v1__cancel_image_request_request__free_unpacked) { m in
            CancelImageRequestRequest(requestID: m.pointee.request_id)
        }
    }

    /// Encodes the request.
    public func encoded() -> [UInt8] {
        var m = Photolib__V1__CancelImageRequestRequest()
        photolib__v1__cancel_image_request_request__init(&m)
        m.request_id = requestID
        return ProtoCodec.pack(&m, photolib__v1__cancel_image_request_request__get_packed_size, photolib__v1__cancel_image_request_request__pack)
    }
}
