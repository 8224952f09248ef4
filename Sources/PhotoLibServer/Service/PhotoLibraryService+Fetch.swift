import Foundation
import PhotoLibCore
import PhotoLibStore
import PhotoLibWire

extension PhotoLibraryService {
    func fetchAssets(_ call: ServerCall<Wire.FetchAssetsRequest, Wire.FetchResultSnapshot>) async throws {
        let request = try await call.singleRequest()
        var query = try (request.options ?? Wire.FetchOptions()).assetQuery()
        let prefetchCount = min(Int(request.prefetchCount), Self.maxPageLength)
        // A limited client's query names its view: its snapshots and live results are its own.
        query.limitedTo = limitedTo(call.session)
        let library = view(call.session), scoped = query, shared = sharedSnapshots
        let (listing, prefetch, reused) = try await libraryIO.run { () throws(PhotoLibError) in
            // The same query at the same library version: share the list a snapshot holds.
            let version = try library.dataVersion()
            if let existing = shared.listing(for: scoped, version: version) {
                do throws(PhotoLibError) {
                    let first = try existing.identifiers(in: 0..<min(prefetchCount, existing.count))
                    return (existing, try library.assets(withIdentifiers: first), true)
                } catch {
                    existing.letGo()
                    throw error
                }
            }
            // Read before the list: any later transaction may have changed its assets' values
            // (a later registration for changes brings them up to date from here).
            let token = try library.currentChangeToken()
            let reader = try library.beginFetch(scoped, prefetch: prefetchCount)
            let listing = PendingAssetListing(reader: reader, query: scoped, changeToken: token)
            shared.remember(listing, for: scoped, version: version)
            return (listing, try library.assets(withIdentifiers: reader.firstIdentifiers), false)
        }
        let (id, expiresAt) = call.session.fetchResults.add(.assets(listing))
        // The cache held a shared list for us until the snapshot did.
        if reused { listing.letGo() }
        try await call.send(encoded: [Self.fittingEncoded(prefetch, within: call.session.maxResponseSize) { objects in
            Wire.FetchResultSnapshot(
                fetchResultID: id, objectType: .asset, count: UInt64(listing.count), expiresAtMs: Wire.milliseconds(expiresAt),
                assets: objects.map(Wire.Asset.init))
        }])
    }

    func fetchAssetCollections(_ call: ServerCall<Wire.FetchAssetCollectionsRequest, Wire.FetchResultSnapshot>) async throws {
        let request = try await call.singleRequest()
        let type: AssetCollectionType? = request.type == .any ? nil : try request.type.domain(field: "FetchAssetCollectionsRequest.type")
        let subtype: AssetCollectionSubtype? = request.subtype == .any ? nil : try request.subtype.domain(field: "FetchAssetCollectionsRequest.subtype")
        let containing = request.containingAssetIdentifier
        if !containing.isEmpty { try LocalIdentifier.validate(containing) }
        let parent = request.parentFolderIdentifier
        if !parent.isEmpty { try LocalIdentifier.validate(parent) }
        let library = view(call.session)
        var collections = try await libraryIO.run { () throws(PhotoLibError) -> [AssetCollection] in
            // An unknown folder is NOT_FOUND, like every other unknown identifier.
            if !parent.isEmpty, try library.collectionList(withIdentifier: parent) == nil {
                throw PhotoLibError(.notFound, "no folder has the identifier \(parent)")
            }
            guard !containing.isEmpty else { return try library.assetCollections() }
            guard try library.asset(withIdentifier: containing) != nil else {
                throw PhotoLibError(.notFound, "no asset has the identifier \(containing)")
            }
            return try library.fetchAssetCollectionsContaining(asset: containing)
        }
        if let type { collections = collections.filter { $0.type == type } }
        if let subtype { collections = collections.filter { $0.subtype == subtype } }
        if !request.localIdentifiers.isEmpty {
            let wanted = Set(request.localIdentifiers)
            collections = collections.filter { wanted.contains($0.localIdentifier) }
        }
        if !request.parentFolderIdentifier.isEmpty {
            collections = collections.filter { $0.parentFolderIdentifier == request.parentFolderIdentifier }
        }
        let (id, expiresAt) = call.session.fetchResults.add(.collections(collections))
        let prefetch = Array(collections.prefix(min(Int(request.prefetchCount), Self.maxPageLength)))
        try await call.send(encoded: [Self.fittingEncoded(prefetch, within: call.session.maxResponseSize) { objects in
            Wire.FetchResultSnapshot(
                fetchResultID: id, objectType: .assetCollection, count: UInt64(collections.count), expiresAtMs: Wire.milliseconds(expiresAt),
                assetCollections: objects.map(Wire.AssetCollection.init))
        }])
    }

    func fetchCollectionLists(_ call: ServerCall<Wire.FetchCollectionListsRequest, Wire.FetchResultSnapshot>) async throws {
        let request = try await call.singleRequest()
        let child = request.containingCollectionIdentifier
        if !child.isEmpty { try LocalIdentifier.validate(child) }
        let parentFolder = request.parentFolderIdentifier
        if !parentFolder.isEmpty { try LocalIdentifier.validate(parentFolder) }
        let library = view(call.session)
        // The folders, and the parent of `child` (`.some(nil)`: it has none) when asked for.
        let (allLists, parent) = try await libraryIO.run { () throws(PhotoLibError) -> ([CollectionList], String??) in
            let lists = try library.collectionLists()
            // An unknown folder is NOT_FOUND, as in FetchAssetCollections (it answered 0 folders).
            if !parentFolder.isEmpty, !lists.contains(where: { $0.localIdentifier == parentFolder }) {
                throw PhotoLibError(.notFound, "no folder has the identifier \(parentFolder)")
            }
            guard !child.isEmpty else { return (lists, nil) }
            if let album = try library.assetCollection(withIdentifier: child) { return (lists, .some(album.parentFolderIdentifier)) }
            if let folder = try library.collectionList(withIdentifier: child) { return (lists, .some(folder.parentFolderIdentifier)) }
            throw PhotoLibError(.notFound, "no album or folder has the identifier \(child)")
        }
        var lists = allLists
        if !request.localIdentifiers.isEmpty {
            let wanted = Set(request.localIdentifiers)
            lists = lists.filter { wanted.contains($0.localIdentifier) }
        }
        if !request.parentFolderIdentifier.isEmpty {
            lists = lists.filter { $0.parentFolderIdentifier == request.parentFolderIdentifier }
        }
        if case .some(let parent) = parent {
            lists = lists.filter { $0.localIdentifier == parent }
        }
        let (id, expiresAt) = call.session.fetchResults.add(.collectionLists(lists))
        let prefetch = Array(lists.prefix(min(Int(request.prefetchCount), Self.maxPageLength)))
        try await call.send(encoded: [Self.fittingEncoded(prefetch, within: call.session.maxResponseSize) { objects in
            Wire.FetchResultSnapshot(
                fetchResultID: id, objectType: .collectionList, count: UInt64(lists.count), expiresAtMs: Wire.milliseconds(expiresAt),
                collectionLists: objects.map(Wire.CollectionList.init))
        }])
    }

    /// `FetchResultObjects`: a page of a snapshot, read and encoded on a ``libraryIO`` thread
    /// (a pooled route: a pending snapshot's page may wait for its background read, and
    /// assets are read from the store).
    func fetchResultObjects(_ request: Wire.FetchResultObjectsRequest, _ context: InlineCallContext) throws(PhotoLibError) -> [UInt8] {
        let session = context.session
        let contents = try session.fetchResults.use(request.fetchResultID)
        let count = contents.count
        guard request.offset <= UInt64(count) else {
            throw PhotoLibError(.outOfRange, "offset \(request.offset) is past the end of a fetch result of \(count) objects")
        }
        let offset = Int(request.offset)
        let length = min(Int(request.length), Self.maxPageLength, count - offset)
        let range = offset..<(offset + length)
        switch contents {
        case .assets(let listing):
            let slice = try listing.identifiers(in: range)
            if !request.identifiersOnly, let page = try Self.encodedDirectly(slice, at: request.offset, of: listing.query, in: view(session)),
                page.count <= session.maxResponseSize - 64
            {
                return page
            }
            // In the page's order, those deleted since left out.
            let objects = request.identifiersOnly ? [] : try view(session).assets(page: slice, of: listing.query)
            return Self.fittingEncoded(slice, within: session.maxResponseSize, encode: { $0.encodedDirectly() }) { part in
                var assets = objects
                if part.count < slice.count {
                    let kept = Set(part)
                    assets = objects.filter { kept.contains($0.localIdentifier) }
                }
                return Wire.FetchResultObjectsResponse(offset: request.offset, assets: assets.map(Wire.Asset.init), localIdentifiers: part)
            }
        case .collections(let collections):
            let slice = Array(collections[range])
            return Self.fittingEncoded(slice, within: session.maxResponseSize) { part in
                Wire.FetchResultObjectsResponse(
                    offset: request.offset, assetCollections: request.identifiersOnly ? [] : part.map(Wire.AssetCollection.init),
                    localIdentifiers: part.map(\.localIdentifier))
            }
        case .collectionLists(let lists):
            let slice = Array(lists[range])
            return Self.fittingEncoded(slice, within: session.maxResponseSize) { part in
                Wire.FetchResultObjectsResponse(
                    offset: request.offset, collectionLists: request.identifiersOnly ? [] : part.map(Wire.CollectionList.init),
                    localIdentifiers: part.map(\.localIdentifier))
            }
        }
    }

    /// The `FetchResultObjectsResponse` of a page of assets (`identifiers`, at `offset` of a
    /// snapshot of `query`) written straight from the rows the store reads, no `Asset` or
    /// ``Wire/Asset`` made per row (``AssetPageWriter``); `nil` when the store cannot hand
    /// the page over as one range (see `PhotoLibrary.visitAssets(page:of:_:)`), for the
    /// general path. The same bytes as the general path's for the same page.
    static func encodedDirectly(_ identifiers: [String], at offset: UInt64, of query: AssetQuery, in library: PhotoLibrary) throws(PhotoLibError) -> [UInt8]? {
        var writer = AssetPageWriter(offset: offset, capacity: identifiers.count)
        let whole = try library.visitAssets(page: identifiers, of: query) { row in
            row.withLocalIdentifier { identifier in
                row.withBurstIdentifier { burst in
                    writer.appendAsset(
                        localIdentifier: identifier, mediaType: row.mediaType, mediaSubtypes: row.mediaSubtypes,
                        pixelWidth: row.pixelWidth, pixelHeight: row.pixelHeight, creationDate: row.creationDate,
                        modificationDate: row.modificationDate, isFavorite: row.isFavorite, isHidden: row.isHidden,
                        duration: row.duration, burstIdentifier: burst, location: row.location,
                        hasAdjustments: row.hasAdjustments, contentVersion: row.contentVersion, trashedDate: row.trashedDate)
                }
            }
        }
        guard whole else { return nil }
        writer.appendLocalIdentifiers(identifiers)
        return writer.bytes
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

    /// ``fitting(_:within:_:)``, encoded: the bytes it measured, so that a page is encoded
    /// once rather than once to measure and again to send (a 100-asset page is ~15 KB).
    /// `encode` writes the message's bytes (`encoded()` unless the message has a faster way).
    static func fittingEncoded<Item, Message: WireMessage>(
        _ items: [Item], within limit: Int, encode: (Message) -> [UInt8] = { $0.encoded() }, _ make: ([Item]) -> Message
    ) -> [UInt8] {
        var count = items.count
        var encoded = encode(make(items))
        while count > 0 && encoded.count > limit - 64 {
            count /= 2
            encoded = encode(make(Array(items.prefix(count))))
        }
        return encoded
    }

    /// `FetchResultIndex`, on a ``libraryIO`` thread (a pooled route: it may wait for a
    /// pending snapshot's background read).
    func fetchResultIndex(_ request: Wire.FetchResultIndexRequest, _ context: InlineCallContext) throws(PhotoLibError) -> [UInt8] {
        let index: Int?
        switch try context.session.fetchResults.use(request.fetchResultID) {
        case .assets(let listing): index = try listing.index(of: request.localIdentifier)
        case .collections(let collections): index = collections.firstIndex { $0.localIdentifier == request.localIdentifier }
        case .collectionLists(let lists): index = lists.firstIndex { $0.localIdentifier == request.localIdentifier }
        }
        return Wire.FetchResultIndexResponse(found: index != nil, index: UInt64(index ?? 0)).encoded()
    }

    func releaseFetchResult(_ call: ServerCall<Wire.ReleaseFetchResultRequest, Wire.Empty>) async throws {
        let request = try await call.singleRequest()
        call.session.fetchResults.release(request.fetchResultID)
        try await call.send(Wire.Empty())
    }
}
