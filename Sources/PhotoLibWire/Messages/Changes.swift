internal import CPhotoLibProto
import Foundation
import PhotoLibCore

/// One message of the client-streaming `UploadAsset` call: a header, then data chunks.
public enum UploadChunk: WireMessage, Hashable {
    /// The first message: what is coming.
    case header(originalFilename: String, size: Int, uniformTypeIdentifier: String)
    /// Bytes, in order.
    case data([UInt8])

    /// Decodes and checks a chunk.
    public init(decoding bytes: [UInt8]) throws(PhotoLibError) {
        self = try ProtoCodec.decode(bytes, "UploadChunk", photolib__v1__upload_chunk__unpack, photolib__v1__upload_chunk__free_unpacked) { (m) throws(PhotoLibError) in
            switch m.pointee.part_case {
            case PHOTOLIB__V1__UPLOAD_CHUNK__PART_HEADER:
                guard let h = m.pointee.header?.pointee else { break }
                return .header(originalFilename: ProtoCodec.string(h.original_filename), size: ProtoCodec.int(h.size), uniformTypeIdentifier: ProtoCodec.string(h.uniform_type_identifier))
            case PHOTOLIB__V1__UPLOAD_CHUNK__PART_DATA:
                return .data(ProtoCodec.bytes(m.pointee.data))
            default:
                break
            }
            throw PhotoLibError(.invalidArgument, "UploadChunk carries neither a header nor data")
        }
    }

    /// Encodes the chunk.
    public func encoded() -> [UInt8] {
        let arena = ProtoArena()
        var m = Photolib__V1__UploadChunk()
        photolib__v1__upload_chunk__init(&m)
        switch self {
        case .header(let name, let size, let type):
            var h = Photolib__V1__UploadHeader()
            photolib__v1__upload_header__init(&h)
            h.original_filename = arena.string(name)
            h.size = UInt64(max(0, size))
            h.uniform_type_identifier = arena.string(type)
            m.part_case = PHOTOLIB__V1__UPLOAD_CHUNK__PART_HEADER
            m.header = arena.object(h)
        case .data(let data):
            m.part_case = PHOTOLIB__V1__UPLOAD_CHUNK__PART_DATA
            m.data = arena.bytes(data)
        }
        return ProtoCodec.pack(&m, photolib__v1__upload_chunk__get_packed_size, photolib__v1__upload_chunk__pack)
    }
}

/// `UploadResult`: a staged upload, to be used by a `createAsset` request.
public struct UploadResult: WireMessage, Hashable {
    /// The id to pass in `ChangeRequest.CreateAsset.uploadID`.
    public var uploadID: String
    /// Lowercase hex SHA-256.
    public var sha256: String
    /// Bytes received.
    public var size: Int
    /// The asset that already holds these bytes, if any.
    public var existingAssetIdentifier: String?
    /// When the staged upload is dropped if unused.
    public var expiresAt: Date

    /// Creates the message.
    public init(uploadID: String, sha256: String, size: Int, existingAssetIdentifier: String?, expiresAt: Date) {
        self.uploadID = uploadID
        self.sha256 = sha256
        self.size = size
        self.existingAssetIdentifier = existingAssetIdentifier
        self.expiresAt = expiresAt
    }

    /// Decodes and checks the message.
    public init(decoding bytes: [UInt8]) throws(PhotoLibError) {
        self = try ProtoCodec.decode(bytes, "UploadResult", photolib__v1__upload_result__unpack, photolib__v1__upload_result__free_unpacked) { m in
            let existing = ProtoCodec.string(m.pointee.existing_asset_identifier)
            return UploadResult(
                uploadID: ProtoCodec.string(m.pointee.upload_id), sha256: ProtoCodec.string(m.pointee.sha256), size: ProtoCodec.int(m.pointee.size),
                existingAssetIdentifier: existing.isEmpty ? nil : existing, expiresAt: ProtoCodec.date(m.pointee.expires_at_ms))
        }
    }

    /// Encodes the message.
    public func encoded() -> [UInt8] {
        let arena = ProtoArena()
        var m = Photolib__V1__UploadResult()
        photolib__v1__upload_result__init(&m)
        m.upload_id = arena.string(uploadID)
        m.sha256 = arena.string(sha256)
        m.size = UInt64(max(0, size))
        m.existing_asset_identifier = arena.string(existingAssetIdentifier ?? "")
        m.expires_at_ms = ProtoCodec.milliseconds(expiresAt)
        return ProtoCodec.pack(&m, photolib__v1__upload_result__get_packed_size, photolib__v1__upload_result__pack)
    }
}

/// `PerformChangesRequest`: a batch applied as one transaction.
public struct PerformChangesRequest: WireMessage, Hashable {
    /// The requests, in order.
    public var requests: [ChangeRequest]

    /// Creates the message.
    public init(requests: [ChangeRequest]) { self.requests = requests }

    /// Decodes and checks the batch; editing requests (not built yet) are `unimplemented`
    /// naming their index.
    public init(decoding bytes: [UInt8]) throws(PhotoLibError) {
        self = try ProtoCodec.decode(bytes, "PerformChangesRequest", photolib__v1__perform_changes_request__unpack, photolib__v1__perform_changes_request__free_unpacked) { (m) throws(PhotoLibError) in
            let count = m.pointee.n_requests
            guard count <= ChangeLimits.maxRequests else {
                throw PhotoLibError(.resourceExhausted, "a batch holds at most \(ChangeLimits.maxRequests) requests; this one has \(count)")
            }
            var requests: [ChangeRequest] = []
            for index in 0..<count {
                guard let r = m.pointee.requests[index]?.pointee else { continue }
                do throws(PhotoLibError) {
                    requests.append(try ChangeRequest(wire: r))
                } catch {
                    var failure = error
                    failure.failedRequestIndex = index
                    failure.message = "request \(index): \(error.message)"
                    failure.reason = failure.reason == .unspecified ? .changeRequestFailed : failure.reason
                    throw failure
                }
            }
            return PerformChangesRequest(requests: requests)
        }
    }

    /// Encodes the batch.
    public func encoded() -> [UInt8] {
        let arena = ProtoArena()
        var m = Photolib__V1__PerformChangesRequest()
        photolib__v1__perform_changes_request__init(&m)
        (m.n_requests, m.requests) = arena.objects(requests.map { $0.wire(arena) })
        return ProtoCodec.pack(&m, photolib__v1__perform_changes_request__get_packed_size, photolib__v1__perform_changes_request__pack)
    }
}

/// `PerformChangesResponse`.
public struct PerformChangesResponse: WireMessage, Hashable {
    /// Placeholder label → the identifier of the object it created (or matched, for a deduped upload).
    public var placeholders: [String: String]
    /// The persistent-change token of the committed transaction.
    public var changeToken: String

    /// Creates the message.
    public init(placeholders: [String: String], changeToken: String) {
        self.placeholders = placeholders
        self.changeToken = changeToken
    }

    /// Decodes and checks the message.
    public init(decoding bytes: [UInt8]) throws(PhotoLibError) {
        self = try ProtoCodec.decode(bytes, "PerformChangesResponse", photolib__v1__perform_changes_response__unpack, photolib__v1__perform_changes_response__free_unpacked) { (m) throws(PhotoLibError) in
            let pairs = try ProtoCodec.messages(m.pointee.n_placeholders, m.pointee.placeholders) { p in
                (ProtoCodec.string(p.pointee.placeholder_id), ProtoCodec.string(p.pointee.local_identifier))
            }
            return PerformChangesResponse(placeholders: Dictionary(pairs, uniquingKeysWith: { _, last in last }), changeToken: ProtoCodec.string(m.pointee.change_token))
        }
    }

    /// Encodes the message (placeholders sorted by label, so the bytes are stable).
    public func encoded() -> [UInt8] {
        let arena = ProtoArena()
        var m = Photolib__V1__PerformChangesResponse()
        photolib__v1__perform_changes_response__init(&m)
        (m.n_placeholders, m.placeholders) = arena.objects(placeholders.sorted { $0.key < $1.key }.map { label, identifier in
            var p = Photolib__V1__PlaceholderResolution()
            photolib__v1__placeholder_resolution__init(&p)
            p.placeholder_id = arena.string(label)
            p.local_identifier = arena.string(identifier)
            return p
        })
        m.change_token = arena.string(changeToken)
        return ProtoCodec.pack(&m, photolib__v1__perform_changes_response__get_packed_size, photolib__v1__perform_changes_response__pack)
    }
}

extension ChangeRequest {
    init(wire r: Photolib__V1__ChangeRequest) throws(PhotoLibError) {
        func ids(_ n: Int, _ p: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) throws(PhotoLibError) -> [String] {
            guard n <= ChangeLimits.maxIdentifiersPerRequest else {
                throw PhotoLibError(.resourceExhausted, "at most \(ChangeLimits.maxIdentifiersPerRequest) identifiers per request; got \(n)")
            }
            return ProtoCodec.strings(n, p)
        }
        func optional(_ text: UnsafeMutablePointer<CChar>?) -> String? {
            let value = ProtoCodec.string(text)
            return value.isEmpty ? nil : value
        }
        func required(_ p: UnsafeMutablePointer<some Any>?, _ name: String) throws(PhotoLibError) {
            if p == nil { throw PhotoLibError(.invalidArgument, "\(name) is empty") }
        }
        switch r.request_case {
        case PHOTOLIB__V1__CHANGE_REQUEST__REQUEST_CREATE_ASSET:
            try required(r.create_asset, "createAsset")
            let c = r.create_asset.pointee
            self = .createAsset(CreateAsset(
                uploadID: ProtoCodec.string(c.upload_id), placeholder: optional(c.placeholder_id),
                creationDate: c.creation_date.map { ProtoCodec.date($0.pointee.unix_ms) },
                location: c.location.map { LocationChange(wire: $0.pointee) }, isFavorite: c.is_favorite != 0, isHidden: c.is_hidden != 0))
        case PHOTOLIB__V1__CHANGE_REQUEST__REQUEST_DELETE_ASSETS:
            try required(r.delete_assets, "deleteAssets")
            self = .deleteAssets(try ids(r.delete_assets.pointee.n_asset_identifiers, r.delete_assets.pointee.asset_identifiers))
        case PHOTOLIB__V1__CHANGE_REQUEST__REQUEST_RESTORE_ASSETS:
            try required(r.restore_assets, "restoreAssets")
            self = .restoreAssets(try ids(r.restore_assets.pointee.n_asset_identifiers, r.restore_assets.pointee.asset_identifiers))
        case PHOTOLIB__V1__CHANGE_REQUEST__REQUEST_PURGE_ASSETS:
            try required(r.purge_assets, "purgeAssets")
            self = .purgeAssets(try ids(r.purge_assets.pointee.n_asset_identifiers, r.purge_assets.pointee.asset_identifiers))
        case PHOTOLIB__V1__CHANGE_REQUEST__REQUEST_SET_ASSET_PROPERTIES:
            try required(r.set_asset_properties, "setAssetProperties")
            let s = r.set_asset_properties.pointee
            self = .setAssetProperties(SetAssetProperties(
                asset: ProtoCodec.string(s.asset_identifier), isFavorite: s.is_favorite.map { $0.pointee.value != 0 },
                isHidden: s.is_hidden.map { $0.pointee.value != 0 }, creationDate: s.creation_date.map { ProtoCodec.date($0.pointee.unix_ms) },
                location: s.location.map { LocationChange(wire: $0.pointee) }))
        case PHOTOLIB__V1__CHANGE_REQUEST__REQUEST_CREATE_ALBUM:
            try required(r.create_album, "createAlbum")
            let a = r.create_album.pointee
            self = .createAlbum(title: ProtoCodec.string(a.title), placeholder: optional(a.placeholder_id), parentFolder: optional(a.parent_folder_identifier))
        case PHOTOLIB__V1__CHANGE_REQUEST__REQUEST_CREATE_FOLDER:
            try required(r.create_folder, "createFolder")
            let f = r.create_folder.pointee
            self = .createFolder(title: ProtoCodec.string(f.title), placeholder: optional(f.placeholder_id), parentFolder: optional(f.parent_folder_identifier))
        case PHOTOLIB__V1__CHANGE_REQUEST__REQUEST_RENAME_COLLECTION:
            try required(r.rename_collection, "renameCollection")
            self = .renameCollection(ProtoCodec.string(r.rename_collection.pointee.collection_identifier), title: ProtoCodec.string(r.rename_collection.pointee.title))
        case PHOTOLIB__V1__CHANGE_REQUEST__REQUEST_DELETE_COLLECTIONS:
            try required(r.delete_collections, "deleteCollections")
            self = .deleteCollections(try ids(r.delete_collections.pointee.n_collection_identifiers, r.delete_collections.pointee.collection_identifiers))
        case PHOTOLIB__V1__CHANGE_REQUEST__REQUEST_ADD_ASSETS_TO_ALBUM:
            try required(r.add_assets_to_album, "addAssets")
            let a = r.add_assets_to_album.pointee
            self = .addAssets(album: ProtoCodec.string(a.album_identifier), assets: try ids(a.n_asset_identifiers, a.asset_identifiers))
        case PHOTOLIB__V1__CHANGE_REQUEST__REQUEST_INSERT_ASSETS_IN_ALBUM:
            try required(r.insert_assets_in_album, "insertAssets")
            let a = r.insert_assets_in_album.pointee
            self = .insertAssets(album: ProtoCodec.string(a.album_identifier), assets: try ids(a.n_asset_identifiers, a.asset_identifiers), at: Int(a.index))
        case PHOTOLIB__V1__CHANGE_REQUEST__REQUEST_REMOVE_ASSETS_FROM_ALBUM:
            try required(r.remove_assets_from_album, "removeAssets")
            let a = r.remove_assets_from_album.pointee
            self = .removeAssets(album: ProtoCodec.string(a.album_identifier), assets: try ids(a.n_asset_identifiers, a.asset_identifiers))
        case PHOTOLIB__V1__CHANGE_REQUEST__REQUEST_MOVE_ASSETS_IN_ALBUM:
            try required(r.move_assets_in_album, "moveAssets")
            let a = r.move_assets_in_album.pointee
            guard a.n_from_indexes <= ChangeLimits.maxIdentifiersPerRequest else {
                throw PhotoLibError(.resourceExhausted, "at most \(ChangeLimits.maxIdentifiersPerRequest) indexes per move")
            }
            self = .moveAssets(album: ProtoCodec.string(a.album_identifier), from: ProtoCodec.array(a.n_from_indexes, a.from_indexes).map { Int($0) }, to: Int(a.to_index))
        case PHOTOLIB__V1__CHANGE_REQUEST__REQUEST_SET_KEY_ASSET:
            try required(r.set_key_asset, "setKeyAsset")
            self = .setKeyAsset(album: ProtoCodec.string(r.set_key_asset.pointee.album_identifier), asset: optional(r.set_key_asset.pointee.asset_identifier))
        case PHOTOLIB__V1__CHANGE_REQUEST__REQUEST_MOVE_COLLECTIONS:
            try required(r.move_collections, "moveCollections")
            let c = r.move_collections.pointee
            self = .moveCollections(try ids(c.n_collection_identifiers, c.collection_identifiers), toFolder: optional(c.destination_folder_identifier))
        case PHOTOLIB__V1__CHANGE_REQUEST__REQUEST_COMMIT_CONTENT_EDIT, PHOTOLIB__V1__CHANGE_REQUEST__REQUEST_REVERT_ASSET_CONTENT:
            throw PhotoLibError(.unimplemented, "content editing (commitContentEdit, revertAssetContent) is not built in this server yet")
        default:
            throw PhotoLibError(.invalidArgument, "the change request carries no request (or one this server does not know)")
        }
    }

    func wire(_ arena: ProtoArena) -> Photolib__V1__ChangeRequest {
        var r = Photolib__V1__ChangeRequest()
        photolib__v1__change_request__init(&r)
        switch self {
        case .createAsset(let c):
            var m = Photolib__V1__CreateAssetRequest()
            photolib__v1__create_asset_request__init(&m)
            m.upload_id = arena.string(c.uploadID)
            m.placeholder_id = arena.string(c.placeholder ?? "")
            if let date = c.creationDate { m.creation_date = arena.object(Self.timestamp(date)) }
            if let location = c.location { m.location = arena.object(location.wire(arena)) }
            m.is_favorite = c.isFavorite ? 1 : 0
            m.is_hidden = c.isHidden ? 1 : 0
            r.request_case = PHOTOLIB__V1__CHANGE_REQUEST__REQUEST_CREATE_ASSET
            r.create_asset = arena.object(m)
        case .deleteAssets(let ids):
            var m = Photolib__V1__DeleteAssetsRequest()
            photolib__v1__delete_assets_request__init(&m)
            (m.n_asset_identifiers, m.asset_identifiers) = arena.strings(ids)
            r.request_case = PHOTOLIB__V1__CHANGE_REQUEST__REQUEST_DELETE_ASSETS
            r.delete_assets = arena.object(m)
        case .restoreAssets(let ids):
            var m = Photolib__V1__RestoreAssetsRequest()
            photolib__v1__restore_assets_request__init(&m)
            (m.n_asset_identifiers, m.asset_identifiers) = arena.strings(ids)
            r.request_case = PHOTOLIB__V1__CHANGE_REQUEST__REQUEST_RESTORE_ASSETS
            r.restore_assets = arena.object(m)
        case .purgeAssets(let ids):
            var m = Photolib__V1__PurgeAssetsRequest()
            photolib__v1__purge_assets_request__init(&m)
            (m.n_asset_identifiers, m.asset_identifiers) = arena.strings(ids)
            r.request_case = PHOTOLIB__V1__CHANGE_REQUEST__REQUEST_PURGE_ASSETS
            r.purge_assets = arena.object(m)
        case .setAssetProperties(let s):
            var m = Photolib__V1__SetAssetPropertiesRequest()
            photolib__v1__set_asset_properties_request__init(&m)
            m.asset_identifier = arena.string(s.asset)
            if let value = s.isFavorite { m.is_favorite = arena.object(Self.bool(value)) }
            if let value = s.isHidden { m.is_hidden = arena.object(Self.bool(value)) }
            if let date = s.creationDate { m.creation_date = arena.object(Self.timestamp(date)) }
            if let location = s.location { m.location = arena.object(location.wire(arena)) }
            r.request_case = PHOTOLIB__V1__CHANGE_REQUEST__REQUEST_SET_ASSET_PROPERTIES
            r.set_asset_properties = arena.object(m)
        case .createAlbum(let title, let placeholder, let parent):
            var m = Photolib__V1__CreateAlbumRequest()
            photolib__v1__create_album_request__init(&m)
            m.title = arena.string(title)
            m.placeholder_id = arena.string(placeholder ?? "")
            m.parent_folder_identifier = arena.string(parent ?? "")
            r.request_case = PHOTOLIB__V1__CHANGE_REQUEST__REQUEST_CREATE_ALBUM
            r.create_album = arena.object(m)
        case .createFolder(let title, let placeholder, let parent):
            var m = Photolib__V1__CreateFolderRequest()
            photolib__v1__create_folder_request__init(&m)
            m.title = arena.string(title)
            m.placeholder_id = arena.string(placeholder ?? "")
            m.parent_folder_identifier = arena.string(parent ?? "")
            r.request_case = PHOTOLIB__V1__CHANGE_REQUEST__REQUEST_CREATE_FOLDER
            r.create_folder = arena.object(m)
        case .renameCollection(let id, let title):
            var m = Photolib__V1__RenameCollectionRequest()
            photolib__v1__rename_collection_request__init(&m)
            m.collection_identifier = arena.string(id)
            m.title = arena.string(title)
            r.request_case = PHOTOLIB__V1__CHANGE_REQUEST__REQUEST_RENAME_COLLECTION
            r.rename_collection = arena.object(m)
        case .deleteCollections(let ids):
            var m = Photolib__V1__DeleteCollectionsRequest()
            photolib__v1__delete_collections_request__init(&m)
            (m.n_collection_identifiers, m.collection_identifiers) = arena.strings(ids)
            r.request_case = PHOTOLIB__V1__CHANGE_REQUEST__REQUEST_DELETE_COLLECTIONS
            r.delete_collections = arena.object(m)
        case .addAssets(let album, let assets):
            var m = Photolib__V1__AddAssetsToAlbumRequest()
            photolib__v1__add_assets_to_album_request__init(&m)
            m.album_identifier = arena.string(album)
            (m.n_asset_identifiers, m.asset_identifiers) = arena.strings(assets)
            r.request_case = PHOTOLIB__V1__CHANGE_REQUEST__REQUEST_ADD_ASSETS_TO_ALBUM
            r.add_assets_to_album = arena.object(m)
        case .insertAssets(let album, let assets, let index):
            var m = Photolib__V1__InsertAssetsInAlbumRequest()
            photolib__v1__insert_assets_in_album_request__init(&m)
            m.album_identifier = arena.string(album)
            (m.n_asset_identifiers, m.asset_identifiers) = arena.strings(assets)
            m.index = UInt32(clamping: index)
            r.request_case = PHOTOLIB__V1__CHANGE_REQUEST__REQUEST_INSERT_ASSETS_IN_ALBUM
            r.insert_assets_in_album = arena.object(m)
        case .removeAssets(let album, let assets):
            var m = Photolib__V1__RemoveAssetsFromAlbumRequest()
            photolib__v1__remove_assets_from_album_request__init(&m)
            m.album_identifier = arena.string(album)
            (m.n_asset_identifiers, m.asset_identifiers) = arena.strings(assets)
            r.request_case = PHOTOLIB__V1__CHANGE_REQUEST__REQUEST_REMOVE_ASSETS_FROM_ALBUM
            r.remove_assets_from_album = arena.object(m)
        case .moveAssets(let album, let from, let to):
            var m = Photolib__V1__MoveAssetsInAlbumRequest()
            photolib__v1__move_assets_in_album_request__init(&m)
            m.album_identifier = arena.string(album)
            (m.n_from_indexes, m.from_indexes) = arena.array(from.map { UInt32(clamping: $0) })
            m.to_index = UInt32(clamping: to)
            r.request_case = PHOTOLIB__V1__CHANGE_REQUEST__REQUEST_MOVE_ASSETS_IN_ALBUM
            r.move_assets_in_album = arena.object(m)
        case .setKeyAsset(let album, let asset):
            var m = Photolib__V1__SetKeyAssetRequest()
            photolib__v1__set_key_asset_request__init(&m)
            m.album_identifier = arena.string(album)
            m.asset_identifier = arena.string(asset ?? "")
            r.request_case = PHOTOLIB__V1__CHANGE_REQUEST__REQUEST_SET_KEY_ASSET
            r.set_key_asset = arena.object(m)
        case .moveCollections(let ids, let folder):
            var m = Photolib__V1__MoveCollectionsRequest()
            photolib__v1__move_collections_request__init(&m)
            (m.n_collection_identifiers, m.collection_identifiers) = arena.strings(ids)
            m.destination_folder_identifier = arena.string(folder ?? "")
            r.request_case = PHOTOLIB__V1__CHANGE_REQUEST__REQUEST_MOVE_COLLECTIONS
            r.move_collections = arena.object(m)
        }
        return r
    }

    private static func timestamp(_ date: Date) -> Photolib__V1__TimestampValue {
        var t = Photolib__V1__TimestampValue()
        photolib__v1__timestamp_value__init(&t)
        t.unix_ms = ProtoCodec.milliseconds(date)
        return t
    }

    private static func bool(_ value: Bool) -> Photolib__V1__BoolValue {
        var b = Photolib__V1__BoolValue()
        photolib__v1__bool_value__init(&b)
        b.value = value ? 1 : 0
        return b
    }
}

extension LocationChange {
    init(wire v: Photolib__V1__LocationValue) {
        if let location = v.location { self = .set(Location(wire: location.pointee)) } else { self = .clear }
    }

    func wire(_ arena: ProtoArena) -> Photolib__V1__LocationValue {
        var v = Photolib__V1__LocationValue()
        photolib__v1__location_value__init(&v)
        if case .set(let location) = self { v.location = arena.object(location.wire()) }
        return v
    }
}
