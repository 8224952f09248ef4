import Foundation
import PhotoLibCore
import PhotoLibStore
import PhotoLibWire

extension PhotoLibraryService {
    func fetchAssets(_ call: ServerCall) async throws {
        let request = try await call.singleRequest(FetchAssetsRequest.self)
        if let predicate = request.options.predicate, !predicate.isEmpty {
            throw PhotoLibError(.unimplemented, "fetch predicates are not built in this server yet; fetch without --where", reason: .invalidPredicate)
        }
        guard request.mediaTypes.count <= 1 else {
            throw PhotoLibError(.unimplemented, "fetching several media types at once is not built yet; ask for one media type or all")
        }
        guard request.options.fetchLimit >= 0 else {
            throw PhotoLibError(.invalidArgument, "fetchLimit must not be negative")
        }
        for identifier in request.localIdentifiers { try LocalIdentifier.validate(identifier) }
        if let collection = request.collectionIdentifier {
            try LocalIdentifier.validate(collection)
            guard try library.assetCollection(withIdentifier: collection) != nil else {
                throw PhotoLibError(.notFound, "no album or smart album has the identifier \(collection)")
            }
        }
        var query = AssetQuery(options: request.options, collection: request.collectionIdentifier, mediaType: request.mediaTypes.first)
        if !request.localIdentifiers.isEmpty { query.identifiers = request.localIdentifiers }
        let identifiers = try library.fetchAssetIdentifiers(query)
        let (id, expiresAt) = call.session.fetchResults.add(.assets(identifiers))
        let prefetch = Array(identifiers.prefix(min(max(0, request.prefetchCount), Self.maxPageLength)))
        try await call.send(FetchResultSnapshot(
            fetchResultID: id, objectType: .asset, count: identifiers.count, expiresAt: expiresAt,
            prefetched: .assets(try library.assets(withIdentifiers: prefetch))))
    }

    func fetchAssetCollections(_ call: ServerCall) async throws {
        let request = try await call.singleRequest(FetchAssetCollectionsRequest.self)
        if request.containingAssetIdentifier != nil {
            throw PhotoLibError(.unimplemented, "fetchAssetCollectionsContaining is not built in this server yet")
        }
        var collections = try library.assetCollections()
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
        try await call.send(FetchResultSnapshot(
            fetchResultID: id, objectType: .assetCollection, count: collections.count, expiresAt: expiresAt,
            prefetched: .assetCollections(prefetch)))
    }

    func fetchResultObjects(_ call: ServerCall) async throws {
        let request = try await call.singleRequest(FetchResultObjectsRequest.self)
        let contents = try call.session.fetchResults.use(request.fetchResultID)
        let count: Int
        switch contents {
        case .assets(let ids): count = ids.count
        case .collections(let collections): count = collections.count
        }
        guard request.offset >= 0, request.offset <= count else {
            throw PhotoLibError(.outOfRange, "offset \(request.offset) is past the end of a fetch result of \(count) objects")
        }
        let length = min(max(0, request.length), Self.maxPageLength, count - request.offset)
        let range = request.offset..<(request.offset + length)
        switch contents {
        case .assets(let ids):
            let slice = Array(ids[range])
            let objects = request.identifiersOnly ? [] : try library.assets(withIdentifiers: slice)
            try await call.send(FetchResultObjectsResponse(offset: request.offset, localIdentifiers: slice, objects: .assets(objects)))
        case .collections(let collections):
            let slice = Array(collections[range])
            try await call.send(FetchResultObjectsResponse(
                offset: request.offset, localIdentifiers: slice.map(\.localIdentifier),
                objects: .assetCollections(request.identifiersOnly ? [] : slice)))
        }
    }

    func fetchResultIndex(_ call: ServerCall) async throws {
        let request = try await call.singleRequest(FetchResultIndexRequest.self)
        let index: Int?
        switch try call.session.fetchResults.use(request.fetchResultID) {
        case .assets(let ids): index = ids.firstIndex(of: request.localIdentifier)
        case .collections(let collections): index = collections.firstIndex { $0.localIdentifier == request.localIdentifier }
        }
        try await call.send(FetchResultIndexResponse(index: index))
    }

    func releaseFetchResult(_ call: ServerCall) async throws {
        let request = try await call.singleRequest(ReleaseFetchResultRequest.self)
        call.session.fetchResults.release(request.fetchResultID)
        try await call.send(EmptyMessage())
    }
}
