internal import CPhotoLibProto
import Foundation
import PhotoLibCore

/// What a fetch-result snapshot holds (`ObjectType`).
public enum FetchObjectType: Int, Sendable, Hashable {
    /// `PHAsset`.
    case asset = 1
    /// `PHAssetCollection`.
    case assetCollection = 2
    /// `PHCollectionList`.
    case collectionList = 3
}

/// `FetchAssetsRequest`: fetch options plus the fetch's scope.
public struct FetchAssetsRequest: WireMessage, Hashable {
    /// Predicate, sort, limit, hidden.
    public var options: FetchOptions
    /// Only assets in this album or smart album.
    public var collectionIdentifier: String?
    /// Only these assets (empty: no restriction).
    public var localIdentifiers: [String]
    /// Only these media types (empty: all).
    public var mediaTypes: [MediaType]
    /// Objects from index 0 to send with the snapshot (the server caps it at 1000).
    public var prefetchCount: Int

    /// Creates a request.
    public init(options: FetchOptions = FetchOptions(), collectionIdentifier: String? = nil, localIdentifiers: [String] = [], mediaTypes: [MediaType] = [], prefetchCount: Int = 0) {
        self.options = options
        self.collectionIdentifier = collectionIdentifier
        self.localIdentifiers = localIdentifiers
        self.mediaTypes = mediaTypes
        self.prefetchCount = prefetchCount
    }

    /// Decodes and checks the request; unknown sort keys are `invalidArgument`.
    public init(decoding bytes: [UInt8]) throws(PhotoLibError) {
        self = try ProtoCodec.decode(bytes, "FetchAssetsRequest", photolib__v1__fetch_assets_request__unpack, photolib__v1__fetch_assets_request__free_unpacked) { (m) throws(PhotoLibError) in
            var request = FetchAssetsRequest(prefetchCount: Int(m.pointee.prefetch_count))
            guard let o = m.pointee.options else { return request }
            let sorts = try ProtoCodec.messages(o.pointee.n_sort_descriptors, o.pointee.sort_descriptors) { (s) throws(PhotoLibError) in
                try AssetSortDescriptor(wire: s.pointee)
            }
            let predicate = ProtoCodec.string(o.pointee.predicate)
            request.options = FetchOptions(
                predicate: predicate.isEmpty ? nil : predicate, sortDescriptors: sorts,
                fetchLimit: Int(o.pointee.fetch_limit), includeHiddenAssets: o.pointee.include_hidden_assets != 0)
            let collection = ProtoCodec.string(o.pointee.collection_identifier)
            request.collectionIdentifier = collection.isEmpty ? nil : collection
            request.localIdentifiers = ProtoCodec.strings(o.pointee.n_local_identifiers, o.pointee.local_identifiers)
            request.mediaTypes = try ProtoCodec.array(o.pointee.n_media_types, o.pointee.media_types).map { (raw) throws(PhotoLibError) in
                guard let type = MediaType(rawValue: Int(raw.rawValue)) else {
                    throw PhotoLibError(.invalidArgument, "unknown media type \(raw.rawValue) in FetchOptions.media_types")
                }
                return type
            }
            return request
        }
    }

    /// Encodes the request.
    public func encoded() -> [UInt8] {
        let arena = ProtoArena()
        var o = Photolib__V1__FetchOptions()
        photolib__v1__fetch_options__init(&o)
        o.predicate = arena.string(options.predicate ?? "")
        (o.n_sort_descriptors, o.sort_descriptors) = arena.objects(options.sortDescriptors.map { $0.wire() })
        o.fetch_limit = UInt32(clamping: options.fetchLimit)
        o.include_hidden_assets = options.includeHiddenAssets ? 1 : 0
        o.collection_identifier = arena.string(collectionIdentifier ?? "")
        (o.n_local_identifiers, o.local_identifiers) = arena.strings(localIdentifiers)
        (o.n_media_types, o.media_types) = arena.array(mediaTypes.map { Photolib__V1__MediaType(rawValue: numericCast($0.rawValue)) })
        var m = Photolib__V1__FetchAssetsRequest()
        photolib__v1__fetch_assets_request__init(&m)
        m.options = arena.object(o)
        m.prefetch_count = UInt32(clamping: prefetchCount)
        return ProtoCodec.pack(&m, photolib__v1__fetch_assets_request__get_packed_size, photolib__v1__fetch_assets_request__pack)
    }
}

extension AssetSortDescriptor {
    private static let wireKeys: [AssetSortKey] = [
        .creationDate, .modificationDate, .pixelWidth, .pixelHeight, .duration, .isFavorite, .isHidden, .mediaType, .localIdentifier,
    ]

    init(wire s: Photolib__V1__SortDescriptor) throws(PhotoLibError) {
        let raw = Int(s.key.rawValue)
        guard raw >= 1, raw <= Self.wireKeys.count else {
            throw PhotoLibError(.invalidArgument, "unknown sort key \(raw) in SortDescriptor (1…\(Self.wireKeys.count), see library.proto AssetSortKey)")
        }
        self.init(key: Self.wireKeys[raw - 1], ascending: s.ascending != 0)
    }

    func wire() -> Photolib__V1__SortDescriptor {
        var m = Photolib__V1__SortDescriptor()
        photolib__v1__sort_descriptor__init(&m)
        m.key = .init(rawValue: numericCast((Self.wireKeys.firstIndex(of: key) ?? 0) + 1))
        m.ascending = ascending ? 1 : 0
        return m
    }
}

/// `FetchAssetCollectionsRequest`.
public struct FetchAssetCollectionsRequest: WireMessage, Hashable {
    /// Album, smart album, or `nil` for both.
    public var type: AssetCollectionType?
    /// One subtype, or `nil` for any.
    public var subtype: AssetCollectionSubtype?
    /// Only these collections (empty: no restriction).
    public var localIdentifiers: [String]
    /// Only collections containing this asset.
    public var containingAssetIdentifier: String?
    /// Only children of this folder.
    public var parentFolderIdentifier: String?
    /// Objects from index 0 to send with the snapshot.
    public var prefetchCount: Int

    /// Creates a request.
    public init(type: AssetCollectionType? = nil, subtype: AssetCollectionSubtype? = nil, localIdentifiers: [String] = [], containingAssetIdentifier: String? = nil, parentFolderIdentifier: String? = nil, prefetchCount: Int = 0) {
        self.type = type
        self.subtype = subtype
        self.localIdentifiers = localIdentifiers
        self.containingAssetIdentifier = containingAssetIdentifier
        self.parentFolderIdentifier = parentFolderIdentifier
        self.prefetchCount = prefetchCount
    }

    /// Decodes and checks the request.
    public init(decoding bytes: [UInt8]) throws(PhotoLibError) {
        self = try ProtoCodec.decode(bytes, "FetchAssetCollectionsRequest", photolib__v1__fetch_asset_collections_request__unpack, photolib__v1__fetch_asset_collections_request__free_unpacked) { (m) throws(PhotoLibError) in
            let p = m.pointee
            let rawType = Int(p.type.rawValue), rawSubtype = Int(p.subtype.rawValue)
            guard rawType == 0 || AssetCollectionType(rawValue: rawType) != nil else {
                throw PhotoLibError(.invalidArgument, "unknown collection type \(rawType)")
            }
            guard rawSubtype == 0 || AssetCollectionSubtype(rawValue: rawSubtype) != nil else {
                throw PhotoLibError(.invalidArgument, "unknown collection subtype \(rawSubtype)")
            }
            let containing = ProtoCodec.string(p.containing_asset_identifier)
            let parent = ProtoCodec.string(p.parent_folder_identifier)
            return FetchAssetCollectionsRequest(
                type: AssetCollectionType(rawValue: rawType), subtype: AssetCollectionSubtype(rawValue: rawSubtype),
                localIdentifiers: ProtoCodec.strings(p.n_local_identifiers, p.local_identifiers),
                containingAssetIdentifier: containing.isEmpty ? nil : containing,
                parentFolderIdentifier: parent.isEmpty ? nil : parent, prefetchCount: Int(p.prefetch_count))
        }
    }

    /// Encodes the request.
    public func encoded() -> [UInt8] {
        let arena = ProtoArena()
        var m = Photolib__V1__FetchAssetCollectionsRequest()
        photolib__v1__fetch_asset_collections_request__init(&m)
        m.type = .init(rawValue: numericCast(type?.rawValue ?? 0))
        m.subtype = .init(rawValue: numericCast(subtype?.rawValue ?? 0))
        (m.n_local_identifiers, m.local_identifiers) = arena.strings(localIdentifiers)
        m.containing_asset_identifier = arena.string(containingAssetIdentifier ?? "")
        m.parent_folder_identifier = arena.string(parentFolderIdentifier ?? "")
        m.prefetch_count = UInt32(clamping: prefetchCount)
        return ProtoCodec.pack(&m, photolib__v1__fetch_asset_collections_request__get_packed_size, photolib__v1__fetch_asset_collections_request__pack)
    }
}

/// Objects of a fetch result, of one of the three kinds.
public enum FetchObjects: Sendable, Hashable {
    /// Assets.
    case assets([Asset])
    /// Albums and smart albums.
    case assetCollections([AssetCollection])
    /// Folders.
    case collectionLists([CollectionList])

    /// How many objects.
    public var count: Int {
        switch self {
        case .assets(let a): return a.count
        case .assetCollections(let c): return c.count
        case .collectionLists(let l): return l.count
        }
    }
}

/// `FetchResultSnapshot`: a server-side, immutable fetch result.
public struct FetchResultSnapshot: WireMessage, Hashable {
    /// The snapshot's id on this connection.
    public var fetchResultID: String
    /// What it holds.
    public var objectType: FetchObjectType
    /// How many objects.
    public var count: Int
    /// When it expires unless used.
    public var expiresAt: Date
    /// Objects from index 0.
    public var prefetched: FetchObjects

    /// Creates a snapshot message.
    public init(fetchResultID: String, objectType: FetchObjectType, count: Int, expiresAt: Date, prefetched: FetchObjects) {
        self.fetchResultID = fetchResultID
        self.objectType = objectType
        self.count = count
        self.expiresAt = expiresAt
        self.prefetched = prefetched
    }

    /// Decodes and checks the message.
    public init(decoding bytes: [UInt8]) throws(PhotoLibError) {
        self = try ProtoCodec.decode(bytes, "FetchResultSnapshot", photolib__v1__fetch_result_snapshot__unpack, photolib__v1__fetch_result_snapshot__free_unpacked) { (m) throws(PhotoLibError) in
            let p = m.pointee
            guard let type = FetchObjectType(rawValue: Int(p.object_type.rawValue)) else {
                throw PhotoLibError(.invalidArgument, "FetchResultSnapshot has unknown object type \(p.object_type.rawValue)")
            }
            let objects = try FetchObjects(type: type, p.n_assets, p.assets, p.n_asset_collections, p.asset_collections, p.n_collection_lists, p.collection_lists)
            return FetchResultSnapshot(
                fetchResultID: ProtoCodec.string(p.fetch_result_id), objectType: type, count: ProtoCodec.int(p.count),
                expiresAt: ProtoCodec.date(p.expires_at_ms), prefetched: objects)
        }
    }

    /// Encodes the message.
    public func encoded() -> [UInt8] {
        let arena = ProtoArena()
        var m = Photolib__V1__FetchResultSnapshot()
        photolib__v1__fetch_result_snapshot__init(&m)
        m.fetch_result_id = arena.string(fetchResultID)
        m.object_type = .init(rawValue: numericCast(objectType.rawValue))
        m.count = UInt64(max(0, count))
        m.expires_at_ms = ProtoCodec.milliseconds(expiresAt)
        switch prefetched {
        case .assets(let assets): (m.n_assets, m.assets) = arena.objects(assets.map { $0.wire(arena) })
        case .assetCollections(let c): (m.n_asset_collections, m.asset_collections) = arena.objects(c.map { $0.wire(arena) })
        case .collectionLists(let l): (m.n_collection_lists, m.collection_lists) = arena.objects(l.map { $0.wire(arena) })
        }
        return ProtoCodec.pack(&m, photolib__v1__fetch_result_snapshot__get_packed_size, photolib__v1__fetch_result_snapshot__pack)
    }
}

extension FetchObjects {
    init(
        type: FetchObjectType?,
        _ na: Int, _ a: UnsafeMutablePointer<UnsafeMutablePointer<Photolib__V1__Asset>?>?,
        _ nc: Int, _ c: UnsafeMutablePointer<UnsafeMutablePointer<Photolib__V1__AssetCollection>?>?,
        _ nl: Int, _ l: UnsafeMutablePointer<UnsafeMutablePointer<Photolib__V1__CollectionList>?>?
    ) throws(PhotoLibError) {
        switch type {
        case .assetCollection?:
            self = .assetCollections(try ProtoCodec.messages(nc, c) { (x) throws(PhotoLibError) in try AssetCollection(wire: x.pointee) })
        case .collectionList?:
            self = .collectionLists(try ProtoCodec.messages(nl, l) { x in CollectionList(wire: x.pointee) })
        default:
            if nc > 0 { self = .assetCollections(try ProtoCodec.messages(nc, c) { (x) throws(PhotoLibError) in try AssetCollection(wire: x.pointee) }) }
            else if nl > 0 { self = .collectionLists(try ProtoCodec.messages(nl, l) { x in CollectionList(wire: x.pointee) }) }
            else { self = .assets(try ProtoCodec.messages(na, a) { x in Asset(wire: x.pointee) }) }
        }
    }
}

/// `FetchResultObjectsRequest`: a range of a snapshot.
public struct FetchResultObjectsRequest: WireMessage, Hashable {
    /// The snapshot.
    public var fetchResultID: String
    /// First index.
    public var offset: Int
    /// How many (the server caps it at 1000).
    public var length: Int
    /// Only identifiers.
    public var identifiersOnly: Bool

    /// Creates a request.
    public init(fetchResultID: String, offset: Int, length: Int, identifiersOnly: Bool = false) {
        self.fetchResultID = fetchResultID
        self.offset = offset
        self.length = length
        self.identifiersOnly = identifiersOnly
    }

    /// Decodes and checks the request.
    public init(decoding bytes: [UInt8]) throws(PhotoLibError) {
        self = try ProtoCodec.decode(bytes, "FetchResultObjectsRequest", photolib__v1__fetch_result_objects_request__unpack, photolib__v1__fetch_result_objects_request__free_unpacked) { m in
            FetchResultObjectsRequest(
                fetchResultID: ProtoCodec.string(m.pointee.fetch_result_id), offset: ProtoCodec.int(m.pointee.offset),
                length: Int(m.pointee.length), identifiersOnly: m.pointee.identifiers_only != 0)
        }
    }

    /// Encodes the request.
    public func encoded() -> [UInt8] {
        let arena = ProtoArena()
        var m = Photolib__V1__FetchResultObjectsRequest()
        photolib__v1__fetch_result_objects_request__init(&m)
        m.fetch_result_id = arena.string(fetchResultID)
        m.offset = UInt64(max(0, offset))
        m.length = UInt32(clamping: length)
        m.identifiers_only = identifiersOnly ? 1 : 0
        return ProtoCodec.pack(&m, photolib__v1__fetch_result_objects_request__get_packed_size, photolib__v1__fetch_result_objects_request__pack)
    }
}

/// `FetchResultObjectsResponse`: a range of a snapshot.
///
/// ``localIdentifiers`` always lists every identifier of the range, in order; ``objects``
/// holds the objects that still exist (an asset deleted since the fetch has no object).
public struct FetchResultObjectsResponse: WireMessage, Hashable {
    /// Index of the first object.
    public var offset: Int
    /// The identifiers at `offset`, `offset + 1`, ….
    public var localIdentifiers: [String]
    /// The objects (empty when only identifiers were asked for).
    public var objects: FetchObjects

    /// Creates a response.
    public init(offset: Int, localIdentifiers: [String], objects: FetchObjects) {
        self.offset = offset
        self.localIdentifiers = localIdentifiers
        self.objects = objects
    }

    /// Decodes and checks the response.
    public init(decoding bytes: [UInt8]) throws(PhotoLibError) {
        self = try ProtoCodec.decode(bytes, "FetchResultObjectsResponse", photolib__v1__fetch_result_objects_response__unpack, photolib__v1__fetch_result_objects_response__free_unpacked) { (m) throws(PhotoLibError) in
            let p = m.pointee
            let objects = try FetchObjects(type: nil, p.n_assets, p.assets, p.n_asset_collections, p.asset_collections, p.n_collection_lists, p.collection_lists)
            return FetchResultObjectsResponse(
                offset: ProtoCodec.int(p.offset), localIdentifiers: ProtoCodec.strings(p.n_local_identifiers, p.local_identifiers), objects: objects)
        }
    }

    /// Encodes the response.
    public func encoded() -> [UInt8] {
        let arena = ProtoArena()
        var m = Photolib__V1__FetchResultObjectsResponse()
        photolib__v1__fetch_result_objects_response__init(&m)
        m.offset = UInt64(max(0, offset))
        (m.n_local_identifiers, m.local_identifiers) = arena.strings(localIdentifiers)
        switch objects {
        case .assets(let assets): (m.n_assets, m.assets) = arena.objects(assets.map { $0.wire(arena) })
        case .assetCollections(let c): (m.n_asset_collections, m.asset_collections) = arena.objects(c.map { $0.wire(arena) })
        case .collectionLists(let l): (m.n_collection_lists, m.collection_lists) = arena.objects(l.map { $0.wire(arena) })
        }
        return ProtoCodec.pack(&m, photolib__v1__fetch_result_objects_response__get_packed_size, photolib__v1__fetch_result_objects_response__pack)
    }
}

/// `FetchResultIndexRequest`: `index(of:)` / `contains(_:)`.
public struct FetchResultIndexRequest: WireMessage, Hashable {
    /// The snapshot.
    public var fetchResultID: String
    /// The object looked for.
    public var localIdentifier: String

    /// Creates a request.
    public init(fetchResultID: String, localIdentifier: String) {
        self.fetchResultID = fetchResultID
        self.localIdentifier = localIdentifier
    }

    /// Decodes and checks the request.
    public init(decoding bytes: [UInt8]) throws(PhotoLibError) {
        self = try ProtoCodec.decode(bytes, "FetchResultIndexRequest", photolib__v1__fetch_result_index_request__unpack, photolib__v1__fetch_result_index_request__free_unpacked) { m in
            FetchResultIndexRequest(fetchResultID: ProtoCodec.string(m.pointee.fetch_result_id), localIdentifier: ProtoCodec.string(m.pointee.local_identifier))
        }
    }

    /// Encodes the request.
    public func encoded() -> [UInt8] {
        let arena = ProtoArena()
        var m = Photolib__V1__FetchResultIndexRequest()
        photolib__v1__fetch_result_index_request__init(&m)
        m.fetch_result_id = arena.string(fetchResultID)
        m.local_identifier = arena.string(localIdentifier)
        return ProtoCodec.pack(&m, photolib__v1__fetch_result_index_request__get_packed_size, photolib__v1__fetch_result_index_request__pack)
    }
}

/// `FetchResultIndexResponse`.
public struct FetchResultIndexResponse: WireMessage, Hashable {
    /// The index, or `nil` when the object is not in the snapshot.
    public var index: Int?

    /// Creates a response.
    public init(index: Int?) { self.index = index }

    /// Decodes and checks the response.
    public init(decoding bytes: [UInt8]) throws(PhotoLibError) {
        self = try ProtoCodec.decode(bytes, "FetchResultIndexResponse", photolib__v1__fetch_result_index_response__unpack, photolib__v1__fetch_result_index_response__free_unpacked) { m in
            FetchResultIndexResponse(index: m.pointee.found != 0 ? ProtoCodec.int(m.pointee.index) : nil)
        }
    }

    /// Encodes the response.
    public func encoded() -> [UInt8] {
        var m = Photolib__V1__FetchResultIndexResponse()
        photolib__v1__fetch_result_index_response__init(&m)
        m.found = index == nil ? 0 : 1
        m.index = UInt64(max(0, index ?? 0))
        return ProtoCodec.pack(&m, photolib__v1__fetch_result_index_response__get_packed_size, photolib__v1__fetch_result_index_response__pack)
    }
}

/// `ReleaseFetchResultRequest`.
public struct ReleaseFetchResultRequest: WireMessage, Hashable {
    /// The snapshot to drop.
    public var fetchResultID: String

    /// Creates a request.
    public init(fetchResultID: String) { self.fetchResultID = fetchResultID }

    /// Decodes and checks the request.
    public init(decoding bytes: [UInt8]) throws(PhotoLibError) {
        self = try ProtoCodec.decode(bytes, "ReleaseFetchResultRequest", photolib__v1__release_fetch_result_request__unpack, photolib__v1__release_fetch_result_request__free_unpacked) { m in
            ReleaseFetchResultRequest(fetchResultID: ProtoCodec.string(m.pointee.fetch_result_id))
        }
    }

    /// Encodes the request.
    public func encoded() -> [UInt8] {
        let arena = ProtoArena()
        var m = Photolib__V1__ReleaseFetchResultRequest()
        photolib__v1__release_fetch_result_request__init(&m)
        m.fetch_result_id = arena.string(fetchResultID)
        return ProtoCodec.pack(&m, photolib__v1__release_fetch_result_request__get_packed_size, photolib__v1__release_fetch_result_request__pack)
    }
}

/// `LibraryInfo`.
public struct LibraryInfo: WireMessage, Hashable {
    /// The library's identifier.
    public var libraryIdentifier: String
    /// The server's name and version.
    public var serverName: String
    /// Assets in the library (not trashed).
    public var assetCount: Int
    /// User albums.
    public var albumCount: Int
    /// The current persistent-change token (empty until history exists).
    public var currentChangeToken: String

    /// Creates the message.
    public init(libraryIdentifier: String, serverName: String, assetCount: Int, albumCount: Int, currentChangeToken: String = "") {
        self.libraryIdentifier = libraryIdentifier
        self.serverName = serverName
        self.assetCount = assetCount
        self.albumCount = albumCount
        self.currentChangeToken = currentChangeToken
    }

    /// Decodes and checks the message.
    public init(decoding bytes: [UInt8]) throws(PhotoLibError) {
        self = try ProtoCodec.decode(bytes, "LibraryInfo", photolib__v1__library_info__unpack, photolib__v1__library_info__free_unpacked) { m in
            LibraryInfo(
                libraryIdentifier: ProtoCodec.string(m.pointee.library_identifier), serverName: ProtoCodec.string(m.pointee.server_name),
                assetCount: ProtoCodec.int(m.pointee.asset_count), albumCount: ProtoCodec.int(m.pointee.album_count),
                currentChangeToken: ProtoCodec.string(m.pointee.current_change_token))
        }
    }

    /// Encodes the message.
    public func encoded() -> [UInt8] {
        let arena = ProtoArena()
        var m = Photolib__V1__LibraryInfo()
        photolib__v1__library_info__init(&m)
        m.library_identifier = arena.string(libraryIdentifier)
        m.server_name = arena.string(serverName)
        m.asset_count = UInt64(max(0, assetCount))
        m.album_count = UInt64(max(0, albumCount))
        m.current_change_token = arena.string(currentChangeToken)
        return ProtoCodec.pack(&m, photolib__v1__library_info__get_packed_size, photolib__v1__library_info__pack)
    }
}

/// `FetchCollectionListsRequest`: folders.
public struct FetchCollectionListsRequest: WireMessage, Hashable {
    /// Only these folders (empty: no restriction).
    public var localIdentifiers: [String]
    /// Only children of this folder.
    public var parentFolderIdentifier: String?
    /// Only folders directly containing this album or folder.
    public var containingCollectionIdentifier: String?
    /// Objects from index 0 to send with the snapshot.
    public var prefetchCount: Int

    /// Creates a request.
    public init(localIdentifiers: [String] = [], parentFolderIdentifier: String? = nil, containingCollectionIdentifier: String? = nil, prefetchCount: Int = 0) {
        self.localIdentifiers = localIdentifiers
        self.parentFolderIdentifier = parentFolderIdentifier
        self.containingCollectionIdentifier = containingCollectionIdentifier
        self.prefetchCount = prefetchCount
    }

    /// Decodes and checks the request.
    public init(decoding bytes: [UInt8]) throws(PhotoLibError) {
        self = try ProtoCodec.decode(bytes, "FetchCollectionListsRequest", photolib__v1__fetch_collection_lists_request__unpack, photolib__v1__fetch_collection_lists_request__free_unpacked) { m in
            let p = m.pointee
            let parent = ProtoCodec.string(p.parent_folder_identifier)
            let containing = ProtoCodec.string(p.containing_collection_identifier)
            return FetchCollectionListsRequest(
                localIdentifiers: ProtoCodec.strings(p.n_local_identifiers, p.local_identifiers),
                parentFolderIdentifier: parent.isEmpty ? nil : parent,
                containingCollectionIdentifier: containing.isEmpty ? nil : containing, prefetchCount: Int(p.prefetch_count))
        }
    }

    /// Encodes the request.
    public func encoded() -> [UInt8] {
        let arena = ProtoArena()
        var m = Photolib__V1__FetchCollectionListsRequest()
        photolib__v1__fetch_collection_lists_request__init(&m)
        (m.n_local_identifiers, m.local_identifiers) = arena.strings(localIdentifiers)
        m.parent_folder_identifier = arena.string(parentFolderIdentifier ?? "")
        m.containing_collection_identifier = arena.string(containingCollectionIdentifier ?? "")
        m.prefetch_count = UInt32(clamping: prefetchCount)
        return ProtoCodec.pack(&m, photolib__v1__fetch_collection_lists_request__get_packed_size, photolib__v1__fetch_collection_lists_request__pack)
    }
}
