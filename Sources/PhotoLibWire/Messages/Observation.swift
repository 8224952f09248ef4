internal import CPhotoLibProto
import Foundation
import PhotoLibCore

/// A client → server message of the bidirectional `Subscribe` call.
public enum SubscriptionRequest: WireMessage, Hashable {
    /// Registers a snapshot fetched earlier on this connection.
    case registerFetchResult(String)
    /// Stops observing a fetch result.
    case unregisterFetchResult(String)
    /// Observes objects (assets, albums, folders).
    case registerObjects([String])
    /// Stops observing objects.
    case unregisterObjects([String])
    /// Fetches and registers in one step.
    case registerFetch(FetchAssetsRequest)
    /// Resumes after a token (first request only).
    case resume(sinceToken: String)

    /// Decodes and checks the request.
    public init(decoding bytes: [UInt8]) throws(PhotoLibError) {
        self = try ProtoCodec.decode(bytes, "SubscriptionRequest", photolib__v1__subscription_request__unpack, photolib__v1__subscription_request__free_unpacked) { (m) throws(PhotoLibError) in
            let p = m.pointee
            switch p.request_case {
            case PHOTOLIB__V1__SUBSCRIPTION_REQUEST__REQUEST_REGISTER_FETCH_RESULT:
                if let r = p.register_fetch_result { return .registerFetchResult(ProtoCodec.string(r.pointee.fetch_result_id)) }
            case PHOTOLIB__V1__SUBSCRIPTION_REQUEST__REQUEST_UNREGISTER_FETCH_RESULT:
                if let r = p.unregister_fetch_result { return .unregisterFetchResult(ProtoCodec.string(r.pointee.fetch_result_id)) }
            case PHOTOLIB__V1__SUBSCRIPTION_REQUEST__REQUEST_REGISTER_OBJECTS:
                if let r = p.register_objects { return .registerObjects(ProtoCodec.strings(r.pointee.n_local_identifiers, r.pointee.local_identifiers)) }
            case PHOTOLIB__V1__SUBSCRIPTION_REQUEST__REQUEST_UNREGISTER_OBJECTS:
                if let r = p.unregister_objects { return .unregisterObjects(ProtoCodec.strings(r.pointee.n_local_identifiers, r.pointee.local_identifiers)) }
            case PHOTOLIB__V1__SUBSCRIPTION_REQUEST__REQUEST_REGISTER_FETCH:
                if let r = p.register_fetch {
                    let size = photolib__v1__fetch_assets_request__get_packed_size(r)
                    var buffer = [UInt8](repeating: 0, count: size)
                    _ = photolib__v1__fetch_assets_request__pack(r, &buffer)
                    return .registerFetch(try FetchAssetsRequest(decoding: buffer))
                }
            case PHOTOLIB__V1__SUBSCRIPTION_REQUEST__REQUEST_RESUME:
                if let r = p.resume { return .resume(sinceToken: ProtoCodec.string(r.pointee.since_token)) }
            default:
                break
            }
            throw PhotoLibError(.invalidArgument, "SubscriptionRequest carries no request (or one this server does not know)")
        }
    }

    /// Encodes the request.
    public func encoded() -> [UInt8] {
        let arena = ProtoArena()
        var m = Photolib__V1__SubscriptionRequest()
        photolib__v1__subscription_request__init(&m)
        switch self {
        case .registerFetchResult(let id):
            var r = Photolib__V1__RegisterFetchResult()
            photolib__v1__register_fetch_result__init(&r)
            r.fetch_result_id = arena.string(id)
            m.request_case = PHOTOLIB__V1__SUBSCRIPTION_REQUEST__REQUEST_REGISTER_FETCH_RESULT
            m.register_fetch_result = arena.object(r)
        case .unregisterFetchResult(let id):
            var r = Photolib__V1__UnregisterFetchResult()
            photolib__v1__unregister_fetch_result__init(&r)
            r.fetch_result_id = arena.string(id)
            m.request_case = PHOTOLIB__V1__SUBSCRIPTION_REQUEST__REQUEST_UNREGISTER_FETCH_RESULT
            m.unregister_fetch_result = arena.object(r)
        case .registerObjects(let ids):
            var r = Photolib__V1__RegisterObjects()
            photolib__v1__register_objects__init(&r)
            (r.n_local_identifiers, r.local_identifiers) = arena.strings(ids)
            m.request_case = PHOTOLIB__V1__SUBSCRIPTION_REQUEST__REQUEST_REGISTER_OBJECTS
            m.register_objects = arena.object(r)
        case .unregisterObjects(let ids):
            var r = Photolib__V1__UnregisterObjects()
            photolib__v1__unregister_objects__init(&r)
            (r.n_local_identifiers, r.local_identifiers) = arena.strings(ids)
            m.request_case = PHOTOLIB__V1__SUBSCRIPTION_REQUEST__REQUEST_UNREGISTER_OBJECTS
            m.unregister_objects = arena.object(r)
        case .registerFetch(let request):
            let bytes = request.encoded()
            let unpacked = bytes.withUnsafeBufferPointer { photolib__v1__fetch_assets_request__unpack(nil, bytes.count, $0.baseAddress) }
            defer { photolib__v1__fetch_assets_request__free_unpacked(unpacked, nil) }
            m.request_case = PHOTOLIB__V1__SUBSCRIPTION_REQUEST__REQUEST_REGISTER_FETCH
            m.register_fetch = unpacked
            return ProtoCodec.pack(&m, photolib__v1__subscription_request__get_packed_size, photolib__v1__subscription_request__pack)
        case .resume(let token):
            var r = Photolib__V1__ResumeFrom()
            photolib__v1__resume_from__init(&r)
            r.since_token = arena.string(token)
            m.request_case = PHOTOLIB__V1__SUBSCRIPTION_REQUEST__REQUEST_RESUME
            m.resume = arena.object(r)
        }
        return ProtoCodec.pack(&m, photolib__v1__subscription_request__get_packed_size, photolib__v1__subscription_request__pack)
    }
}

/// A move in fetch-result change details.
public struct IndexMoveMessage: Sendable, Hashable {
    /// Index in the before snapshot.
    public var from: Int
    /// Index in the after snapshot.
    public var to: Int
    /// Creates a move.
    public init(from: Int, to: Int) {
        self.from = from
        self.to = to
    }
}

/// `FetchResultChangeDetails` as it travels.
public struct FetchResultChangeMessage: Sendable, Hashable {
    /// The registered fetch result.
    public var fetchResultID: String
    /// The snapshot after the change (replaces `fetchResultID` in the subscription).
    public var fetchResultAfterID: String
    /// False: refetch; the index lists are empty.
    public var hasIncrementalChanges: Bool
    /// Indexes in the before snapshot.
    public var removedIndexes: [Int]
    /// Indexes in the after snapshot.
    public var insertedIndexes: [Int]
    /// Indexes in the after snapshot.
    public var changedIndexes: [Int]
    /// Moves (before index → after index).
    public var moves: [IndexMoveMessage]
    /// Count before.
    public var countBefore: Int
    /// Count after.
    public var countAfter: Int
    /// Objects at the inserted then the changed indexes.
    public var insertedAndChanged: FetchObjects

    /// Creates the message.
    public init(fetchResultID: String, fetchResultAfterID: String, hasIncrementalChanges: Bool, removedIndexes: [Int], insertedIndexes: [Int], changedIndexes: [Int], moves: [IndexMoveMessage], countBefore: Int, countAfter: Int, insertedAndChanged: FetchObjects) {
        self.fetchResultID = fetchResultID
        self.fetchResultAfterID = fetchResultAfterID
        self.hasIncrementalChanges = hasIncrementalChanges
        self.removedIndexes = removedIndexes
        self.insertedIndexes = insertedIndexes
        self.changedIndexes = changedIndexes
        self.moves = moves
        self.countBefore = countBefore
        self.countAfter = countAfter
        self.insertedAndChanged = insertedAndChanged
    }
}

/// `ObjectChangeDetails` as it travels.
public struct ObjectChangeMessage: Sendable, Hashable {
    /// The object.
    public var localIdentifier: String
    /// Its kind.
    public var objectType: FetchObjectType
    /// The object after the change (empty when deleted).
    public var after: FetchObjects
    /// Whether an asset's image changed.
    public var assetContentChanged: Bool
    /// Whether it was deleted.
    public var objectWasDeleted: Bool

    /// Creates the message.
    public init(localIdentifier: String, objectType: FetchObjectType, after: FetchObjects, assetContentChanged: Bool, objectWasDeleted: Bool) {
        self.localIdentifier = localIdentifier
        self.objectType = objectType
        self.after = after
        self.assetContentChanged = assetContentChanged
        self.objectWasDeleted = objectWasDeleted
    }
}

/// `ChangeNotification`: what the transactions after `sinceToken` up to `changeToken` changed.
public struct ChangeNotification: Sendable, Hashable {
    /// The last transaction covered.
    public var changeToken: String
    /// The token before the first transaction covered.
    public var sinceToken: String
    /// Details per affected registered fetch result.
    public var fetchResultChanges: [FetchResultChangeMessage]
    /// Details per affected registered object.
    public var objectChanges: [ObjectChangeMessage]

    /// Creates the message.
    public init(changeToken: String, sinceToken: String, fetchResultChanges: [FetchResultChangeMessage], objectChanges: [ObjectChangeMessage]) {
        self.changeToken = changeToken
        self.sinceToken = sinceToken
        self.fetchResultChanges = fetchResultChanges
        self.objectChanges = objectChanges
    }
}

/// A server → client message of `Subscribe`.
public enum SubscriptionEvent: WireMessage, Hashable {
    /// A request was applied; later notifications are relative to this token.
    case acknowledged(token: String)
    /// A change.
    case change(ChangeNotification)
    /// The answer to `registerFetch`.
    case registeredFetch(FetchResultSnapshot, token: String)

    /// Decodes and checks the event.
    public init(decoding bytes: [UInt8]) throws(PhotoLibError) {
        self = try ProtoCodec.decode(bytes, "SubscriptionEvent", photolib__v1__subscription_event__unpack, photolib__v1__subscription_event__free_unpacked) { (m) throws(PhotoLibError) in
            let p = m.pointee
            switch p.event_case {
            case PHOTOLIB__V1__SUBSCRIPTION_EVENT__EVENT_REGISTERED_AT_TOKEN:
                return .acknowledged(token: ProtoCodec.string(p.registered_at_token))
            case PHOTOLIB__V1__SUBSCRIPTION_EVENT__EVENT_CHANGE:
                guard let c = p.change?.pointee else { break }
                return .change(try ChangeNotification(wire: c))
            case PHOTOLIB__V1__SUBSCRIPTION_EVENT__EVENT_REGISTERED_FETCH_RESULT:
                guard let r = p.registered_fetch_result?.pointee, let snapshot = r.snapshot else { break }
                let size = photolib__v1__fetch_result_snapshot__get_packed_size(snapshot)
                var buffer = [UInt8](repeating: 0, count: size)
                _ = photolib__v1__fetch_result_snapshot__pack(snapshot, &buffer)
                return .registeredFetch(try FetchResultSnapshot(decoding: buffer), token: ProtoCodec.string(r.registered_token))
            default:
                break
            }
            throw PhotoLibError(.invalidArgument, "SubscriptionEvent carries no event")
        }
    }

    /// Encodes the event.
    public func encoded() -> [UInt8] {
        let arena = ProtoArena()
        var m = Photolib__V1__SubscriptionEvent()
        photolib__v1__subscription_event__init(&m)
        switch self {
        case .acknowledged(let token):
            m.event_case = PHOTOLIB__V1__SUBSCRIPTION_EVENT__EVENT_REGISTERED_AT_TOKEN
            m.registered_at_token = arena.string(token)
            return ProtoCodec.pack(&m, photolib__v1__subscription_event__get_packed_size, photolib__v1__subscription_event__pack)
        case .change(let notification):
            m.event_case = PHOTOLIB__V1__SUBSCRIPTION_EVENT__EVENT_CHANGE
            m.change = arena.object(notification.wire(arena))
            return ProtoCodec.pack(&m, photolib__v1__subscription_event__get_packed_size, photolib__v1__subscription_event__pack)
        case .registeredFetch(let snapshot, let token):
            let bytes = snapshot.encoded()
            let unpacked = bytes.withUnsafeBufferPointer { photolib__v1__fetch_result_snapshot__unpack(nil, bytes.count, $0.baseAddress) }
            defer { photolib__v1__fetch_result_snapshot__free_unpacked(unpacked, nil) }
            var r = Photolib__V1__RegisteredFetch()
            photolib__v1__registered_fetch__init(&r)
            r.snapshot = unpacked
            r.registered_token = arena.string(token)
            m.event_case = PHOTOLIB__V1__SUBSCRIPTION_EVENT__EVENT_REGISTERED_FETCH_RESULT
            m.registered_fetch_result = arena.object(r)
            return ProtoCodec.pack(&m, photolib__v1__subscription_event__get_packed_size, photolib__v1__subscription_event__pack)
        }
    }
}

extension ChangeNotification {
    init(wire c: Photolib__V1__ChangeNotification) throws(PhotoLibError) {
        let fetches = try ProtoCodec.messages(c.n_fetch_result_changes, c.fetch_result_changes) { (f) throws(PhotoLibError) in
            let d = f.pointee
            let moves = try ProtoCodec.messages(d.n_moves, d.moves) { mv in IndexMoveMessage(from: ProtoCodec.int(mv.pointee.from_index), to: ProtoCodec.int(mv.pointee.to_index)) }
            let objects = try FetchObjects(type: nil, d.n_inserted_and_changed_assets, d.inserted_and_changed_assets, d.n_inserted_and_changed_collections, d.inserted_and_changed_collections, d.n_inserted_and_changed_collection_lists, d.inserted_and_changed_collection_lists)
            return FetchResultChangeMessage(
                fetchResultID: ProtoCodec.string(d.fetch_result_id), fetchResultAfterID: ProtoCodec.string(d.fetch_result_after_id),
                hasIncrementalChanges: d.has_incremental_changes != 0,
                removedIndexes: ProtoCodec.array(d.n_removed_indexes, d.removed_indexes).map(ProtoCodec.int),
                insertedIndexes: ProtoCodec.array(d.n_inserted_indexes, d.inserted_indexes).map(ProtoCodec.int),
                changedIndexes: ProtoCodec.array(d.n_changed_indexes, d.changed_indexes).map(ProtoCodec.int),
                moves: moves, countBefore: ProtoCodec.int(d.count_before), countAfter: ProtoCodec.int(d.count_after), insertedAndChanged: objects)
        }
        let objects = try ProtoCodec.messages(c.n_object_changes, c.object_changes) { (o) throws(PhotoLibError) in
            let d = o.pointee
            guard let type = FetchObjectType(rawValue: Int(d.object_type.rawValue)) else {
                throw PhotoLibError(.invalidArgument, "ObjectChangeDetails has an unknown object type \(d.object_type.rawValue)")
            }
            let after: FetchObjects
            if let asset = d.asset_after { after = .assets([Asset(wire: asset.pointee)]) }
            else if let collection = d.collection_after { after = .assetCollections([try AssetCollection(wire: collection.pointee)]) }
            else if let list = d.collection_list_after { after = .collectionLists([CollectionList(wire: list.pointee)]) }
            else { after = .assets([]) }
            return ObjectChangeMessage(
                localIdentifier: ProtoCodec.string(d.local_identifier), objectType: type, after: after,
                assetContentChanged: d.asset_content_changed != 0, objectWasDeleted: d.object_was_deleted != 0)
        }
        self.init(changeToken: ProtoCodec.string(c.change_token), sinceToken: ProtoCodec.string(c.since_token), fetchResultChanges: fetches, objectChanges: objects)
    }

    func wire(_ arena: ProtoArena) -> Photolib__V1__ChangeNotification {
        var c = Photolib__V1__ChangeNotification()
        photolib__v1__change_notification__init(&c)
        c.change_token = arena.string(changeToken)
        c.since_token = arena.string(sinceToken)
        (c.n_fetch_result_changes, c.fetch_result_changes) = arena.objects(fetchResultChanges.map { f in
            var d = Photolib__V1__FetchResultChangeDetails()
            photolib__v1__fetch_result_change_details__init(&d)
            d.fetch_result_id = arena.string(f.fetchResultID)
            d.fetch_result_after_id = arena.string(f.fetchResultAfterID)
            d.has_incremental_changes = f.hasIncrementalChanges ? 1 : 0
            (d.n_removed_indexes, d.removed_indexes) = arena.array(f.removedIndexes.map { UInt64(max(0, $0)) })
            (d.n_inserted_indexes, d.inserted_indexes) = arena.array(f.insertedIndexes.map { UInt64(max(0, $0)) })
            (d.n_changed_indexes, d.changed_indexes) = arena.array(f.changedIndexes.map { UInt64(max(0, $0)) })
            (d.n_moves, d.moves) = arena.objects(f.moves.map { move in
                var mv = Photolib__V1__IndexMove()
                photolib__v1__index_move__init(&mv)
                mv.from_index = UInt64(max(0, move.from))
                mv.to_index = UInt64(max(0, move.to))
                return mv
            })
            d.count_before = UInt64(max(0, f.countBefore))
            d.count_after = UInt64(max(0, f.countAfter))
            switch f.insertedAndChanged {
            case .assets(let a): (d.n_inserted_and_changed_assets, d.inserted_and_changed_assets) = arena.objects(a.map { $0.wire(arena) })
            case .assetCollections(let c): (d.n_inserted_and_changed_collections, d.inserted_and_changed_collections) = arena.objects(c.map { $0.wire(arena) })
            case .collectionLists(let l): (d.n_inserted_and_changed_collection_lists, d.inserted_and_changed_collection_lists) = arena.objects(l.map { $0.wire(arena) })
            }
            return d
        })
        (c.n_object_changes, c.object_changes) = arena.objects(objectChanges.map { o in
            var d = Photolib__V1__ObjectChangeDetails()
            photolib__v1__object_change_details__init(&d)
            d.local_identifier = arena.string(o.localIdentifier)
            d.object_type = .init(rawValue: numericCast(o.objectType.rawValue))
            switch o.after {
            case .assets(let a): if let first = a.first { d.asset_after = arena.object(first.wire(arena)) }
            case .assetCollections(let c): if let first = c.first { d.collection_after = arena.object(first.wire(arena)) }
            case .collectionLists(let l): if let first = l.first { d.collection_list_after = arena.object(first.wire(arena)) }
            }
            d.asset_content_changed = o.assetContentChanged ? 1 : 0
            d.object_was_deleted = o.objectWasDeleted ? 1 : 0
            return d
        })
        return c
    }
}

/// `PersistentChangesRequest`: `fetchPersistentChanges(since:)`.
public struct PersistentChangesRequest: WireMessage, Hashable {
    /// Empty: from the oldest retained transaction.
    public var sinceToken: String
    /// At most this many transactions (0: the server's page size).
    public var limit: Int

    /// Creates the request.
    public init(sinceToken: String, limit: Int = 0) {
        self.sinceToken = sinceToken
        self.limit = limit
    }

    /// Decodes and checks the request.
    public init(decoding bytes: [UInt8]) throws(PhotoLibError) {
        self = try ProtoCodec.decode(bytes, "PersistentChangesRequest", photolib__v1__persistent_changes_request__unpack, photolib__v1__persistent_changes_request__free_unpacked) { m in
            PersistentChangesRequest(sinceToken: ProtoCodec.string(m.pointee.since_token), limit: Int(m.pointee.limit))
        }
    }

    /// Encodes the request.
    public func encoded() -> [UInt8] {
        let arena = ProtoArena()
        var m = Photolib__V1__PersistentChangesRequest()
        photolib__v1__persistent_changes_request__init(&m)
        m.since_token = arena.string(sinceToken)
        m.limit = UInt32(clamping: limit)
        return ProtoCodec.pack(&m, photolib__v1__persistent_changes_request__get_packed_size, photolib__v1__persistent_changes_request__pack)
    }
}

/// One transaction of persistent history (`PersistentChange`).
public struct PersistentChangeMessage: Sendable, Hashable {
    /// Identifiers one transaction touched for one object type.
    public struct ObjectChanges: Sendable, Hashable {
        /// The type.
        public var objectType: FetchObjectType
        /// Created.
        public var inserted: [String]
        /// Changed.
        public var updated: [String]
        /// Deleted.
        public var deleted: [String]
        /// Creates the value.
        public init(objectType: FetchObjectType, inserted: [String], updated: [String], deleted: [String]) {
            self.objectType = objectType
            self.inserted = inserted
            self.updated = updated
            self.deleted = deleted
        }
    }

    /// The transaction's token.
    public var changeToken: String
    /// When it committed.
    public var committedAt: Date
    /// Who made it.
    public var author: String
    /// Per object type.
    public var changes: [ObjectChanges]

    /// Creates the value.
    public init(changeToken: String, committedAt: Date, author: String, changes: [ObjectChanges]) {
        self.changeToken = changeToken
        self.committedAt = committedAt
        self.author = author
        self.changes = changes
    }
}

/// `PersistentChangesResponse`.
public struct PersistentChangesResponse: WireMessage, Hashable {
    /// Transactions, oldest first.
    public var changes: [PersistentChangeMessage]
    /// More follow: ask again since the last token.
    public var hasMore: Bool
    /// The library's current token.
    public var currentToken: String

    /// Creates the message.
    public init(changes: [PersistentChangeMessage], hasMore: Bool, currentToken: String) {
        self.changes = changes
        self.hasMore = hasMore
        self.currentToken = currentToken
    }

    /// Decodes and checks the message.
    public init(decoding bytes: [UInt8]) throws(PhotoLibError) {
        self = try ProtoCodec.decode(bytes, "PersistentChangesResponse", photolib__v1__persistent_changes_response__unpack, photolib__v1__persistent_changes_response__free_unpacked) { (m) throws(PhotoLibError) in
            let changes = try ProtoCodec.messages(m.pointee.n_changes, m.pointee.changes) { (c) throws(PhotoLibError) in
                let groups = try ProtoCodec.messages(c.pointee.n_changes, c.pointee.changes) { (g) throws(PhotoLibError) in
                    guard let type = FetchObjectType(rawValue: Int(g.pointee.object_type.rawValue)) else {
                        throw PhotoLibError(.invalidArgument, "PersistentObjectChanges has an unknown object type")
                    }
                    return PersistentChangeMessage.ObjectChanges(
                        objectType: type, inserted: ProtoCodec.strings(g.pointee.n_inserted_identifiers, g.pointee.inserted_identifiers),
                        updated: ProtoCodec.strings(g.pointee.n_updated_identifiers, g.pointee.updated_identifiers),
                        deleted: ProtoCodec.strings(g.pointee.n_deleted_identifiers, g.pointee.deleted_identifiers))
                }
                return PersistentChangeMessage(
                    changeToken: ProtoCodec.string(c.pointee.change_token), committedAt: ProtoCodec.date(c.pointee.committed_at_ms),
                    author: ProtoCodec.string(c.pointee.author), changes: groups)
            }
            return PersistentChangesResponse(changes: changes, hasMore: m.pointee.has_more != 0, currentToken: ProtoCodec.string(m.pointee.current_token))
        }
    }

    /// Encodes the message.
    public func encoded() -> [UInt8] {
        let arena = ProtoArena()
        var m = Photolib__V1__PersistentChangesResponse()
        photolib__v1__persistent_changes_response__init(&m)
        (m.n_changes, m.changes) = arena.objects(changes.map { change in
            var c = Photolib__V1__PersistentChange()
            photolib__v1__persistent_change__init(&c)
            c.change_token = arena.string(change.changeToken)
            c.committed_at_ms = ProtoCodec.milliseconds(change.committedAt)
            c.author = arena.string(change.author)
            (c.n_changes, c.changes) = arena.objects(change.changes.map { group in
                var g = Photolib__V1__PersistentObjectChanges()
                photolib__v1__persistent_object_changes__init(&g)
                g.object_type = .init(rawValue: numericCast(group.objectType.rawValue))
                (g.n_inserted_identifiers, g.inserted_identifiers) = arena.strings(group.inserted)
                (g.n_updated_identifiers, g.updated_identifiers) = arena.strings(group.updated)
                (g.n_deleted_identifiers, g.deleted_identifiers) = arena.strings(group.deleted)
                return g
            })
            return c
        })
        m.has_more = hasMore ? 1 : 0
        m.current_token = arena.string(currentToken)
        return ProtoCodec.pack(&m, photolib__v1__persistent_changes_response__get_packed_size, photolib__v1__persistent_changes_response__pack)
    }
}
