import Foundation
import PhotoLibCore
import PhotoLibStore
import PhotoLibWire

extension PhotoLibraryService {
    func fetchAssets(_ call: ServerCall) async throws {
        let request = try await call.singleRequest(FetchAssetsRequest.self)
        guard request.mediaTypes.count <= 1 else {
            throw PhotoLibError(.unimplemented, "fetching several media types at once is not built yet; ask for one media type or all")
        }
        guard request.options.fetchLimit >= 0 else {
            throw PhotoLibError(.invalidArgument, "fetchLimit must not be negative")
        }
        for identifier in request.localIdentifiers { try LocalIdentifier.validate(identifier) }
        // An unknown collection is refused by the query itself (NOT_FOUND).
        var query = try AssetQuery.from(options: request.options, collection: request.collectionIdentifier, mediaType: request.mediaTypes.first)
        if !request.localIdentifiers.isEmpty { query.identifiers = request.localIdentifiers }
        let prefetchCount = min(max(0, request.prefetchCount), Self.maxPageLength)
        let reader = try library.beginFetch(query, prefetch: prefetchCount)
        let listing = PendingAssetListing(reader: reader, query: query)
        let (id, expiresAt) = call.session.fetchResults.add(.assets(listing))
        let prefetch = try library.assets(withIdentifiers: reader.firstIdentifiers)
        let message = Self.fitting(prefetch, within: call.session.maxResponseSize) { objects in
            FetchResultSnapshot(fetchResultID: id, objectType: .asset, count: listing.count, expiresAt: expiresAt, prefetched: .assets(objects))
        }
        try await call.send(message)
    }

    func fetchAssetCollections(_ call: ServerCall) async throws {
        let request = try await call.singleRequest(FetchAssetCollectionsRequest.self)
        var collections: [AssetCollection]
        if let asset = request.containingAssetIdentifier {
            try LocalIdentifier.validate(asset)
            guard try library.asset(withIdentifier: asset) != nil else {
                throw PhotoLibError(.notFound, "no asset has the identifier \(asset)")
            }
            collections = try library.fetchAssetCollectionsContaining(asset: asset)
        } else {
            collections = try library.assetCollections()
        }
        if let type = request.type { collections = collections.filter { $0.type == type } }
        if let subtype = request.subtype { collections = collections.filter { $0.subtype == subtype } }
        if !request.localIdentifiers.isEmpty {
            let wanted = Set(request.localIdentifiers)
            collections = collections.filter { wanted.contains($0.localIdentifier) }
        }
        if let parent = request.parentFolderIdentifier {
            collections = collections.filter { $0.parentFolderIdentifier == parent }
        }
        let (id, expiresAt) = call.session.fetchResults.add(.collections(collections))
        let prefetch = Array(collections.prefix(min(max(0, request.prefetchCount), Self.maxPageLength)))
        let message = Self.fitting(prefetch, within: call.session.maxResponseSize) { objects in
            FetchResultSnapshot(fetchResultID: id, objectType: .assetCollection, count: collections.count, expiresAt: expiresAt, prefetched: .assetCollections(objects))
        }
        try await call.send(message)
    }

    func fetchCollectionLists(_ call: ServerCall) async throws {
        let request = try await call.singleRequest(FetchCollectionListsRequest.self)
        var lists = try library.collectionLists()
        if !request.localIdentifiers.isEmpty {
            let wanted = Set(request.localIdentifiers)
            lists = lists.filter { wanted.contains($0.localIdentifier) }
        }
        if let parent = request.parentFolderIdentifier {
            lists = lists.filter { $0.parentFolderIdentifier == parent }
        }
        if let child = request.containingCollectionIdentifier {
            try LocalIdentifier.validate(child)
            let parent: String?
            if let album = try library.assetCollection(withIdentifier: child) {
                parent = album.parentFolderIdentifier
            } else if let folder = try library.collectionList(withIdentifier: child) {
                parent = folder.parentFolderIdentifier
            } else {
                throw PhotoLibError(.notFound, "no album or folder has the identifier \(child)")
            }
            lists = lists.filter { $0.localIdentifier == parent }
        }
        let (id, expiresAt) = call.session.fetchResults.add(.collectionLists(lists))
        let prefetch = Array(lists.prefix(min(max(0, request.prefetchCount), Self.maxPageLength)))
        try await call.send(Self.fitting(prefetch, within: call.session.maxResponseSize) { objects in
            FetchResultSnapshot(fetchResultID: id, objectType: .collectionList, count: lists.count, expiresAt: expiresAt, prefetched: .collectionLists(objects))
        })
    }

    func fetchResultObjects(_ call: ServerCall) async throws {
        let request = try await call.singleRequest(FetchResultObjectsRequest.self)
        let contents = try call.session.fetchResults.use(request.fetchResultID)
        let count = contents.count
        guard request.offset >= 0, request.offset <= count else {
            throw PhotoLibError(.outOfRange, "offset \(request.offset) is past the end of a fetch result of \(count) objects")
        }
        let length = min(max(0, request.length), Self.maxPageLength, count - request.offset)
        let range = request.offset..<(request.offset + length)
        switch contents {
        case .assets(let listing):
            let slice = try listing.identifiers(in: range)
            let objects = request.identifiersOnly ? [] : try library.assets(withIdentifiers: slice)
            let byIdentifier = Dictionary(objects.map { ($0.localIdentifier, $0) }, uniquingKeysWith: { first, _ in first })
            try await call.send(Self.fitting(slice, within: call.session.maxResponseSize) { part in
                FetchResultObjectsResponse(offset: request.offset, localIdentifiers: part, objects: .assets(request.identifiersOnly ? [] : part.compactMap { byIdentifier[$0] }))
            })
        case .collections(let collections):
            let slice = Array(collections[range])
            try await call.send(Self.fitting(slice, within: call.session.maxResponseSize) { part in
                FetchResultObjectsResponse(offset: request.offset, localIdentifiers: part.map(\.localIdentifier), objects: .assetCollections(request.identifiersOnly ? [] : part))
            })
        case .collectionLists(let lists):
            let slice = Array(lists[range])
            try await call.send(Self.fitting(slice, within: call.session.maxResponseSize) { part in
                FetchResultObjectsResponse(offset: request.offset, localIdentifiers: part.map(\.localIdentifier), objects: .collectionLists(request.identifiersOnly ? [] : part))
            })
        }
    }

    /// The message for the longest prefix of `items` whose encoding fits in `limit` bytes:
    /// a page may come back shorter than asked, never too big for the client's frames.
    static func fitting<Item, Message: WireMessage>(_ items: [Item], within limit: Int, _ make: ([Item]) -> Message) -> Message {
        var count = items.count
        var message = make(items)
        while count > 0 && message.encoded().count > limit - 64 {
            count /= 2
            message = make(Array(items.prefix(count)))
        }
        return message
    }

    func fetchResultIndex(_ call: ServerCall) async throws {
        let request = try await call.singleRequest(FetchResultIndexRequest.self)
        let index: Int?
        switch try call.session.fetchResults.use(request.fetchResultID) {
        case .assets(let listing): index = try listing.index(of: request.localIdentifier)
        case .collections(let collections): index = collections.firstIndex { $0.localIdentifier == request.localIdentifier }
        case .collectionLists(let lists): index = lists.firstIndex { $0.localIdentifier == request.localIdentifier }
        }
        try await call.send(FetchResultIndexResponse(index: index))
    }

    func releaseFetchResult(_ call: ServerCall) async throws {
        let request = try await call.singleRequest(ReleaseFetchResultRequest.self)
        call.session.fetchResults.release(request.fetchResultID)
        try await call.send(EmptyMessage())
    }
}
