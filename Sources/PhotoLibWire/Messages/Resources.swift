internal import CPhotoLibProto
import PhotoLibCore

/// `ResourceType`: PhotoKit's `PHAssetResourceType`, with PhotoKit's numbers.
public enum ResourceType: Int, Sendable, Hashable, CaseIterable {
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

    /// Reads a wire value; 0 (unspecified) and unknown numbers are `invalidArgument`.
    static func decode(_ raw: Int, field: String) throws(PhotoLibError) -> ResourceType {
        guard let type = ResourceType(rawValue: raw) else {
            throw PhotoLibError(.invalidArgument, "\(field) has resource type \(raw), which is unspecified or unknown (see ResourceType in images.proto)")
        }
        return type
    }
}

/// `CachingRequest`: PhotoKit's `startCachingImages` / `stopCachingImages` arguments.
public struct CachingRequest: WireMessage, Hashable {
    /// The most identifiers one request may carry.
    public static let maxAssets = 1000

    /// The assets.
    public var assetIdentifiers: [String]
    /// Target size (0×0: maximum).
    public var targetSize: PixelSize
    /// Fit or fill.
    public var contentMode: ContentMode
    /// Resize mode.
    public var resizeMode: ResizeMode
    /// Version.
    public var version: ImageVersion

    /// Creates a request.
    public init(assetIdentifiers: [String], targetSize: PixelSize, contentMode: ContentMode = .aspectFit, resizeMode: ResizeMode = .fast, version: ImageVersion = .current) {
        self.assetIdentifiers = assetIdentifiers
        self.targetSize = targetSize
        self.contentMode = contentMode
        self.resizeMode = resizeMode
        self.version = version
    }

    /// Decodes and checks the request: at most ``maxAssets`` identifiers, known enum values.
    public init(decoding bytes: [UInt8]) throws(PhotoLibError) {
        self = try ProtoCodec.decode(bytes, "CachingRequest", photolib__v1__caching_request__unpack, photolib__v1__caching_request__free_unpacked) { (m) throws(PhotoLibError) in
            let p = m.pointee
            guard p.n_asset_identifiers <= Self.maxAssets else {
                throw PhotoLibError(.resourceExhausted, "a caching request holds at most \(Self.maxAssets) asset identifiers; this one has \(p.n_asset_identifiers): split it")
            }
            guard let mode = ContentMode(rawValue: Int(p.content_mode.rawValue)),
                let resize = ResizeMode(rawValue: Int(p.resize_mode.rawValue)),
                let version = ImageVersion(rawValue: Int(p.version.rawValue))
            else {
                throw PhotoLibError(.invalidArgument, "CachingRequest has an unknown content mode, resize mode or version (see images.proto)")
            }
            return CachingRequest(
                assetIdentifiers: ProtoCodec.strings(p.n_asset_identifiers, p.asset_identifiers),
                targetSize: PixelSize(width: Int(p.target_width), height: Int(p.target_height)),
                contentMode: mode, resizeMode: resize, version: version)
        }
    }

    /// Encodes the request.
    public func encoded() -> [UInt8] {
        let arena = ProtoArena()
        var m = Photolib__V1__CachingRequest()
        photolib__v1__caching_request__init(&m)
        (m.n_asset_identifiers, m.asset_identifiers) = arena.strings(assetIdentifiers)
        m.target_width = UInt32(clamping: targetSize.width)
        m.target_height = UInt32(clamping: targetSize.height)
        m.content_mode = .init(rawValue: numericCast(contentMode.rawValue))
        m.resize_mode = .init(rawValue: numericCast(resizeMode.rawValue))
        m.version = .init(rawValue: numericCast(version.rawValue))
        return ProtoCodec.pack(&m, photolib__v1__caching_request__get_packed_size, photolib__v1__caching_request__pack)
    }
}

/// `AssetResource`: one file of an asset (PhotoKit's `PHAssetResource`).
public struct AssetResourceDescription: Sendable, Hashable {
    /// The asset.
    public var assetIdentifier: String
    /// Which resource.
    public var type: ResourceType
    /// The file name at import.
    public var originalFilename: String
    /// E.g. `public.jpeg`.
    public var uniformTypeIdentifier: String
    /// Size in bytes.
    public var size: Int
    /// Lowercase hex SHA-256 of the bytes.
    public var sha256: String

    /// Creates a description.
    public init(assetIdentifier: String, type: ResourceType, originalFilename: String, uniformTypeIdentifier: String, size: Int, sha256: String) {
        self.assetIdentifier = assetIdentifier
        self.type = type
        self.originalFilename = originalFilename
        self.uniformTypeIdentifier = uniformTypeIdentifier
        self.size = size
        self.sha256 = sha256
    }
}

/// `AssetResourcesRequest`: `PHAssetResource.assetResources(for:)`.
public struct AssetResourcesRequest: WireMessage, Hashable {
    /// The asset.
    public var assetIdentifier: String

    /// Creates a request.
    public init(assetIdentifier: String) { self.assetIdentifier = assetIdentifier }

    /// Decodes the request.
    public init(decoding bytes: [UInt8]) throws(PhotoLibError) {
        self = try ProtoCodec.decode(bytes, "AssetResourcesRequest", photolib__v1__asset_resources_request__unpack, photolib__v1__asset_resources_request__free_unpacked) { m in
            AssetResourcesRequest(assetIdentifier: ProtoCodec.string(m.pointee.asset_identifier))
        }
    }

    /// Encodes the request.
    public func encoded() -> [UInt8] {
        let arena = ProtoArena()
        var m = Photolib__V1__AssetResourcesRequest()
        photolib__v1__asset_resources_request__init(&m)
        m.asset_identifier = arena.string(assetIdentifier)
        return ProtoCodec.pack(&m, photolib__v1__asset_resources_request__get_packed_size, photolib__v1__asset_resources_request__pack)
    }
}

/// `AssetResourcesResponse`: every resource of an asset.
public struct AssetResourcesResponse: WireMessage, Hashable {
    /// The resources, photo first.
    public var resources: [AssetResourceDescription]

    /// Creates a response.
    public init(resources: [AssetResourceDescription]) { self.resources = resources }

    /// Decodes the response; an unknown resource type is `invalidArgument`.
    public init(decoding bytes: [UInt8]) throws(PhotoLibError) {
        self = try ProtoCodec.decode(bytes, "AssetResourcesResponse", photolib__v1__asset_resources_response__unpack, photolib__v1__asset_resources_response__free_unpacked) { (m) throws(PhotoLibError) in
            let p = m.pointee
            let resources = try ProtoCodec.messages(p.n_resources, p.resources) { (r) throws(PhotoLibError) in
                let value = r.pointee
                return AssetResourceDescription(
                    assetIdentifier: ProtoCodec.string(value.asset_identifier),
                    type: try ResourceType.decode(Int(value.type.rawValue), field: "AssetResource.type"),
                    originalFilename: ProtoCodec.string(value.original_filename),
                    uniformTypeIdentifier: ProtoCodec.string(value.uniform_type_identifier),
                    size: ProtoCodec.int(value.size), sha256: ProtoCodec.string(value.sha256))
            }
            return AssetResourcesResponse(resources: resources)
        }
    }

    /// Encodes the response.
    public func encoded() -> [UInt8] {
        let arena = ProtoArena()
        var m = Photolib__V1__AssetResourcesResponse()
        photolib__v1__asset_resources_response__init(&m)
        let items: [Photolib__V1__AssetResource] = resources.map { resource in
            var r = Photolib__V1__AssetResource()
            photolib__v1__asset_resource__init(&r)
            r.asset_identifier = arena.string(resource.assetIdentifier)
            r.type = .init(rawValue: numericCast(resource.type.rawValue))
            r.original_filename = arena.string(resource.originalFilename)
            r.uniform_type_identifier = arena.string(resource.uniformTypeIdentifier)
            r.size = UInt64(max(0, resource.size))
            r.sha256 = arena.string(resource.sha256)
            return r
        }
        (m.n_resources, m.resources) = arena.objects(items)
        return ProtoCodec.pack(&m, photolib__v1__asset_resources_response__get_packed_size, photolib__v1__asset_resources_response__pack)
    }
}

/// `ResourceDataRequest`: `requestData(for:options:)` from an offset, for resumable transfers.
public struct ResourceDataRequest: WireMessage, Hashable {
    /// The asset.
    public var assetIdentifier: String
    /// Which of its resources.
    public var type: ResourceType
    /// First byte to send.
    public var offset: Int
    /// Bytes to send; 0: to the end.
    public var length: Int

    /// Creates a request.
    public init(assetIdentifier: String, type: ResourceType = .photo, offset: Int = 0, length: Int = 0) {
        self.assetIdentifier = assetIdentifier
        self.type = type
        self.offset = offset
        self.length = length
    }

    /// Decodes the request; an unspecified or unknown type is `invalidArgument`.
    public init(decoding bytes: [UInt8]) throws(PhotoLibError) {
        self = try ProtoCodec.decode(bytes, "ResourceDataRequest", photolib__v1__resource_data_request__unpack, photolib__v1__resource_data_request__free_unpacked) { (m) throws(PhotoLibError) in
            let p = m.pointee
            return ResourceDataRequest(
                assetIdentifier: ProtoCodec.string(p.asset_identifier),
                type: try ResourceType.decode(Int(p.type.rawValue), field: "ResourceDataRequest.type"),
                offset: ProtoCodec.int(p.offset), length: ProtoCodec.int(p.length))
        }
    }

    /// Encodes the request.
    public func encoded() -> [UInt8] {
        let arena = ProtoArena()
        var m = Photolib__V1__ResourceDataRequest()
        photolib__v1__resource_data_request__init(&m)
        m.asset_identifier = arena.string(assetIdentifier)
        m.type = .init(rawValue: numericCast(type.rawValue))
        m.offset = UInt64(max(0, offset))
        m.length = UInt64(max(0, length))
        return ProtoCodec.pack(&m, photolib__v1__resource_data_request__get_packed_size, photolib__v1__resource_data_request__pack)
    }
}

/// `ResourceDataChunk`: bytes of a resource at an offset.
public struct ResourceDataChunk: WireMessage, Hashable {
    /// Where `data` starts in the resource.
    public var offset: Int
    /// At most 64 KiB.
    public var data: [UInt8]
    /// The resource's whole size.
    public var totalSize: Int

    /// Creates a chunk.
    public init(offset: Int, data: [UInt8], totalSize: Int) {
        self.offset = offset
        self.data = data
        self.totalSize = totalSize
    }

    /// Decodes a chunk.
    public init(decoding bytes: [UInt8]) throws(PhotoLibError) {
        self = try ProtoCodec.decode(bytes, "ResourceDataChunk", photolib__v1__resource_data_chunk__unpack, photolib__v1__resource_data_chunk__free_unpacked) { m in
            let p = m.pointee
            return ResourceDataChunk(offset: ProtoCodec.int(p.offset), data: ProtoCodec.bytes(p.data), totalSize: ProtoCodec.int(p.total_size))
        }
    }

    /// Encodes the chunk.
    public func encoded() -> [UInt8] {
        let arena = ProtoArena()
        var m = Photolib__V1__ResourceDataChunk()
        photolib__v1__resource_data_chunk__init(&m)
        m.offset = UInt64(max(0, offset))
        m.data = arena.bytes(data)
        m.total_size = UInt64(max(0, totalSize))
        return ProtoCodec.pack(&m, photolib__v1__resource_data_chunk__get_packed_size, photolib__v1__resource_data_chunk__pack)
    }
}
